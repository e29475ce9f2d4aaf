import { describe, expect, it } from 'vitest';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { openingLineOf } from '../../src/caller/index.ts';
import { CASCADE_OPENING_CUE, GEMINI_OPENING_CUE, NOVA_OPENING_CUE } from '../../src/providers/index.ts';
import { CascadeStandIn } from '../support/cascade-endpoints-server.ts';
import { GeminiLiveStandIn } from '../support/gemini-live-server.ts';
import { NovaBedrockStandIn } from '../support/nova-bedrock-server.ts';
import { tone } from '../support/realtime-server.ts';
import { RoutePlayer, routeTasks } from '../support/route-player.ts';
import { dialTask, expectCosted, expectSeedsHoldEarlierResults, scoreCalls, type Seed } from '../support/route-scoring.ts';
import { startTestServer } from '../support/server.ts';

/**
 * The healthcare scripted-equivalent route through each new harness's stand-in (issue 19
 * acceptance 4): for three tasks, the stand-in model makes exactly the task's reference hops and
 * calls (arguments as the scripted harness resolves them, carried fields from the outputs the
 * harness relayed back), and the scorer must PASS every call. For the new-stream harnesses, every
 * seed of a later specialist must hold every tool result returned before it (acceptance 2). Each
 * call's conversations.csv row must show a cost from prices.json (issue 28).
 */

const PACK = 'healthcare';
const GREETING = 'Hello, thank you for calling. How can I help you today?';
const GOODBYE = 'Thank you for calling. Goodbye.';

