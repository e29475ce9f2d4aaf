import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallerMind, CallerTurn } from '../../src/caller/index.ts';
import { replayOffline, type RouteAction } from '../../src/conversation/index.ts';
import { ManualClock } from '../../src/core/index.ts';
import { TextEpisode } from '../../src/episodes/index.ts';
import { timelineFileSchema, type EndReason, type TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient } from '../support/chirp-client.ts';
import { episodePack, routedTask, type EpisodePack } from '../support/episode-rig.ts';
import { advanceUntil, startRealtimeRig, type RealtimeRig } from '../support/realtime-call.ts';
import { tone, type ResponsePart, type StandInConnection } from '../support/realtime-server.ts';

/**
 * One rule for how a conversation ends, in every context that runs one (architecture.md §20): the
 * live call (the model's tools through the realtime stand-in, the caller
 * on CHIRP), the HTTP tool route into that call, the text episode and offline replay play the
 * same sequences and must end with the same reason and the same shared timeline events. The first
 * ending wins: a session tool's ending stands against a later end_call (over HTTP too), a caller
 * hang-up during the farewell, or a second session tool in the same breath.
 */

const PACK = 'healthcare';
const TOKEN = 'endings-tools-token';
const ARGS: Record<Tool, Record<string, string>> = { transfer_to_human: { reason: 'caller_request' }, end_call: { reason: 'caller_done' } };
const GOODBYE: ResponsePart = { audio: tone(600, 24_000, 550), transcript: 'Connecting you now. Goodbye.' };

type Tool = 'transfer_to_human' | 'end_call';
/** One step: an agent tool call (by the model, or over HTTP where `http`), two at once, or the caller hanging up. */
type Step = { readonly tool: Tool; readonly http?: boolean } | { readonly race: readonly [Tool, Tool] } | { readonly hangUp: true };

interface Sequence {
  readonly name: string;
  readonly steps: readonly Step[];
  readonly reason: EndReason;
}

const SEQUENCES: readonly Sequence[] = [
  { name: 'transfer_to_human, then an HTTP end_call', steps: [{ tool: 'transfer_to_human' }, { tool: 'end_call', http: true }], reason: 'human_transfer' },
  { name: 'end_call alone', steps: [{ tool: 'end_call' }], reason: 'agent_end_call' },
  { name: 'transfer_to_human, then the caller hangs up', steps: [{ tool: 'transfer_to_human' }, { hangUp: true }], reason: 'human_transfer' },
  { name: 'the caller hangs up first', steps: [{ hangUp: true }], reason: 'caller_hangup' },
  { name: 'end_call and transfer_to_human racing', steps: [{ race: ['end_call', 'transfer_to_human'] }], reason: 'agent_end_call' },
];

/** What a context ended with. */
interface Ended {
  readonly reason: EndReason;
  readonly events: readonly TimelineEvent[];
}

const ENDING_OF: Record<Tool, EndReason> = { end_call: 'agent_end_call', transfer_to_human: 'human_transfer' };

/**
 * The events every context records alike: call.started, the tool calls and handoffs up to the
 * session tool that began the ending, and call.ended. What follows the first session tool is each
 * context's own (a live model may go on speaking; a text episode does not run a tool after a transfer).
 */
function sharedEvents(events: readonly TimelineEvent[]): string[] {
  const out: string[] = [];
  let ending = false;
  for (const e of events) {
    if (e.type === 'call.started') out.push('call.started');
    if (e.type === 'handoff' && !ending) out.push(`handoff:${e.to}`);
    if (e.type === 'tool' && !ending) {
      out.push(`tool:${e.name}`);
      ending = e.kind === 'session' && e.executed;
    }
    if (e.type === 'call.ended') out.push(`call.ended:${e.end_reason}`);
  }
  return out;
}

/** The shared events a sequence must leave: its first session tool (if any) and its reason. */
function expectedEvents(sequence: Sequence): string[] {
  const first = sequence.steps.flatMap((s) => ('tool' in s ? [s.tool] : 'race' in s ? [s.race[0]] : []))[0];
  return ['call.started', ...(first ? [`tool:${first}`] : []), `call.ended:${sequence.reason}`];
}

