import { describe, expect, it } from 'vitest';
import { openingLineOf } from '../../src/caller/index.ts';
import { qwenAudioCheck } from '../support/qwen-audio-events.ts';
import { RealtimeStandIn, sessionOf, tone } from '../support/realtime-server.ts';
import { RoutePlayer } from '../support/route-player.ts';
import { dialTask, expectCosted, scoreCalls, startRouteServer } from '../support/route-scoring.ts';

/**
 * `qwen/audio-realtime` against the realtime stand-in made strict by the Qwen-Audio client events
 * (test/support/qwen-audio-events.ts): three healthcare tasks' reference routes (a seeded
 * greeting, handoffs as instruction-and-tool swaps on one socket, tool calls answered by
 * function_call_output items, end_call) score PASS, the first session.update carries the
 * documented fields and later ones only instructions and tools, and nothing was refused.
 */

const PACK = 'healthcare';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GOODBYE = 'Thank you for calling. Goodbye.';

describe('qwen/audio-realtime through the strict stand-in', () => {
  it('plays three healthcare reference routes to PASS, each handoff a session.update of instructions and tools only', async () => {
    const standIn = await RealtimeStandIn.start({ dialect: 'beta', check: qwenAudioCheck });
    const env = { MIVAS_HARNESS: 'qwen/audio-realtime', DASHSCOPE_API_KEY: 'ds-audio-test', MIVAS_QWEN_AUDIO_BASE_URL: standIn.baseUrl('/api-ws/v1') };
    const { server, synth, tasks } = await startRouteServer(PACK, env);
    try {
      const ids: string[] = [];
      for (const task of tasks) {
        const player = new RoutePlayer(server.ctx.pack, task);
        const callId = `qwenaudio_${task.task_id.replaceAll('-', '_')}`;
        const caller = dialTask(server, synth, task, callId, 'run_qwen_audio_routes');
        const conn = await standIn.nextConnection();
        expect(conn.url).toBe('/api-ws/v1/realtime?model=qwen-audio-3.1-realtime-plus');
        expect(conn.headers.authorization).toBe('Bearer ds-audio-test');
        await conn.next('response.create');
        expect(sessionOf(conn.received('session.update')[0] ?? { type: '' })).toMatchObject({ modalities: ['text', 'audio'], voice: 'longanqian_v3.1', turn_detection: { type: 'server_vad' } });
        conn.respond([{ audio: tone(300, 24_000), transcript: GREETING }]);
        await conn.waitForCallerSpeech();
        conn.send({ type: 'input_audio_buffer.speech_started', item_id: 'in_1', audio_start_ms: 0 });
        conn.send({ type: 'input_audio_buffer.speech_stopped', item_id: 'in_1', audio_end_ms: 1_000 });
        conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'in_1', content_index: 0, transcript: openingLineOf(task.intent) });
        for (;;) {
          const move = player.move();
          if (move.kind === 'end') {
            const end = conn.respond([{ audio: tone(300, 24_000), transcript: GOODBYE }, { call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
            await conn.toolOutput(end.callIds[0] ?? '');
            break;
          }
          const updates = conn.received('session.update').length;
          const sent = conn.respond([{ call: { name: move.name, args: move.args } }]);
          const output = await conn.toolOutput(sent.callIds[0] ?? '');
          await conn.next('response.create');
          if (move.hop) {
            const swap = conn.received('session.update').slice(updates);
            expect(swap.map((e) => Object.keys(sessionOf(e)).sort())).toEqual([['instructions', 'tools']]);
          } else player.record(move.name, output);
        }
        const report = await caller;
        expect(report.timedOut).toBe(false);
        ids.push(callId);
      }
      const verdicts = await scoreCalls(server, PACK, ids);
      expect(Object.values(verdicts)).toEqual(ids.map(() => ({ status: 'PASS', reward: 1, cost: expect.any(Number) })));
      expectCosted(verdicts);
      expect(standIn.connections.flatMap((c) => c.violations)).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 90_000);
});
