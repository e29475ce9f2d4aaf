import { describe, expect, it } from 'vitest';
import { qwenAudioCheck } from '../support/qwen-audio-events.ts';
import { RealtimeStandIn, sessionOf } from '../support/realtime-server.ts';
import { playRealtimeRoutes } from '../support/realtime-routes.ts';
import { expectCosted, scoreCalls, startRouteServer } from '../support/route-scoring.ts';

/**
 * `qwen/audio-realtime` against the realtime stand-in made strict by the Qwen-Audio client events
 * (test/support/qwen-audio-events.ts): three healthcare tasks' reference routes (a seeded
 * greeting, handoffs as instruction-and-tool swaps on one socket, tool calls answered by
 * function_call_output items, end_call) score PASS, the first session.update carries the
 * documented fields and later ones only instructions and tools, and nothing was refused.
 */

const PACK = 'healthcare';

describe('qwen/audio-realtime through the strict stand-in', () => {
  it('plays three healthcare reference routes to PASS, each handoff a session.update of instructions and tools only', async () => {
    const standIn = await RealtimeStandIn.start({ dialect: 'beta', check: qwenAudioCheck });
    const env = { MIVAS_HARNESS: 'qwen/audio-realtime', DASHSCOPE_API_KEY: 'ds-audio-test', MIVAS_QWEN_AUDIO_BASE_URL: standIn.baseUrl('/api-ws/v1') };
    const { server, synth, tasks } = await startRouteServer(PACK, env);
    try {
      const { ids } = await playRealtimeRoutes(standIn, server, synth, tasks, { label: 'qwenaudio', outputRateHz: 24_000, handoffKeys: ['instructions', 'tools'] });
      for (const conn of standIn.connections) {
        expect(conn.url).toBe('/api-ws/v1/realtime?model=qwen-audio-3.1-realtime-plus');
        expect(conn.headers.authorization).toBe('Bearer ds-audio-test');
        expect(sessionOf(conn.received('session.update')[0] ?? { type: '' })).toMatchObject({ modalities: ['text', 'audio'], voice: 'longanqian_v3.1', turn_detection: { type: 'server_vad' } });
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
