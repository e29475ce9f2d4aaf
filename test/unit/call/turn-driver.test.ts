import { describe, expect, it } from 'vitest';
import { TurnDriver, type ToolCallResult, type ToolDispatcher, type TurnDriverHost } from '../../../src/call/turn-driver.ts';
import { ManualClock, TypedEmitter } from '../../../src/core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents } from '../../../src/providers/index.ts';
import { Timeline } from '../../../src/snapshot/index.ts';

/** A model session that records what the driver asked of it, in one ordered log. */
function fakeSession(log: string[]): ModelSession & { events: TypedEmitter<ModelSessionEvents> } {
  return {
    provider: 'fake',
    model: null,
    inputRateHz: 16_000,
    outputRateHz: 16_000,
    events: new TypedEmitter<ModelSessionEvents>(),
    connect: async () => undefined,
    sendAudio: () => undefined,
    applyAgent: (agent) => log.push(`apply:${agent.name}`),
    sendToolOutput: (callId) => log.push(`output:${callId}`),
    requestResponse: () => log.push('create'),
    cancelResponse: () => log.push('cancel'),
    truncate: (itemId, ms) => log.push(`truncate:${itemId}@${ms}`),
    callerSpeech: () => undefined,
    close: async () => undefined,
  };
}

/** A dispatcher answering every call with `ok`, and end_call with its effect. */
const dispatcher: ToolDispatcher = {
  dispatch: (req): ToolCallResult => ({ output: { ok: true }, effect: req.name === 'end_call' ? { kind: 'end_call' } : req.name.startsWith('transfer_to_') ? { kind: 'handoff', to: req.name.slice(12) } : { kind: 'none' } }),
  agentSetup: (agent): AgentSetup => ({ name: agent, instructions: '', tools: [] }),
};

function setup(options: { dropAudioOf?: string } = {}) {
  const clock = new ManualClock();
  const log: string[] = [];
  const session = fakeSession(log);
  const timeline = new Timeline(() => clock.nowMs());
  const host: TurnDriverHost = {
    agentAudio: (itemId) => itemId !== options.dropAudioOf,
    agentAudioDone: () => undefined,
    interruptPlayback: () => ({ utteranceId: 'u_1', itemId: 'item_1', playedMs: 420.6, sentMs: 600 }),
    sessionToolFired: (effect) => log.push(`session_tool:${effect.kind}`),
    farewellComplete: () => log.push('farewell_complete'),
    addUsage: () => undefined,
    fail: () => undefined,
  };
  const driver = new TurnDriver(session, dispatcher, timeline, host, clock, { retryDelayMs: 3_000, maxAttempts: 5 });
  driver.attach();
  const ev = session.events;
  return { clock, log, ev, driver, timeline };
}

const done = { responseId: 'r', status: 'completed', usage: null };

describe('TurnDriver', () => {
  it('skips the nudge while the greeting response is open and nudges again after it ended silent', () => {
    const { clock, log, ev, driver } = setup();
    ev.emit('ready');
    expect(log).toEqual(['create']);
    ev.emit('responseStarted', 'r1');
    clock.advance(3_000);
    expect(log).toEqual(['create']);
    ev.emit('responseDone', done);
    clock.advance(3_000);
    expect(log).toEqual(['create', 'create']);
    expect(driver.nudgesSent()).toBe(2);
  });

  it('answers a handoff in order (session update, output) and requests once after the carrying response', () => {
    const { log, ev } = setup();
    ev.emit('responseStarted', 'r1');
    ev.emit('functionCall', { callId: 'c1', name: 'transfer_to_scheduler', arguments: '{}' });
    ev.emit('functionCall', { callId: 'c1', name: 'transfer_to_scheduler', arguments: '{}' }); // reported twice
    expect(log).toEqual(['apply:scheduler', 'output:c1']);
    ev.emit('responseDone', done);
    expect(log).toEqual(['apply:scheduler', 'output:c1', 'create']);
  });

  it('cancels the open response before truncating on barge-in, at the whole millisecond played', () => {
    const { log, ev, timeline } = setup();
    ev.emit('responseStarted', 'r1');
    ev.emit('callerSpeechStarted');
    expect(log).toEqual(['cancel', 'truncate:item_1@420']);
    expect(timeline.events().filter((e) => e.type === 'barge_in')).toMatchObject([{ utterance_id: 'u_1', played_ms: 420 }]);
  });

  it('does not cancel on barge-in once the response is done', () => {
    const { log, ev } = setup();
    ev.emit('responseStarted', 'r1');
    ev.emit('responseDone', done);
    ev.emit('callerSpeechStarted');
    expect(log).toEqual(['truncate:item_1@420']);
  });

  it('does not count dropped audio of a cut item as the agent speaking: the nudge goes on', () => {
    const { clock, log, ev } = setup({ dropAudioOf: 'item_cut' });
    ev.emit('ready');
    ev.emit('audio', 'item_cut', Buffer.alloc(640));
    clock.advance(3_000);
    expect(log).toEqual(['create', 'create']);
    ev.emit('audio', 'item_2', Buffer.alloc(640));
    clock.advance(30_000);
    expect(log).toEqual(['create', 'create']);
  });

  it('ends with the farewell done and no request when end_call comes with the goodbye audio', () => {
    const { log, ev } = setup();
    ev.emit('responseStarted', 'r1');
    ev.emit('audio', 'item_1', Buffer.alloc(640));
    ev.emit('functionCall', { callId: 'c9', name: 'end_call', arguments: '{"reason":"caller_done"}' });
    ev.emit('responseDone', done);
    expect(log).toEqual(['output:c9', 'session_tool:end_call', 'farewell_complete']);
  });

  it('starts the ending once, at the first session tool', () => {
    const { log, ev } = setup();
    ev.emit('responseStarted', 'r1');
    ev.emit('functionCall', { callId: 'c1', name: 'end_call', arguments: '{}' });
    ev.emit('functionCall', { callId: 'c2', name: 'end_call', arguments: '{}' });
    expect(log.filter((l) => l.startsWith('session_tool'))).toEqual(['session_tool:end_call']);
  });
});
