import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationReport } from '../../src/caller/index.ts';
import { callerScriptOf } from '../../src/packs/index.ts';
import { timelineFileSchema, type CallerFile, type TimelineEvent } from '../../src/snapshot/index.ts';
import type { ScoreReport } from '../../src/scoring/index.ts';
import { ruleBrain, runWithCaller, standInCaller } from '../support/caller-rig.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';
import { decodeAudio, RealtimeStandIn, type StandInConnection } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { decodeModemAll, encodeModem } from '../support/text-modem.ts';

const PACK = 'healthcare';
const TASK = 'C1-E1';

/** The caller's complete lines so far, decoded from the caller audio the harness appended. */
function callerLines(conn: StandInConnection): string[] {
  return decodeModemAll(Buffer.concat(conn.received('input_audio_buffer.append').map(decodeAudio)), 24_000);
}

/** Waits until the caller has finished its `count`-th line, and returns it. */
async function nextCallerLine(conn: StandInConnection, count: number): Promise<string> {
  await conn.waitFor(() => callerLines(conn).length >= count, `caller line ${count}`);
  return callerLines(conn)[count - 1] ?? '';
}

/** The agent model says a line: modem audio (so the caller's ears hear the words) with its transcript. */
function say(conn: StandInConnection, text: string): void {
  conn.respond([{ audio: encodeModem(text, 24_000), transcript: text }]);
}

/** The caller's line reaches the model as a transcript, as the provider's transcription would report it. */
function heardCaller(conn: StandInConnection, n: number, text: string): void {
  conn.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: `in_${n}`, content_index: 0, transcript: text });
}

/**
 * Issue 16, acceptance 1 (second half): against the local realtime server (the openai/realtime
 * harness dialing the realtime stand-in, which plays the agent model here), the llm caller holds
 * a multi-turn conversation, and every line after its opening is the task's pin for the agent's
 * turn, word for word as the caller's audio carried it.
 */
describe('llm caller against the openai/realtime harness: a multi-turn call that follows the pins', () => {
  let realtime: RealtimeStandIn;
  let standIn: OpenAICompatibleStandIn;
  let server: TestServer;
  let said: string[];
  let run: { reports: ConversationReport[]; callerFiles: Map<string, CallerFile>; score: ScoreReport; calls: { callId: string }[] };

  beforeAll(async () => {
    realtime = await RealtimeStandIn.start();
    standIn = await OpenAICompatibleStandIn.start({
      chat: ruleBrain([
        { when: /full name/i, choice: { tool: 'say_pin', args: { pin: 1 } } },
        { when: /schedule a visit/i, choice: { tool: 'say_pin', args: { pin: 2 } } },
        { when: /anything else/i, choice: { tool: 'say_pin', args: { pin: 4 } } },
      ]),
    });
    server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_HARNESS: 'openai/realtime', MIVAS_FAST: '1', OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: realtime.baseUrl('/v1') });
    const running = runWithCaller(server, standInCaller(standIn), [TASK]);
    const conn = await realtime.nextConnection();
    await conn.next('response.create');
    say(conn, 'Thank you for calling Straus Dermatology. How can I help you today?');
    said = [await nextCallerLine(conn, 1)];
    heardCaller(conn, 1, said[0] ?? '');
    say(conn, 'I can help with that. May I have your full name, please?');
    said.push(await nextCallerLine(conn, 2));
    heardCaller(conn, 2, said[1] ?? '');
    const hop = conn.respond([{ call: { name: 'transfer_to_coverage', args: {} } }]);
    await conn.toolOutput(hop.callIds[0] ?? '');
    await conn.next('response.create');
    const check = conn.respond([{ call: { name: 'check_plan_accepted', args: { carrier: 'Aetna', location_id: 'loc_park_ave' } } }]);
    await conn.toolOutput(check.callIds[0] ?? '');
    await conn.next('response.create');
    say(conn, 'Good news: our Park Avenue office accepts Aetna. Would you like to schedule a visit?');
    said.push(await nextCallerLine(conn, 3));
    heardCaller(conn, 3, said[2] ?? '');
    say(conn, 'No problem at all. Is there anything else I can help you with?');
    said.push(await nextCallerLine(conn, 4));
    heardCaller(conn, 4, said[3] ?? '');
    // The caller hangs up on its own after its closing line; the model says nothing more.
    run = await running;
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    await realtime?.close();
  });

  it('speaks the opening line, then the pin for each agent turn, verbatim', () => {
    const task = server.ctx.pack.tasks.get(TASK);
    if (!task) throw new Error('task missing');
    const script = callerScriptOf(task);
    const pin = (n: number): string => script.pins.find((p) => p.number === n)?.line ?? `pin ${n}`;
    expect(said).toEqual([script.openingLine, pin(1), pin(2), pin(4)]);
    expect(said).toEqual(["Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?", "It's Megan Foley.", 'Not today, thanks. I just wanted to check the plan.', "Thanks, that's everything."]);
  });

  it('hangs up itself (1000) after its closing line, with the typed end reason', () => {
    expect(run.reports[0]).toMatchObject({ closeCode: 1000, hungUp: true, endReason: 'closing_line', timedOut: false });
    const callId = run.calls[0]?.callId ?? '';
    const timeline = timelineFileSchema.parse(JSON.parse(readFileSync(join(server.dataDir, 'snapshots', PACK, `${callId}.timeline.json`), 'utf8')));
    expect(timeline.events.at(-1)).toMatchObject({ type: 'call.ended', end_reason: 'caller_hangup', close_code: 1000 });
    // The caller's utterance ids in caller.json are the ones on the server's timeline.
    const file = run.callerFiles.get(callId);
    const callerIds = file?.turns.filter((t) => t.side === 'caller').map((t) => t.utterance_id);
    const timelineIds = timeline.events.filter((e): e is Extract<TimelineEvent, { type: 'speech.started' }> => e.type === 'speech.started' && e.side === 'caller').map((e) => e.utterance_id);
    expect(callerIds).toEqual(timelineIds);
  });

  it('records both sides and every model exchange, and the call scores PASS (no deviation)', () => {
    const callId = run.calls[0]?.callId ?? '';
    const file = run.callerFiles.get(callId);
    expect(file?.turns.map((t) => `${t.side}:${t.source ?? ''}:${t.pin ?? ''}`)).toEqual([
      'agent::',
      'caller:opening:',
      'agent::',
      'caller:pin:1',
      'agent::',
      'caller:pin:2',
      'agent::',
      'caller:closing:4',
    ]);
    expect(file?.exchanges.filter((e) => e.kind === 'chat')).toHaveLength(3);
    const verdict = run.score.conversations.find((c) => c.conversation_id === callId);
    expect(verdict?.status, JSON.stringify(verdict?.void_detail ?? verdict?.fail_reasons)).toBe('PASS');
  });
});
