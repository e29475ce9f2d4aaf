import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../core/errors.ts';
import { listPackIds, readPackDefinition, writeToolsJson } from '../packs/index.ts';
import type { Command } from './io.ts';

const USAGE = `usage: mivas packs generate [--pack P] [--packs-dir DIR]
       mivas packs migrate --pack P [--name NAME]

generate  rewrites each pack's tools.json from its blueprint and tools.ts
migrate   runs drizzle-kit on packs/P/schema.ts into migrations/P (offline)`;

/** `mivas packs`: generators for the files a pack does not write by hand. */
export const packsCommand: Command = async (argv, io) => {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { pack: { type: 'string' }, 'packs-dir': { type: 'string', default: 'packs' }, name: { type: 'string' } },
    allowPositionals: false,
  });
  const packsDir = resolve(io.cwd, values['packs-dir'] ?? 'packs');
  if (sub === 'generate') {
    for (const id of values.pack ? [values.pack] : listPackIds(packsDir)) {
      const file = writeToolsJson(await readPackDefinition(packsDir, id));
      io.stdout.write(`wrote ${file}\n`);
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
  io.stderr.write(`${USAGE}\n`);
  return EXIT.usage;
};

/** Rewrites one JSON file with a field replaced, keeping two-space formatting. */
export function rewriteJsonField(file: string, field: string, value: unknown): void {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  data[field] = value;
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}
