import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../../src/core/index.ts';
import { SpokenTurns } from '../../../src/providers/spoken-turns.ts';
import type { ModelSessionEvents } from '../../../src/providers/index.ts';

/** The turn tracker of the self-driven runtimes (GPT-Live, Phonic): what the turn driver sees of audio, calls and barge-in. */

function tracker() {
  const events = new TypedEmitter<ModelSessionEvents>();
  const seen: string[] = [];
  const audio: Buffer[] = [];
  events.on('responseStarted', (id) => seen.push(`started ${id}`));
  events.on('responseDone', (d) => seen.push(`done ${d.responseId} ${d.status}`));
  events.on('audioDone', (item) => seen.push(`audioDone ${item}`));
  events.on('callerSpeechStarted', () => seen.push('barge-in'));
  events.on('callerSpeechStopped', () => seen.push('caller stopped'));
  events.on('transcript', (side, text) => seen.push(`${side}: ${text}`));
  events.on('functionCall', (c) => seen.push(`call ${c.name} ${c.arguments}`));
  events.on('audio', (_item, pcm) => audio.push(pcm));
  return { turns: new SpokenTurns(events, 'x', 16_000), seen, audio };
}

const PCM = Buffer.alloc(3_200, 1); // 100 ms at 16 kHz

describe('SpokenTurns', () => {
  it('opens a turn on the first audio, closing the caller\'s words first, and closes it with the agent\'s transcript', () => {
    const { turns, seen } = tracker();
    turns.callerText('I need a visit');
    turns.audio(PCM, 'Sure.');
    turns.end();
    expect(seen).toEqual(['caller stopped', 'caller: I need a visit', 'started x_resp_1', 'audioDone x_item_1', 'agent: Sure.', 'done x_resp_1 completed']);
    expect(turns.spokeOnce).toBe(true);
  });

  it('cuts a turn that spoke when the caller barges in, and drops the rest of its audio', () => {
    const { turns, seen, audio } = tracker();
    turns.audio(PCM);
    expect(turns.bargeIn()).toBe(true);
    turns.audio(PCM); // a new turn: the model chose to go on
    expect(seen.slice(0, 4)).toEqual(['started x_resp_1', 'audioDone x_item_1', 'done x_resp_1 cancelled', 'barge-in']);
    expect(seen[4]).toBe('started x_resp_2');
    expect(audio).toHaveLength(2);
  });

  it('is no barge-in before the model spoke', () => {
    const { turns, seen } = tracker();
    expect(turns.bargeIn()).toBe(false);
    expect(seen).toEqual([]);
  });

  it('drops audio of a turn the driver cancelled until the turn is over', () => {
    const { turns, audio, seen } = tracker();
    turns.audio(PCM);
    turns.cancel();
    expect(seen.at(-1)).toBe('done x_resp_1 cancelled');
    expect(audio).toHaveLength(1);
  });

  it('ends the turn at a tool call, dispatches it once, and answers only open calls', () => {
    const { turns, seen } = tracker();
    expect(turns.toolCall('c1', 'check_date', '{"date":"2026-10-07"}', 'scheduler')).toBe(true);
    expect(turns.toolCall('c1', 'check_date', '{"date":"2026-10-07"}', 'scheduler')).toBe(false);
    expect(seen.filter((s) => s.startsWith('call '))).toEqual(['call check_date {"date":"2026-10-07"}']);
    expect(seen).toContain('done x_resp_1 completed');
    expect(turns.continuesAlone).toBe(true);
    expect(turns.pendingCalls).toBe(1);
    expect(turns.toolResult('c1', '{"ok":true}')).toBe(true);
    expect(turns.toolResult('c1', '{"ok":true}')).toBe(false);
    expect(turns.history.seedTurns().map((t) => t.text).join('\n')).toContain('(scheduler called check_date with {"date":"2026-10-07"}; it returned {"ok":true})');
  });

  it('forgets the old agent\'s calls at a handoff but still records their results', () => {
    const { turns } = tracker();
    turns.toolCall('h1', 'transfer_to_scheduler', '{}', 'reception');
    turns.dropCalls();
    expect(turns.toolResult('h1', '{"ok":true}')).toBe(false);
    expect(turns.history.seedTurns().map((t) => t.text).join('\n')).toContain('it returned {"ok":true}');
  });
});
