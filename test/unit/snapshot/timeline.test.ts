import { describe, expect, it } from 'vitest';
import { CUT_VALUE, Timeline, timelineEventSchema } from '../../../src/snapshot/index.ts';

const tool = (args: unknown) =>
  ({ type: 'tool', kind: 'industry', name: 'book_appointment', agent: 'scheduler', tool_call_id: null, arguments: args, canonical_arguments: null, output: { ok: false }, duration_ms: 1, executed: false, refusal: 'INVALID_ARGUMENTS', internal_fault: null }) as const;

/** `[[[...]]]` nested `depth` levels, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe('Timeline bounds', () => {
  it('keeps a whole timeline whole: no truncation', () => {
    const t = new Timeline(() => 0);
    for (let i = 0; i < 100; i++) t.add({ type: 'frame.ignored', reason: `r${i}` });
    expect(t.events()).toHaveLength(100);
    expect(t.truncation()).toBeNull();
  });

  it('cuts values nested deeper than the limit, so the event still serialises', () => {
    const t = new Timeline(() => 0, undefined, { maxDepth: 8 });
    t.add(tool({ date: nested(10_000) }));
    const [event] = t.events();
    expect(() => JSON.stringify(event)).not.toThrow();
    expect(timelineEventSchema.safeParse(event).success).toBe(true);
    expect(JSON.stringify(event)).toContain(CUT_VALUE);
    expect(t.truncation()).toEqual({ events_dropped: 0, values_cut: 1, limits: ['depth'] });
  });

  it('keeps a shallow value as it is', () => {
    const t = new Timeline(() => 0, undefined, { maxDepth: 8 });
    const args = { date: nested(5) };
    t.add(tool(args));
    expect((t.events()[0] as { arguments: unknown }).arguments).toEqual(args);
    expect(t.truncation()).toBeNull();
  });

  it('counts events past the event limit instead of keeping them, and always keeps call.ended', () => {
    const t = new Timeline(() => 0, undefined, { maxEvents: 10 });
    for (let i = 0; i < 1_000; i++) t.add({ type: 'frame.ignored', reason: 'x' });
    t.add({ type: 'call.ended', end_reason: 'caller_hangup', close_code: 1000 });
    expect(t.events()).toHaveLength(10);
    expect(t.events().at(-1)).toMatchObject({ type: 'call.ended', seq: 9 });
    expect(t.events().map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(t.truncation()).toEqual({ events_dropped: 991, values_cut: 0, limits: ['events'] });
  });

  it('stops at the byte limit: later events are dropped even if they would fit, so the kept events are a prefix', () => {
    const t = new Timeline(() => 0, undefined, { maxBytes: 2_000 });
    t.add({ type: 'frame.ignored', reason: 'short' });
    t.add({ type: 'frame.ignored', reason: 'y'.repeat(5_000) });
    t.add({ type: 'frame.ignored', reason: 'short again' });
    t.add({ type: 'call.ended', end_reason: 'caller_hangup', close_code: 1000 });
    expect(t.events().map((e) => e.type)).toEqual(['frame.ignored', 'call.ended']);
    expect(t.truncation()).toEqual({ events_dropped: 2, values_cut: 0, limits: ['bytes'] });
    expect(JSON.stringify({ events: t.events() }).length).toBeLessThan(2_000);
  });

  it('writes its JSON as JSON.stringify of the events kept: cut values, dropped and refused events included', () => {
    const refused: string[] = [];
    const t = new Timeline(() => 12.6, (reason) => refused.push(reason), { maxDepth: 8, maxBytes: 3_000 });
    t.add(tool({ date: nested(10_000), note: 'é "quoted" \u2028' }));
    t.add({ type: 'transcript', side: 'caller', text: 'hello', utterance_id: null });
    t.add({ type: 'transcript', side: 'caller', text: 42 } as never);
    t.add({ type: 'frame.ignored', reason: 'y'.repeat(5_000) });
    t.add({ type: 'call.ended', end_reason: 'caller_hangup', close_code: 1000 });
    expect(refused).toHaveLength(1);
    expect(t.events().map((e) => e.type)).toEqual(['tool', 'transcript', 'call.ended']);
    expect(t.json()).toBe(JSON.stringify({ events: t.events() }));
    expect(new Timeline(() => 0).json()).toBe(JSON.stringify({ events: [] }));
  });
});
