import { join } from 'node:path';
import type { Pack } from '../packs/index.ts';
import { CallDatabases } from './call-databases.ts';
import type { DatabaseDump } from './dump.ts';
import { ensureTemplate } from './template.ts';

/** A pack's per-conversation databases and the rows of its template. */
export interface PackDatabases {
  readonly databases: CallDatabases;
  readonly templateDump: DatabaseDump;
}

/**
 * The template of a pack under `<dataDir>/templates` (built once per template hash) and its
 * conversations' databases in `<dataDir>/<folder>` (`calls` for the served pack's calls,
 * `episodes/<pack>` for text episodes of any pack).
 */
export function packDatabases(dataDir: string, pack: Pack, folder: string): PackDatabases {
  const template = ensureTemplate(join(dataDir, 'templates'), pack);
  const databases = new CallDatabases(join(dataDir, folder), template);
  return { databases, templateDump: databases.templateDump() };
}
