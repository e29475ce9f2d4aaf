import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openingLineOf } from '../../src/caller/index.ts';
import { OPENING_CUE } from '../../src/providers/index.ts';
import { summarySchema } from '../../src/snapshot/index.ts';
import { GptLiveStandIn, type GptLiveConnection } from '../support/gpt-live-server.ts';
import { tone } from '../support/realtime-server.ts';
import { RoutePlayer } from '../support/route-player.ts';
import { dialTask, expectSeedsHoldEarlierResults, scoreCalls, type Seed, startRouteServer } from '../support/route-scoring.ts';

/**
 * `openai/gpt-live` against the strict stand-in (test/support/gpt-live-server.ts, shapes of the
 * `openai` SDK's resources/live/live.d.ts at 7.59.0): three healthcare tasks' reference routes
 * (greeting, handoffs as new seeded sessions, delegated tool calls, end_call) score PASS, every
 * later session's startup `input` holds the tool results returned before it, and the stand-in
 * refused nothing the harness sent. Each session reports its cumulative audio seconds
 * (`session.usage.updated`); the call's usage holds their sum over its sessions.
 */

const PACK = 'healthcare';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GOODBYE = 'Thank you for calling. Goodbye.';

/** The startup history of a specialist's session, as one text. */
function seedText(conn: GptLiveConnection): string {
  return (conn.session.input ?? []).map((item) => item.content.map((part) => part.text).join('\n')).join('\n');
}

describe('openai/gpt-live through the strict stand-in', () => {
  it('plays three healthcare reference routes to PASS, each specialist a new session seeded with the earlier results', async () => {
    const standIn = await GptLiveStandIn.start();
    const { server, synth, tasks } = await startRouteServer(PACK, standIn.env());
    const seeds: Seed[] = [];
    try {
      const ids: string[] = [];
      const billedSeconds = new Map<string, number>();
      for (const task of tasks) {
        const player = new RoutePlayer(server.ctx.pack, task);
        const callId = `gptlive_${task.task_id.replaceAll('-', '_')}`;
        let sessions = 1;
        const caller = dialTask(server, synth, task, callId, 'run_gpt_live_routes');
        let conn = await standIn.nextConnection();
        expect(conn.headers.authorization).toBe('Bearer sk-live-test');
        expect((await conn.next('session.instructions.append')).content).toBe(OPENING_CUE);
        expect(conn.session.input).toBeUndefined();
        expect(conn.session.audio).toEqual({ format: { type: 'audio/pcm', rate: 24_000 }, output: { voice: 'marin' } });
        conn.speak(tone(300, 24_000), GREETING);
        conn.reportUsage(2);
        await conn.waitForCallerSpeech();
        conn.callerSaid(openingLineOf(task.intent));
        for (;;) {
          const move = player.move();
          if (move.kind === 'end') {
            // Cumulative: the last session grew from 2 to 5 seconds.
            conn.reportUsage(5);
            conn.speak(tone(300, 24_000), GOODBYE);
            const [endId] = conn.callTools([{ name: 'end_call', args: { reason: 'caller_done' } }]);
            expect((await conn.toolOutputs()).map((o) => o.callId)).toEqual([endId]);
            break;
          }
          const [id] = conn.callTools([{ name: move.name, args: move.args }]);
          if (move.hop) {
            const previous = conn;
            conn = await standIn.nextConnection();
            await conn.next('session.instructions.append');
            conn.reportUsage(2);
            sessions++;
            seeds.push({ text: seedText(conn), outputsBefore: player.outputs.map((o) => o.output) });
            // The old session is closed without the handoff's result.
            await previous.next('session.close');
            expect(previous.of('response.item.create').map((e) => e.item.call_id)).not.toContain(id);
          } else {
            const [answer] = await conn.toolOutputs();
            expect(answer?.callId).toBe(id);
            player.record(move.name, answer?.output ?? '');
          }
        }
        const report = await caller;
        expect(report.timedOut).toBe(false);
        ids.push(callId);
        billedSeconds.set(callId, 2 * sessions + 3);
      }
      const verdicts = await scoreCalls(server, PACK, ids);
      expect(Object.values(verdicts)).toEqual(ids.map(() => ({ status: 'PASS', reward: 1, cost: expect.any(Number) })));
      expectSeedsHoldEarlierResults(seeds);
      for (const [id, seconds] of billedSeconds) {
        const summary = summarySchema.parse(JSON.parse(readFileSync(join(server.dataDir, 'snapshots', PACK, `${id}.summary.json`), 'utf8')));
        expect(summary.usage.audio_seconds, id).toBe(seconds);
      }
      expect(standIn.violations()).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 90_000);
});
