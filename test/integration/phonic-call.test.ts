import { describe, expect, it } from 'vitest';
import { openingLineOf } from '../../src/caller/index.ts';
import { OPENING_CUE } from '../../src/providers/index.ts';
import { PhonicStandIn } from '../support/phonic-server.ts';
import { tone } from '../support/realtime-server.ts';
import { RoutePlayer } from '../support/route-player.ts';
import { dialTask, expectCosted, expectSeedsHoldEarlierResults, scoreCalls, type Seed, startRouteServer } from '../support/route-scoring.ts';

/**
 * `phonic/sts` against the strict stand-in (test/support/phonic-server.ts, payload types of
 * Phonic-Co/phonic-node at 8dd7d9d): three healthcare tasks' reference routes (greeting through
 * `generate_reply`, handoffs as `reset` with the next agent's config, inline tool calls answered
 * with `tool_call_output`, end_call) score PASS, every reset's system prompt holds the tool
 * results returned before it, the handoff calls are never answered, and the stand-in refused
 * nothing the harness sent.
 */

const PACK = 'healthcare';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GOODBYE = 'Thank you for calling. Goodbye.';

describe('phonic/sts through the strict stand-in', () => {
  it('plays three healthcare reference routes to PASS, each specialist a reset carrying the earlier results', async () => {
    const standIn = await PhonicStandIn.start();
    const { server, synth, tasks } = await startRouteServer(PACK, standIn.env());
    const seeds: Seed[] = [];
    try {
      const ids: string[] = [];
      for (const task of tasks) {
        const player = new RoutePlayer(server.ctx.pack, task);
        const callId = `phonic_${task.task_id.replaceAll('-', '_')}`;
        const caller = dialTask(server, synth, task, callId, 'run_phonic_routes');
        const conn = await standIn.nextConnection();
        expect(conn.headers.authorization).toBe('Bearer ph-test-key');
        const config = await conn.next('config');
        expect([config.input_format, config.output_format]).toEqual(['pcm_16000', 'pcm_16000']);
        expect((await conn.next('generate_reply')).system_message).toBe(OPENING_CUE);
        conn.speak(tone(300, 16_000), GREETING);
        await conn.waitForCallerSpeech();
        conn.callerSaid(openingLineOf(task.intent));
        for (;;) {
          const move = player.move();
          if (move.kind === 'end') {
            conn.speak(tone(300, 16_000), GOODBYE, { finished: false });
            const id = conn.callTool('end_call', { reason: 'caller_done' });
            await conn.toolOutput(id);
            conn.finished();
            break;
          }
          const id = conn.callTool(move.name, move.args);
          if (move.hop) {
            const reset = await conn.next('reset');
            seeds.push({ text: reset.config.system_prompt ?? '', outputsBefore: player.outputs.map((o) => o.output) });
            await conn.next('generate_reply');
            expect(conn.of('tool_call_output').map((m) => m.tool_call_id)).not.toContain(id);
          } else {
            player.record(move.name, JSON.stringify(await conn.toolOutput(id)));
          }
        }
        const report = await caller;
        expect(report.timedOut).toBe(false);
        ids.push(callId);
      }
      const verdicts = await scoreCalls(server, PACK, ids);
      expect(Object.values(verdicts)).toEqual(ids.map(() => ({ status: 'PASS', reward: 1, cost: expect.any(Number) })));
      expectCosted(verdicts);
      expectSeedsHoldEarlierResults(seeds);
      expect(standIn.violations()).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 90_000);
});
