import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../core/index.ts';
import { CHIRP_RATE_HZ, createSpeechSynth, espeakAvailable, wavHeader } from '../audio/index.ts';
import { listPackIds, loadPack, pronunciationTable, readPackDefinition, renderReadmeBlocks, rewriteReadmeBlocks, writeToolsJson, type Pack } from '../packs/index.ts';
import { buildDatabase, dumpDatabaseAt } from '../store/index.ts';
import { failWith, type Command } from './io.ts';
import { renderTable } from './progress.ts';

export const USAGE = `usage: mivas packs generate [--pack P] [--packs-dir DIR]
       mivas packs migrate --pack P [--name NAME]
       mivas packs pronounce --pack P [--out DIR]

generate  rewrites each pack's tools.json from its blueprint and tools.ts, then the
          generated blocks of its README.md (graph, policy, seed counts, task grid)
migrate   runs drizzle-kit on packs/P/schema.ts into migrations/P (offline)
pronounce speaks every word of the README's pronunciation table through espeak-ng into
          DIR (default data/pronunciations/P) and prints espeak-ng's IPA beside the
          intended sounds, to listen to before the pack is locked (packs.md §1.3)`;

/** `mivas packs`: generators for the files a pack does not write by hand. */
export const packsCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { pack: { type: 'string' }, 'packs-dir': { type: 'string', default: 'packs' }, name: { type: 'string' }, out: { type: 'string' } },
    allowPositionals: false,
  });
  const packsDir = resolve(io.cwd, values['packs-dir'] ?? 'packs');
  if (sub === 'generate') {
    for (const id of values.pack ? [values.pack] : listPackIds(packsDir)) {
      const file = writeToolsJson(await readPackDefinition(packsDir, id));
      io.stdout.write(`wrote ${file}\n`);
      const readme = writeReadme(await loadPack(packsDir, id));
      if (readme) io.stdout.write(`wrote ${readme}\n`);
    }
    return EXIT.ok;
  }
  if (sub === 'migrate' && values.pack) {
    const out = join('migrations', values.pack);
    const args = ['drizzle-kit', 'generate', '--dialect', 'sqlite', '--schema', join('packs', values.pack, 'schema.ts'), '--out', out];
    if (values.name) args.push('--name', values.name);
    const result = spawnSync('npx', args, { cwd: io.cwd, stdio: 'inherit' });
    return result.status === 0 ? EXIT.ok : EXIT.checkFailed;
  }
  if (sub === 'pronounce' && values.pack) {
    const pack = await loadPack(packsDir, values.pack);
    return pronounce(pack, resolve(io.cwd, values.out ?? join('data', 'pronunciations', pack.id)), io);
  }
  return failWith(io, 'USAGE', USAGE);
};

/** Renders each pronunciation-table word through espeak-ng (a WAV and its IPA) for a listener. */
async function pronounce(pack: Pack, outDir: string, io: Parameters<Command>[1]): Promise<number> {
  const readme = join(pack.dir, 'README.md');
  const entries = existsSync(readme) ? pronunciationTable(readFileSync(readme, 'utf8')) : [];
  if (!entries.length) {
    io.stderr.write(`no pronunciation table under "## Pronunciation" in ${readme}\n`);
    return EXIT.checkFailed;
  }
  if (!(await espeakAvailable())) {
    io.stderr.write('espeak-ng is not installed (apt-get install espeak-ng); it is the voice these words are checked with\n');
    return EXIT.checkFailed;
  }
  mkdirSync(outDir, { recursive: true });
  const synth = await createSpeechSynth(CHIRP_RATE_HZ);
  const rows: string[][] = [];
  for (const entry of entries) {
    const pcm = await synth.synthesize(entry.word);
    const file = join(outDir, `${entry.word.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}.wav`);
    writeFileSync(file, Buffer.concat([wavHeader(pcm.length, CHIRP_RATE_HZ, 1), pcm]));
    const ipa = spawnSync('espeak-ng', ['-q', '--ipa', entry.word], { encoding: 'utf8' }).stdout.trim().split(/\s*\n\s*/).join(' / ');
    rows.push([entry.word, entry.sayIt, ipa, `${(pcm.length / 32_000).toFixed(1)} s`]);
  }
  io.stdout.write(`${renderTable(['word', 'say it', 'espeak-ng (IPA)', 'audio'], rows)}\n`);
  io.stdout.write(`wrote ${rows.length} WAV files to ${outDir}: listen to each, and rename any word the voice mangles before the pack is locked (packs.md §1.3)\n`);
  return EXIT.ok;
}

/** Row counts per table of a freshly built template database. */
export function seedCounts(pack: Pack): Record<string, number> {
  const work = mkdtempSync(join(tmpdir(), 'mivas-seed-'));
  try {
    const file = join(work, 'template.db');
    buildDatabase(pack, file);
    return Object.fromEntries(Object.entries(dumpDatabaseAt(file)).map(([table, rows]) => [table, rows.length]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Rewrites the generated blocks of the pack's README.md in place; returns the file, or undefined when there is no README. */
export function writeReadme(pack: Pack): string | undefined {
  const file = join(pack.dir, 'README.md');
  if (!existsSync(file)) return undefined;
  const blocks = renderReadmeBlocks({ blueprint: pack.blueprint, module: pack.module, tasks: pack.tasks.values(), seedCounts: seedCounts(pack) });
  writeFileSync(file, rewriteReadmeBlocks(readFileSync(file, 'utf8'), blocks));
  return file;
}

/** Rewrites one JSON file with a field replaced, keeping two-space formatting. */
export function rewriteJsonField(file: string, field: string, value: unknown): void {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  data[field] = value;
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}