/** The reason a first session tool's ending gives, read off the timeline (the HTTP race arrives in either order). */
function firstEndingOn(events: readonly TimelineEvent[]): EndReason | null {
  const first = events.find((e) => e.type === 'tool' && e.kind === 'session' && e.executed);
  return first?.type === 'tool' ? (ENDING_OF[first.name as Tool] ?? null) : null;
}

describe('every context ends a conversation by the same rule: the first ending wins', () => {
  let clock: ManualClock;
  let rig: RealtimeRig;
  let text: EpisodePack;

  beforeAll(async () => {
    clock = new ManualClock();
    rig = await startRealtimeRig('openai/realtime', { MIVAS_PACK: PACK, MIVAS_TOOLS_TOKEN: TOKEN }, { clock });
    text = await episodePack(PACK);
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
    text?.close();
  });

  function postTool(callId: string, tool: Tool): Promise<Response> {
    return fetch(`${rig.server.httpUrl}/calls/${callId}/tools/${tool}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(ARGS[tool]) });
  }

  /** Plays a sequence into a live call; `allHttp` sends every tool over the HTTP route instead of from the model. */
  async function liveCall(callId: string, sequence: Sequence, allHttp: boolean): Promise<Ended> {
    const client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': callId });
    const session = rig.server.ctx.registry.get(callId);
    const conn = await rig.standIn.nextConnection();
    await conn.next('response.create');
    let farewellOwed = false;
    let hungUp = false;
    const statuses: number[] = [];
    for (const step of sequence.steps) {
      if ('hangUp' in step) {
        client.ws.close(1000);
        hungUp = true;
      } else if ('race' in step) {
        if (allHttp) statuses.push(...(await Promise.all(step.race.map((t) => postTool(callId, t)))).map((r) => r.status));
        else farewellOwed = await modelCalls(conn, step.race);
      } else if (allHttp || step.http) statuses.push((await postTool(callId, step.tool)).status);
      else farewellOwed = await modelCalls(conn, [step.tool]);
    }
    // The first HTTP call to arrive is taken; one after an HTTP ending may find the call closed already (409 CALL_ENDED).
    if (statuses.length) {
      expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
      expect(statuses).toContain(200);
    }
    if (farewellOwed && !hungUp) {
      await conn.next('response.create');
      conn.respond([GOODBYE]);
    }
    await advanceUntil(clock, client.closed);
    await session?.finished();
    await rig.server.ctx.outbox.flush();
    const events = timelineFileSchema.parse(JSON.parse(readFileSync(join(rig.server.dataDir, 'snapshots', PACK, `${callId}.timeline.json`), 'utf8'))).events;
    const ended = events.find((e) => e.type === 'call.ended');
    return { reason: ended?.type === 'call.ended' ? ended.end_reason : 'internal_error', events };
  }

  /** The model calls the tools in one response; returns true (the driver then asks for the farewell). */
  async function modelCalls(conn: StandInConnection, tools: readonly Tool[]): Promise<boolean> {
    const sent = conn.respond(tools.map((t) => ({ call: { name: t, args: ARGS[t] } })));
    for (const id of sent.callIds) await conn.toolOutput(id);
    return true;
  }

  /** Plays a sequence as a text episode: the policy's tool calls; the caller hangs up when next spoken to. */
  async function textEpisode(id: string, sequence: Sequence): Promise<Ended> {
    const hangsUp: CallerMind = { kind: 'scripted', open: async (): Promise<CallerTurn> => ({ text: 'I need to talk to someone.', hangUp: null }), reply: async () => ({ text: null, hangUp: 'model_hangup' }) };
    const { episode } = await TextEpisode.start({
      pack: text.pack,
      task: routedTask(text.pack),
      id,
      databases: text.databases,
      templateDump: text.templateDump,
      caller: hangsUp,
      policy: 'endings',
      handoffMode: 'native',
      maxTurns: 10,
      epochMs: () => 0,
      store: (pack, callId, parts) => text.stored.set(`${pack}/${callId}`, parts),
    });
    for (const step of sequence.steps) {
      const tools = 'race' in step ? step.race : 'tool' in step ? [step.tool] : [];
      if ('hangUp' in step && !episode.isDone()) await episode.step({ name: 'say_to_caller', arguments: { text: 'Is there anything else?' } });
      // A text episode takes one action at a time: the racing second call meets an ended episode.
      for (const tool of tools) if (!episode.isDone()) await episode.step({ name: tool, arguments: ARGS[tool] });
    }
    const result = await episode.finish();
    const events = timelineFileSchema.parse(JSON.parse(String(text.stored.get(`${PACK}/${id}`)?.get('timeline.json')))).events;
    return { reason: result.end_reason, events };
  }

  /** Plays a sequence as an offline replay: the tools as actions, the caller's hang-up after them. */
  function offline(callId: string, sequence: Sequence): Ended {
    const actions: RouteAction[] = sequence.steps.flatMap((s) => ('race' in s ? s.race : 'tool' in s ? [s.tool] : []).map((t): RouteAction => ({ kind: 'call', name: t, parameters: ARGS[t] })));
    const hangsUp = sequence.steps.some((s) => 'hangUp' in s);
    const replay = replayOffline(actions, { pack: text.pack, databases: text.databases, callId, taskId: null, callerHangsUp: hangsUp });
    const ended = replay.events.find((e) => e.type === 'call.ended');
    return { reason: ended?.type === 'call.ended' ? ended.end_reason : 'internal_error', events: replay.events };
  }

  describe.each(SEQUENCES.map((s, i) => ({ ...s, i })))('$name', (sequence) => {
    it('ends the live call (the model\'s tools, HTTP where the sequence says) by the rule', async () => {
      const ended = await liveCall(`endings_live_${sequence.i}`, sequence, false);
      expect(ended.reason).toBe(sequence.reason);
      expect(sharedEvents(ended.events)).toEqual(expectedEvents(sequence));
    }, 60_000);

    it('ends the live call the same way when every tool arrives over the HTTP route', async () => {
      const ended = await liveCall(`endings_http_${sequence.i}`, sequence, true);
      // Two HTTP requests race for real: whichever the route took first is the ending that stands.
      const reason = 'race' in (sequence.steps[0] ?? {}) ? firstEndingOn(ended.events) : sequence.reason;
      expect(ended.reason).toBe(reason);
      if (reason === sequence.reason) expect(sharedEvents(ended.events)).toEqual(expectedEvents(sequence));
      else expect(sharedEvents(ended.events)).toEqual(['call.started', 'tool:transfer_to_human', 'call.ended:human_transfer']);
    }, 60_000);

    it('ends the text episode the same way', async () => {
      const ended = await textEpisode(`ep_endings_${sequence.i}`, sequence);
      expect(ended.reason).toBe(sequence.reason);
      expect(sharedEvents(ended.events)).toEqual(expectedEvents(sequence));
    });

    it('ends the offline replay the same way', () => {
      const ended = offline(`endings_offline_${sequence.i}`, sequence);
      expect(ended.reason).toBe(sequence.reason);
      expect(sharedEvents(ended.events)).toEqual(expectedEvents(sequence));
    });
  });

  it('keeps the model\'s farewell after a transfer when an HTTP end_call arrives during it: the goodbye plays whole', async () => {
    const ended = await liveCall('endings_farewell_kept', SEQUENCES[0] as Sequence, false);
    const farewell = ended.events.filter((e) => e.type === 'speech.completed' && e.side === 'agent').at(-1);
    expect(farewell).toMatchObject({ interrupted: false });
    const order = ended.events.flatMap((e) => (e.type === 'tool' ? [`${e.name}${e.origin ? `:${e.origin}` : ''}`] : []));
    expect(order).toEqual(['transfer_to_human', 'end_call:http']);
  }, 60_000);
});
