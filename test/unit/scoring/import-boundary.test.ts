import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCORING_DIR = join(import.meta.dirname, '../../../src/scoring');
const FORBIDDEN = [/\/server\//, /\/call\//, /\/providers\//, /['"]openai['"]/, /@anthropic-ai\//, /@google\//, /['"]ws['"]/, /fastify/];

function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? '');
}

describe('import boundary (docs/architecture.md convention 1, scoring.md §1)', () => {
  it('scoring imports no provider or model client, nor the server or call code', () => {
    const files = readdirSync(SCORING_DIR).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const specifiers = importsOf(readFileSync(join(SCORING_DIR, file), 'utf8'));
      for (const spec of specifiers) for (const pattern of FORBIDDEN) expect(`${file}: ${spec}`).not.toMatch(pattern);
    }
  });
});
