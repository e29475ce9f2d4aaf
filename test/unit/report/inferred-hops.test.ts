import { describe, expect, it } from 'vitest';
import { inferredHopsNote, renderEventList } from '../../../src/report/timeline-view.ts';
import { timelineEventSchema, type TimelineEvent } from '../../../src/snapshot/index.ts';

/** A recorded hop with the given origin (parsed through the snapshot schema, so the fixture is a real timeline event). */
function hop(seq: number, origin: 'http' | 'platform' | 'inferred' | null): TimelineEvent {
  return timelineEventSchema.parse({
    seq,
    at_ms: 1_000 * seq,
    type: 'tool',
    kind: 'handoff',
    name: 'transfer_to_scheduler',
    agent: 'reception',
    tool_call_id: null,
    ...(origin ? { origin } : {}),
    arguments: {},
    canonical_arguments: {},
    output: { assistant: 'scheduler' },
    duration_ms: 0,
    executed: true,
    refusal: null,
    internal_fault: null,
  });
}

describe('results pages: hops mivas inferred (observe mode) are said to be inferred', () => {
  it('notes the inferred hop over the path graph and labels it in the event list', () => {
    const events = [hop(1, 'inferred')];
    expect(String(inferredHopsNote(events))).toContain('transfer_to_scheduler was not reported by the platform');
    expect(String(renderEventList(events))).toContain('hop inferred by mivas in observe mode');
  });

  it('says nothing of the kind for hops the agent or the platform made', () => {
    const events = [hop(1, null), hop(2, 'http'), hop(3, 'platform')];
    expect(String(inferredHopsNote(events))).toBe('');
    const list = String(renderEventList(events));
    expect(list).not.toContain('inferred');
    expect(list).toContain('executed by the platform, reported after');
  });
});
