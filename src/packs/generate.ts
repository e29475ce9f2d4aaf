import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, toolsJson } from './catalog.ts';
import type { Pack } from './loader.ts';

/** tools.json text for a pack, as committed (two-space JSON with a trailing newline). */
export function renderToolsJson(pack: Pick<Pack, 'blueprint' | 'module'>): string {
  const { tools } = buildCatalog(pack.blueprint, pack.module.tools, pack.module.graphRules.gates);
  return `${JSON.stringify(toolsJson(tools), null, 2)}\n`;
}

/** Writes tools.json beside the pack's blueprint. */
export function writeToolsJson(pack: Pick<Pack, 'dir' | 'blueprint' | 'module'>): string {
  const file = join(pack.dir, 'tools.json');
  writeFileSync(file, renderToolsJson(pack));
  return file;
}
