import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { espeakAvailable, parseWav } from '../../../src/audio/index.ts';
import { runCli } from '../../../src/cli/index.ts';
import { pronunciationTable } from '../../../src/packs/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const hasEspeak = await espeakAvailable();

describe('pronunciationTable', () => {
  it('reads the rows under "## Pronunciation" and nothing after the next section', () => {
    const readme = [
      '# Pack',
      '| not | this |',
      '## Pronunciation',
      'Words the agent may say.',
      '| Word | Say it | Where it comes from |',
      '|---|---|---|',
      '| Straus Dermatology | STROWSS der-muh-TOL-uh-jee | company |',
      '| Avery | AY-vuh-ree | persona |',
      '## Traps',
      '| Later | table | row |',
    ].join('\n');
    expect(pronunciationTable(readme)).toEqual([
      { word: 'Straus Dermatology', sayIt: 'STROWSS der-muh-TOL-uh-jee', source: 'company' },
      { word: 'Avery', sayIt: 'AY-vuh-ree', source: 'persona' },
    ]);
    expect(pronunciationTable('# Pack\nno table here')).toEqual([]);
  });

  it('finds every row of the healthcare README', () => {
    const rows = pronunciationTable(readFileSync(join(ROOT, 'packs/healthcare/README.md'), 'utf8'));
    expect(rows.length).toBeGreaterThan(10);
    expect(rows[0]?.word).toBe('Straus Dermatology');
    expect(rows.every((r) => r.word && r.sayIt)).toBe(true);
  });
});

describe.skipIf(!hasEspeak)('mivas packs pronounce (needs espeak-ng)', () => {
  it('writes one 16 kHz WAV per word and prints espeak-ng IPA for each', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mivas-pronounce-'));
    try {
      let stdout = '';
      let stderr = '';
      const code = await runCli(['packs', 'pronounce', '--pack', 'healthcare', '--out', out], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env: {}, cwd: ROOT });
      expect(code, stderr).toBe(0);
      const words = pronunciationTable(readFileSync(join(ROOT, 'packs/healthcare/README.md'), 'utf8'));
      const files = readdirSync(out);
      expect(files).toHaveLength(words.length);
      for (const file of files) {
        const wav = parseWav(readFileSync(join(out, file)));
        expect([wav.rateHz, wav.channels]).toEqual([16_000, 1]);
        expect(wav.data.length).toBeGreaterThan(16_000); // over half a second of speech
      }
      const rows = stdout.split('\n').filter((l) => words.some((w) => l.startsWith(w.word)));
      expect(rows).toHaveLength(words.length);
      expect(rows.every((l) => l.includes('ˈ'))).toBe(true); // every row carries espeak-ng's IPA (with its stress marks)
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
