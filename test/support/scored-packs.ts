import { join } from 'node:path';
import { listPackIds } from '../../src/packs/index.ts';
import { HEADLINE_EXCLUDED_PACKS } from '../../src/scoring/index.ts';

/**
 * Every scored pack, found in packs/ as the server, the bench and the results pages find them (the
 * wiring pack, which no headline counts, left out): a tested loop over the industries covers a new
 * pack without an edit. The replay-print fixture keeps its own fixed list, since its hashes are
 * pinned per pack.
 */
export const SCORED_PACK_IDS: readonly string[] = listPackIds(join(import.meta.dirname, '../../packs')).filter((id) => !HEADLINE_EXCLUDED_PACKS.has(id));
