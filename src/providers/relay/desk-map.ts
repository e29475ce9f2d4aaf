import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../core/index.ts';
import type { Pack } from '../../packs/index.ts';

/**
 * The team's desk mapping (docs/platforms.md, "Desk mapping"): which pack desk each of the
 * platform's own agents or nodes plays, so a transfer the platform names its way
 * (`transfer_to_<node>`, an ElevenLabs agent's name) reaches the pack's `transfer_to_<desk>`.
 * A JSON file `{"desks": {"<platform agent or node>": "<pack desk>"}}`; a desk the pack does not
 * declare is a ConfigError at boot.
 */

const HANDOFF_PREFIX = 'transfer_to_';
const deskMapFileSchema = z.strictObject({ desks: z.record(z.string().min(1).max(200), z.string().min(1)) });

/** Platform name → pack desk. */
export type DeskMap = ReadonlyMap<string, string>;

/** Parses a desk map's text against a pack; throws ConfigError naming the file and the problem. */
export function parseDeskMap(text: string, pack: Pack, where: string): DeskMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('CONFIG_INVALID', `${where}: not JSON`);
  }
  const parsed = deskMapFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError('CONFIG_INVALID', `${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  const desks = new Set(pack.blueprint.agents.map((a) => a.name));
  for (const [name, desk] of Object.entries(parsed.data.desks)) {
    if (!desks.has(desk)) throw new ConfigError('CONFIG_INVALID', `${where}: "${name}" maps to desk "${desk}", which pack ${pack.id} does not declare (desks: ${[...desks].join(', ')})`);
  }
  return new Map(Object.entries(parsed.data.desks));
}

/** The desk map of MIVAS_RELAY_DESK_MAP, or an empty map when none is configured. */
export function loadDeskMap(file: string | undefined, pack: Pack): DeskMap {
  if (!file) return new Map();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('CONFIG_INVALID', `MIVAS_RELAY_DESK_MAP: cannot read ${file}`);
  }
  return parseDeskMap(text, pack, `MIVAS_RELAY_DESK_MAP ${file}`);
}

/** The pack's desk a platform agent or node plays (itself when unmapped). */
export function deskOf(map: DeskMap, platformName: string): string {
  return map.get(platformName) ?? platformName;
}

/** A tool name with a platform-named transfer rewritten to the pack's (`transfer_to_<node>` → `transfer_to_<desk>`); other names unchanged. */
export function packToolName(map: DeskMap, name: string): string {
  if (!name.startsWith(HANDOFF_PREFIX)) return name;
  return `${HANDOFF_PREFIX}${deskOf(map, name.slice(HANDOFF_PREFIX.length))}`;
}
