import { expect } from 'vitest';
import type { SpeechSynth } from '../../src/audio/index.ts';
import { openingLineOf } from '../../src/caller/index.ts';
import type { Task } from '../../src/packs/index.ts';
import { outputOf, sessionOf, tone, type RealtimeStandIn } from './realtime-server.ts';
import { RoutePlayer } from './route-player.ts';
import { dialTask, type Seed } from './route-scoring.ts';
import type { TestServer } from './server.ts';

/** How one realtime-family harness plays the reference routes. */
export interface RealtimeRouteOptions {
  /** Call id prefix and run id suffix. */
  readonly label: string;
  /** The rate the harness expects agent audio at (the dialect's output rate). */
  readonly outputRateHz: number;
  /** The keys of a handoff's session.update `session`, sorted. */
  readonly handoffKeys: readonly string[];
}

const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GOODBYE = 'Thank you for calling. Goodbye.';

/**
 * Plays each task's reference route through a realtime-family harness pointed at `standIn`: the
 * greeting, the caller's opening line as a transcript, each hop and expected call as a function
 * call answered by a function_call_output item, then the goodbye with end_call. One socket per
 * call: a handoff must be one session.update of exactly `handoffKeys`. For every hop, the seed is
 * the tool outputs already in that socket's conversation (the next specialist's context).
 */
export async function playRealtimeRoutes(standIn: RealtimeStandIn, server: TestServer, synth: SpeechSynth, tasks: readonly Task[], options: RealtimeRouteOptions): Promise<{ ids: string[]; seeds: Seed[] }> {
  const ids: string[] = [];
  const seeds: Seed[] = [];
  for (const task of tasks) {
    const player = new RoutePlayer(server.ctx.pack, task);
    const callId = `${options.label}_${task.task_id.replaceAll('-', '_')}`;
    const caller = dialTask(server, synth, task, callId, `run_${options.label}_routes`);
    const conn = await standIn.nextConnection();
    await conn.next('response.create');
    conn.respond([{ audio: tone(300, options.outputRateHz), transcript: GREETING }]);
    await conn.waitForCallerSpeech();
    conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 0 });
    conn.send({ type: 'input_audio_buffer.speech_stopped', item_id: 'in_1', audio_end_ms: 1_000 });
    conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'in_1', content_index: 0, transcript: openingLineOf(task.intent) });
    for (;;) {
      const move = player.move();
      if (move.kind === 'end') {
        const end = conn.respond([{ audio: tone(300, options.outputRateHz), transcript: GOODBYE }, { call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
        await conn.toolOutput(end.callIds[0] ?? '');
        break;
      }
      const updates = conn.received('session.update').length;
      const sent = conn.respond([{ call: { name: move.name, args: move.args } }]);
      const output = await conn.toolOutput(sent.callIds[0] ?? '');
      await conn.next('response.create');
      if (move.hop) {
        const swap = conn.received('session.update').slice(updates);
        expect(swap.map((e) => Object.keys(sessionOf(e)).sort())).toEqual([options.handoffKeys]);
        const context = conn.received('conversation.item.create').flatMap((e) => outputOf(e) ?? []);
        seeds.push({ text: context.join('\n'), outputsBefore: player.outputs.map((o) => o.output) });
      } else player.record(move.name, output);
    }
    const report = await caller;
    expect(report.timedOut).toBe(false);
    ids.push(callId);
  }
  return { ids, seeds };
}
