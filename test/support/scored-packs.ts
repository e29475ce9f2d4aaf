import { join } from 'node:path';
import { listPackIds } from '../../src/packs/index.ts';
import { HEADLINE_EXCLUDED_PACKS } from '../../src/scoring/index.ts';

/**
 * The scored packs: every folder in packs/ except the control packs the headline leaves out,
 * found on disk rather than listed, so a new industry pack is covered by every test that uses it.
 */
export const SCORED_PACKS: readonly string[] = listPackIds(join(import.meta.dirname, '../../packs')).filter((id) => !HEADLINE_EXCLUDED_PACKS.has(id));
