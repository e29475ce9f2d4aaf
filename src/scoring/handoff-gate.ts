import type { TimelineEvent } from '../snapshot/index.ts';
import type { HandoffGateResult, HandoffVerdict } from './types.ts';

/** The handoff tool that reaches `agent` (the blueprint naming rule `transfer_to_<agent>`). */
export function hopName(agent: string): string {
  return `transfer_to_${agent}`;
}

/** Length of the longest prefix of `expected` that is an in-order subsequence of `actual`. */
function subsequencePrefix(expected: readonly string[], actual: readonly string[]): number {
  let matched = 0;
  for (const hop of actual) if (matched < expected.length && hop === expected[matched]) matched++;
  return matched;
}

function containsAll(expected: readonly string[], actual: readonly string[]): boolean {
  const remaining = [...actual];
  return expected.every((hop) => {
    const at = remaining.indexOf(hop);
    if (at < 0) return false;
    remaining.splice(at, 1);
    return true;
  });
}

function verdictOf(expected: readonly string[], actual: readonly string[], prefix: number): HandoffVerdict {
  if (prefix < expected.length) return containsAll(expected, actual) ? 'out_of_order' : 'incomplete';
  if (expected.length === 0) return actual.length === 0 ? 'optimal' : 'none_required';
  return actual.length === expected.length ? 'optimal' : 'detour';
}

/**
 * Gate 3 (scoring.md §6): the expected path must be an in-order subsequence of the transfers the
 * runtime applied, ordered by `seq` alone. Refused transfers, human transfers and end_call are not hops.
 */
export function judgeHandoff(expectedPath: readonly string[], entryAgent: string, events: readonly TimelineEvent[]): HandoffGateResult {
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  const applied = ordered.flatMap((e) => (e.type === 'handoff' ? [e] : []));
  const actual = applied.map((e) => hopName(e.to));
  const refusals = ordered.flatMap((e) => (e.type === 'tool' && e.kind === 'handoff' && !e.executed ? [{ seq: e.seq, name: e.name, agent: e.agent }] : []));
  const prefix = subsequencePrefix(expectedPath, actual);
  const verdict = verdictOf(expectedPath, actual, prefix);
  return {
    pass: verdict !== 'incomplete' && verdict !== 'out_of_order',
    verdict,
    expected_path: expectedPath,
    actual_path: actual,
    agent_sequence: [entryAgent, ...applied.map((e) => e.to)],
    transfer_refusals: refusals,
    first_unmatched: expectedPath[prefix] ?? null,
  };
}

/** The reward of scoring.md §7: (1+|E|)/(1+|A|) for a PASS, 0 for a FAIL. */
export function rewardOf(pass: boolean, expectedHops: number, actualHops: number): number {
  return pass ? (1 + expectedHops) / (1 + actualHops) : 0;
}
