import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conversation, ConversationClosedError, replayOffline } from '../../../src/conversation/index.ts';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { Timeline, TimelineEventError } from '../../../src/snapshot/index.ts';
import { CallDatabases, CallIdUsedError, ensureTemplate } from '../../../src/store/index.ts';

describe('Conversation (the one dispatcher)', () => {
  let dir: string;
  let pack: Pack;
  let dbs: CallDatabases;
  let n = 0;
  const open = (): Conversation => Conversation.open({ pack, id: `conv_${++n}`, databases: dbs, timeline: new Timeline(() => 0), nowMs: () => 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-conversation-'));
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses another desk’s tool, follows a declared edge, then runs the tool as the new desk', () => {
    const c = open();
    const early = c.dispatch({ toolCallId: 't1', name: 'book_appointment', rawArguments: { date: '2026-10-07' } });
    expect([early.output.error_code, early.event.refusal, early.event.executed, early.effect.kind]).toEqual(['TOOL_NOT_AVAILABLE', 'TOOL_NOT_AVAILABLE', false, 'none']);
    const hop = c.dispatch({ toolCallId: 't2', name: 'transfer_to_scheduler', rawArguments: {} });
    expect([hop.output, hop.effect]).toEqual([{ assistant: 'scheduler' }, { kind: 'handoff', from: 'reception', to: 'scheduler' }]);
    expect(c.activeAgent()).toBe('scheduler');
    const back = c.dispatch({ toolCallId: 't3', name: 'transfer_to_scheduler', rawArguments: {} });
    expect(back.output.error_code).toBe('HANDOFF_NOT_ALLOWED');
    const booked = c.dispatch({ toolCallId: 't4', name: 'book_appointment', rawArguments: { date: '2026-10-07' } });
    expect([booked.output.ok, booked.event.agent, booked.event.executed]).toEqual([true, 'scheduler', true]);
    expect(c.dispatch({ toolCallId: 't5', name: 'end_call', rawArguments: { reason: 'caller_done' } }).effect).toEqual({ kind: 'end_call' });
    expect(c.timeline.events().map((e) => e.type)).toEqual(['tool', 'tool', 'handoff', 'tool', 'tool', 'tool']);
    const { final } = c.close();
    expect(final.appointments?.map((r) => r.date)).toEqual(['2026-10-07']);
  });

  it('records an unknown tool and unparsable arguments as refusals, never throwing', () => {
    const c = open();
    expect(c.dispatch({ toolCallId: null, name: 'launch_rocket', rawArguments: {} }).event.refusal).toBe('UNKNOWN_TOOL');
    c.dispatch({ toolCallId: null, name: 'transfer_to_scheduler', rawArguments: {} });
    expect(c.dispatch({ toolCallId: null, name: 'check_date', rawArguments: 'not json' }).event.refusal).toBe('INVALID_ARGUMENTS');
    c.discard();
  });

  it('owns its database: a second conversation on the id is refused, a closed one cannot act', () => {
    const c = open();
    expect(() => Conversation.open({ pack, id: c.id, databases: dbs, timeline: new Timeline(() => 0), nowMs: () => 0 })).toThrow(CallIdUsedError);
    c.close();
    expect(dbs.exists(c.id)).toBe(false);
    expect(() => c.dispatch({ toolCallId: null, name: 'end_call', rawArguments: {} })).toThrow(ConversationClosedError);
  });

  it('replays offline through the same rules: an undeclared hop is refused and the call after it too', () => {
    const replayed = replayOffline(
      [
        { kind: 'hop', to: 'nowhere' },
        { kind: 'call', name: 'book_appointment', parameters: { date: '2026-10-07' } },
        { kind: 'hop', to: 'scheduler' },
        { kind: 'call', name: 'book_appointment', parameters: { date: '2026-10-08' } },
      ],
      { pack, databases: dbs, callId: 'offline_rules', taskId: null },
    );
    expect(replayed.results.map((r) => r.event.refusal)).toEqual(['UNKNOWN_TOOL', 'TOOL_NOT_AVAILABLE', null, null]);
    expect(replayed.final.appointments?.map((r) => r.date)).toEqual(['2026-10-08']);
    expect(replayed.events.filter((e) => e.type === 'handoff')).toHaveLength(1);
    expect(dbs.exists('offline_rules')).toBe(false);
  });
});

describe('Timeline validation at add', () => {
  it('throws without a handler and reports, leaving the event out, with one', () => {
    expect(() => new Timeline(() => 0).add({ type: 'nudge', attempt: 0 })).toThrow(TimelineEventError);
    const heard: string[] = [];
    const timeline = new Timeline(
      () => 5,
      (reason) => heard.push(reason),
    );
    timeline.add({ type: 'nudge', attempt: 1 });
    timeline.add({ type: 'speech.started', side: 'robot' as 'agent', utterance_id: 'u' });
    expect(timeline.events().map((e) => e.type)).toEqual(['nudge']);
    expect(heard).toHaveLength(1);
    expect(timeline.fault()).toMatch(/speech\.started broke the snapshot schema: side/);
  });
});