describe('healthcare reference routes through the new harnesses, each call priced (issue 19 acceptance 2, 4; issue 28)', () => {
  it('cascaded: three tasks PASS', async () => {
    const standIn = await CascadeStandIn.start({ ttsMs: () => 200 });
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    // A chat model with a price row (docs/providers.md, Prices), so each call shows its cost.
    const server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_FAST: '1', ...standIn.env({ MIVAS_CASCADE_LLM_MODEL: 'gpt-4.1-mini' }) }, { synth });
    try {
      const tasks = routeTasks(server.ctx.pack);
      expect(tasks).toHaveLength(3);
      const ids: string[] = [];
      for (const task of tasks) {
        const player = new RoutePlayer(server.ctx.pack, task);
        standIn.stt.handler = () => openingLineOf(task.intent);
        standIn.chat.handler = (req) => {
          const messages = req.body.messages;
          const last = messages.at(-1);
          if (last?.role === 'user' && last.content === CASCADE_OPENING_CUE) return { text: GREETING };
          if (last?.role === 'tool') {
            const name = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id)?.function.name ?? '';
            player.record(name, String(last.content));
          }
          const move = player.move();
          if (move.kind === 'end') return { text: GOODBYE, calls: [{ name: 'end_call', args: { reason: 'caller_done' } }] };
          return { calls: [{ name: move.name, args: move.args }] };
        };
        const callId = `cascade_${task.task_id.replaceAll('-', '_')}`;
        const report = await dialTask(server, synth, task, callId, 'run_harness_routes');
        expect(report.timedOut).toBe(false);
        ids.push(callId);
      }
      const verdicts = await scoreCalls(server, PACK, ids);
      expect(Object.values(verdicts)).toEqual(ids.map(() => ({ status: 'PASS', reward: 1, cost: expect.any(Number) })));
      expectCosted(verdicts);
      // The strict stand-ins checked every request against the openai package's request types.
      expect(standIn.violations).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 90_000);

  it('google/gemini-live: three tasks PASS, every seed holding the earlier tool results', async () => {
    const standIn = await GeminiLiveStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_FAST: '1', ...standIn.env() }, { synth });
    const seeds: Seed[] = [];
    try {
      const ids: string[] = [];
      for (const task of routeTasks(server.ctx.pack)) {
        const player = new RoutePlayer(server.ctx.pack, task);
        const callId = `gemini_${task.task_id.replaceAll('-', '_')}`;
        const caller = dialTask(server, synth, task, callId, 'run_harness_routes');
        let conn = await standIn.nextConnection();
        await conn.next('text');
        expect(conn.of('text')[0]).toEqual({ realtimeInput: { text: GEMINI_OPENING_CUE } });
        conn.speak(tone(300, 24_000), GREETING);
        await conn.waitForCallerSpeech();
        conn.callerSaid(openingLineOf(task.intent));
        for (;;) {
          const move = player.move();
          if (move.kind === 'end') {
            conn.speak(tone(300, 24_000), GOODBYE, { turnComplete: false });
            conn.callTools([{ name: 'end_call', args: { reason: 'caller_done' } }]);
            await conn.toolResponses();
            conn.turnComplete();
            break;
          }
          conn.callTools([{ name: move.name, args: move.args }]);
          if (move.hop) {
            conn = await standIn.nextConnection();
            // The conversation so far is the second part of the next specialist's instructions.
            const setup = (await conn.next('setup')).setup as { systemInstruction: { parts: { text: string }[] } };
            seeds.push({ text: setup.systemInstruction.parts.slice(1).map((p) => p.text).join('\n'), outputsBefore: player.outputs.map((o) => o.output) });
            await conn.next('text');
          } else {
            const [answer] = await conn.toolResponses();
            player.record(move.name, JSON.stringify(answer?.response));
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
      expect(seeds.some((s) => s.outputsBefore.length > 0)).toBe(true);
      // The strict stand-in checked every message against the SDK's types (empty OBJECT schemas refused).
      expect(standIn.connections.flatMap((c) => c.violations)).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
    }
  }, 90_000);

  it('aws/nova-sonic: three tasks PASS, every seed holding the earlier tool results', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSTANDIN';
    process.env.AWS_SECRET_ACCESS_KEY = 'standin-secret';
    const standIn = await NovaBedrockStandIn.start();
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_FAST: '1', ...standIn.env() }, { synth });
    const seeds: Seed[] = [];
    try {
      const ids: string[] = [];
      let toolUse = 0;
      for (const task of routeTasks(server.ctx.pack)) {
        const player = new RoutePlayer(server.ctx.pack, task);
        const callId = `nova_${task.task_id.replaceAll('-', '_')}`;
        const caller = dialTask(server, synth, task, callId, 'run_harness_routes');
        let conn = await standIn.nextConnection();
        const first = conn;
        await conn.waitFor(() => first.textBlocks('USER').includes(NOVA_OPENING_CUE), 'the opening cue');
        conn.speak(tone(300, 24_000), GREETING);
        await conn.waitForCallerSpeech();
        conn.callerSaid(openingLineOf(task.intent));
        for (;;) {
          const move = player.move();
          const id = `tu_${++toolUse}`;
          if (move.kind === 'end') {
            conn.useTool(id, 'end_call', { reason: 'caller_done' });
            await conn.toolResult(id);
            conn.speak(tone(300, 24_000), GOODBYE);
            break;
          }
          conn.useTool(id, move.name, move.args);
          if (move.hop) {
            conn = await standIn.nextConnection();
            const next = conn;
            await next.waitFor(() => next.textBlocks('USER').some((t) => t.includes('transferred from')), 'the handoff cue');
            seeds.push({ text: [...next.textBlocks('USER'), ...next.textBlocks('ASSISTANT')].join('\n'), outputsBefore: player.outputs.map((o) => o.output) });
          } else {
            player.record(move.name, await conn.toolResult(id));
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
      expect(seeds.some((s) => s.outputsBefore.length > 0)).toBe(true);
      // The strict stand-in checked every input event's fields and order.
      expect(standIn.connections.flatMap((c) => c.violations)).toEqual([]);
    } finally {
      await server.close();
      await standIn.close();
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  }, 90_000);
});
