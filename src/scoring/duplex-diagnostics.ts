/**
 * Duplex diagnostics (scoring.md §10.1, issue 33): for each act the caller said over the agent
 * (`caller.json` lines with `duplex`), whether the agent's audio stopped and how fast, on the
 * server's clock; for a back-channel, whether the agent wrongly took the floor (it stopped for an
 * "mm-hm"); for a correction, whether a later call or the final state used the stale value. They sit
 * beside the verdict: no gate, pass or reward reads them (a correction task's stale write fails its
 * state or tool gate on its own).
 */
import type { DuplexActKind, Task } from '../packs/index.ts';
import type { CallerFile, FinalState, TimelineEvent } from '../snapshot/index.ts';
import { holdsValue } from './duplex-task-checks.ts';
import type { DuplexCheck } from './types.ts';

/** Whether the agent's utterance was cut off once the caller's speech had reached the server, and how long after. */
function agentStop(events: readonly TimelineEvent[], overId: string, callerAtMs: number | null): { stopped: boolean | null; stopMs: number | null } {
  const done = events.find((e) => e.type === 'speech.completed' && e.side === 'agent' && e.utterance_id === overId);
  if (!done || done.type !== 'speech.completed' || callerAtMs === null) return { stopped: null, stopMs: null };
  const stopped = done.interrupted && done.at_ms >= callerAtMs;
  return { stopped, stopMs: stopped ? Math.max(0, done.at_ms - callerAtMs) : null };
}

/** The tool calls at or after a moment whose arguments carry a value (their timeline seqs). */
function callsCarrying(events: readonly TimelineEvent[], fromMs: number, value: string): number[] {
  return events.filter((e) => e.type === 'tool' && e.kind !== 'handoff' && e.at_ms >= fromMs && holdsValue(e.canonical_arguments ?? e.arguments, value)).map((e) => e.seq);
}

/** One check per duplex line of the caller's record; none without a `caller.json` (another client's caller) or a task. */
export function duplexChecks(events: readonly TimelineEvent[], caller: CallerFile | null | undefined, task: Task | undefined, final: FinalState | null): DuplexCheck[] {
  if (!caller || !task) return [];
  return caller.turns.flatMap((turn): DuplexCheck[] => {
    if (turn.side !== 'caller' || !turn.duplex) return [];
    const started = events.find((e) => e.type === 'speech.started' && e.side === 'caller' && e.utterance_id === turn.utterance_id);
    const atMs = started?.at_ms ?? null;
    const { stopped, stopMs } = agentStop(events, turn.duplex.over_utterance_id, atMs);
    const trigger = turn.pin ? task.scripted_responses[turn.pin - 1]?.duplex : undefined;
    const stale = turn.duplex.act === 'correction' ? (trigger?.stale_value ?? null) : null;
    const graded = final ? Object.fromEntries(Object.keys(task.exp_db_state).map((t) => [t, final[t] ?? []])) : null;
    return [
      {
        act: turn.duplex.act as DuplexActKind,
        pin: turn.pin,
        caller_utterance_id: turn.utterance_id,
        over_utterance_id: turn.duplex.over_utterance_id,
        at_ms: atMs,
        agent_stopped: stopped,
        stop_ms: stopMs,
        stale_calls: stale === null ? [] : callsCarrying(events, atMs ?? 0, stale),
        stale_in_state: stale === null || graded === null ? null : holdsValue(graded, stale),
      },
    ];
  });
}
