/**
 * Conflict-check name matching (packs.md §2.1, upstream defect 13): containment plus a small edit
 * distance, never failing open. Only an exact match (after folding) of a current client's name or
 * alias is a certain conflict; every near match is sent to review. A spoken name is near a name on
 * file when it is a small edit away, when its words all appear in the name on file, or when it
 * holds every distinctive word of the name on file ("Brightwater Trucking" holds "Brightwater
 * Freight"'s core): an extra word never turns a party on file into a stranger.
 */

import { editDistance } from '../../../src/packs/index.ts';

/** Words that say what kind of company it is, not which one. */
const LEGAL_SUFFIXES = new Set(['the', 'inc', 'incorporated', 'llc', 'llp', 'lp', 'co', 'company', 'corp', 'corporation', 'ltd', 'limited', 'group', 'pc']);

/** Words that many unrelated parties share; a near match must share something more distinctive. */
const GENERIC_WORDS = new Set([
  'and', 'of', 'medical', 'center', 'centre', 'hospital', 'health', 'system', 'insurance', 'mutual', 'casualty', 'apartments', 'apartment',
  'property', 'properties', 'management', 'freight', 'lines', 'logistics', 'trucking', 'foods', 'food', 'services', 'bank', 'county', 'city',
]);

/** Casefolded, '&' read as 'and', punctuation and legal suffixes removed, spaces collapsed. */
export function foldParty(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9 ]/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !LEGAL_SUFFIXES.has(w))
    .join(' ');
}

/** Edits tolerated between two whole folded names: none under 4 letters, one up to 11, two beyond. */
function wholeNameTolerance(length: number): number {
  return length < 4 ? 0 : length < 12 ? 1 : 2;
}

/** One word matches another when equal, or one edit apart on words of six or more letters. */
function wordsMatch(a: string, b: string): boolean {
  return a === b || (Math.min(a.length, b.length) >= 6 && editDistance(a, b) <= 1);
}

/** Every word of the spoken `part` matches a word of `whole`, and at least one matched word is distinctive. */
function containedIn(part: readonly string[], whole: readonly string[]): boolean {
  if (!part.length) return false;
  return part.every((w) => whole.some((x) => wordsMatch(w, x))) && part.some((w) => !GENERIC_WORDS.has(w) && whole.some((x) => wordsMatch(w, x)));
}

/** Every distinctive (non-generic) word of the name on file matches a word of the spoken name. */
function coreContainedIn(onFile: readonly string[], spoken: readonly string[]): boolean {
  const core = onFile.filter((w) => !GENERIC_WORDS.has(w));
  return core.length > 0 && core.every((w) => spoken.some((x) => wordsMatch(w, x)));
}

/** How a caller's name for a party relates to one name on file. */
export type PartyMatch = 'exact' | 'near' | 'none';

/** Compares a spoken party name with one name or alias on file. */
export function matchParty(spoken: string, onFile: string): PartyMatch {
  const a = foldParty(spoken);
  const b = foldParty(onFile);
  if (!a || !b) return 'none';
  if (a === b || a.replace(/ /g, '') === b.replace(/ /g, '')) return 'exact';
  if (editDistance(a, b) <= wholeNameTolerance(b.length)) return 'near';
  const wa = a.split(' ');
  const wb = b.split(' ');
  return containedIn(wa, wb) || coreContainedIn(wb, wa) ? 'near' : 'none';
}

/**
 * Compares a spoken name with one of the firm's own clients, a person. Besides `matchParty`, the
 * spoken name is near when it holds the client's surname ("Mr. Greer", "Sam Greer", "Angie
 * Moretti") or the first name with the surname's initial ("Denise K."): a title, a nickname or an
 * initial never makes a client a stranger, so such a name goes to review instead of clear.
 */
export function matchClient(spoken: string, fullName: string): PartyMatch {
  const match = matchParty(spoken, fullName);
  if (match !== 'none') return match;
  const said = foldParty(spoken).split(' ').filter(Boolean);
  const onFile = foldParty(fullName).split(' ').filter(Boolean);
  const first = onFile[0] ?? '';
  const last = onFile[onFile.length - 1] ?? '';
  if (onFile.length < 2) return 'none';
  if (said.some((w) => wordsMatch(w, last))) return 'near';
  return said.some((w) => wordsMatch(w, first)) && said.some((w) => w === last.slice(0, 1)) ? 'near' : 'none';
}
