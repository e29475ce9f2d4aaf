import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { CallerLog, dialConversation, speechEndpointMouth, transcriptionEars, type CallerMind, type CallerTurn, type ConversationReport, type Ears, type Mouth } from '../../../src/caller/index.ts';
import { decodeCallerFrame, encodeServerFrame, type CallerFrame } from '../../../src/chirp/index.ts';
import { ManualClock, seededIds } from '../../../src/core/index.ts';
import { HostileEndpoint } from '../../support/hostile-endpoint.ts';

let wss: WebSocketServer | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
  wss = null;
});

/** A bare CHIRP server the test drives: it speaks agent utterances on demand and records the caller's frames. */
interface Agent {
  readonly url: string;
  readonly frames: CallerFrame[];
  readonly closed: Promise<number>;
  speak(id: string, options?: { open?: boolean }): void;
  finish(id: string): void;
  until(check: () => boolean): Promise<void>;
}

function agentServer(): Promise<Agent> {
  const ids = seededIds('server');
  const frames: CallerFrame[] = [];
  let socket: WebSocket | null = null;
  let resolveClosed: (code: number) => void = () => undefined;
  const closed = new Promise<number>((r) => (resolveClosed = r));
  const waiters: { check: () => boolean; resolve: () => void }[] = [];
  const settle = (): void => {
    for (const w of [...waiters]) if (w.check()) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  return new Promise((resolve) => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = wss?.address() as AddressInfo;
      const send = (text: string): void => socket?.send(text);
      const finish = (id: string): void => send(encodeServerFrame({ type: 'speech.completed', utteranceId: id }, ids, 0));
      resolve({
        url: `ws://127.0.0.1:${port}/`,
        frames,
        closed,
        speak(id, options = {}) {
          send(encodeServerFrame({ type: 'speech.started', utteranceId: id }, ids, 0));
          socket?.send(Buffer.alloc(640), { binary: true });
          if (!options.open) finish(id);
        },
        finish,
        until(check) {
          if (check()) return Promise.resolve();
          return new Promise((r) => waiters.push({ check, resolve: r }));
        },
      });
    });
    wss.on('connection', (ws: WebSocket) => {
      socket = ws;
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const decoded = decodeCallerFrame(String(data));
        if (decoded.ok) frames.push(decoded.frame);
        settle();
      });
      ws.on('close', (code) => resolveClosed(code));
    });
  });
}

/** A mind that answers from a list (the opening first). */
function listMind(turns: readonly CallerTurn[]): CallerMind {
  let next = 0;
  const take = async (): Promise<CallerTurn> => turns[next++] ?? { text: null, hangUp: null };
  return { kind: 'external', open: take, reply: take };
}

const say = (text: string, hangUp: CallerTurn['hangUp'] = null): CallerTurn => ({ text, hangUp, source: hangUp === 'closing_line' ? 'closing' : 'free' });
const completedLines = (agent: Agent): number => agent.frames.filter((f) => f.type === 'speech.completed').length;

function dial(agent: Agent, mind: CallerMind, clock: ManualClock, options: { paced?: boolean; log?: CallerLog; agentSilenceMs?: number; ears?: Ears; mouth?: Mouth } = {}): Promise<ConversationReport> {
  return dialConversation({
    url: agent.url,
    callId: 'loc_unit00000001',
    taskId: null,
    runId: null,
    auth: null,
    mind,
    ears: options.ears ?? null,
    mouth: options.mouth ?? { engine: 'tones', voice: null, synthesize: async () => Buffer.alloc(640 * 10) },
    log: options.log ?? new CallerLog(),
    paced: options.paced ?? false,
    limits: { maxDurationMs: 600_000, agentSilenceMs: options.agentSilenceMs ?? 45_000, hangupGraceMs: 4_000 },
    timeoutMs: 3_600_000,
    clock,
    ids: seededIds('caller'),
  });
}

/** Lets sockets and promises run a few turns of the event loop. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

describe('dialConversation on an injected clock', () => {
  it('after its closing line, hangs up once the agent has been quiet for the grace period, not before', async () => {
    const agent = await agentServer();
    const clock = new ManualClock();
    const call = dial(agent, listMind([say('Hello.'), say("Thanks, that's everything.", 'closing_line')]), clock);
    await agent.until(() => agent.frames.length === 0);
    await settle();
    agent.speak('u_000000000001');
    await agent.until(() => completedLines(agent) === 1);
    agent.speak('u_000000000002');
    await agent.until(() => completedLines(agent) === 2);
    await settle();
    // The agent says goodbye during the grace: the wait restarts when it finishes.
    clock.advance(3_000);
    agent.speak('u_000000000003', { open: true });
    await settle();
    clock.advance(10_000);
    await settle();
    agent.finish('u_000000000003');
    await settle();
    clock.advance(3_999);
    await settle();
    let closed = false;
    void agent.closed.then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    clock.advance(2);
    expect(await agent.closed).toBe(1000);
    expect(await call).toMatchObject({ endReason: 'closing_line', hungUp: true, closeCode: 1000 });
  });

  it('hangs up with agent_silent when the agent says nothing for its patience, and with duration_cap at its cap', async () => {
    const silent = await agentServer();
    const clock = new ManualClock();
    const call = dial(silent, listMind([say('Hello.')]), clock);
    await settle();
    silent.speak('u_000000000001');
    await silent.until(() => completedLines(silent) === 1);
    await settle();
    clock.advance(44_999);
    await settle();
    clock.advance(1);
    expect(await call).toMatchObject({ endReason: 'agent_silent', hungUp: true });
    await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));

    const chatty = await agentServer();
    const clock2 = new ManualClock();
    const call2 = dial(chatty, listMind([say('Hello.'), say('Go on.'), say('Sure.')]), clock2, { agentSilenceMs: Number.POSITIVE_INFINITY });
    await settle();
    for (let i = 1; i <= 3; i++) {
      chatty.speak(`u_00000000000${i}`);
      await chatty.until(() => completedLines(chatty) === i);
      await settle();
      clock2.advance(i < 3 ? 200_000 : 199_999);
      await settle();
    }
    let ended = false;
    void call2.then(() => (ended = true));
    await settle();
    expect(ended).toBe(false);
    clock2.advance(1);
    expect(await call2).toMatchObject({ endReason: 'duration_cap', hungUp: true });
  });

  it('paced: never starts a line while the agent speaks, and stops its line when the agent barges in', async () => {
    const agent = await agentServer();
    const clock = new ManualClock();
    const log = new CallerLog();
    const call = dial(agent, listMind([say('Hello.'), say('A long answer.')]), clock, { paced: true, log });
    await settle();
    agent.speak('u_000000000001');
    await settle();
    for (let i = 0; i < 20 && completedLines(agent) < 1; i++) {
      clock.advance(20);
      await settle();
    }
    expect(completedLines(agent)).toBe(1);
    // The agent's next utterance is still open when the caller's answer is ready: the caller waits.
    agent.speak('u_000000000002', { open: true });
    await settle();
    clock.advance(1_000);
    await settle();
    expect(agent.frames.filter((f) => f.type === 'speech.started')).toHaveLength(1);
    agent.finish('u_000000000002');
    await settle();
    clock.advance(60);
    await settle();
    expect(agent.frames.filter((f) => f.type === 'speech.started')).toHaveLength(2);
    // Mid-line, the agent speaks again: the caller's line ends at once, cut short.
    agent.speak('u_000000000003', { open: true });
    await agent.until(() => completedLines(agent) === 2);
    expect(log.turns.filter((t) => t.side === 'caller').map((t) => t.interrupted)).toEqual([false, true]);
    clock.advance(45_000);
    await settle();
    agent.finish('u_000000000003');
    await settle();
    clock.advance(45_000);
    expect(await call).toMatchObject({ endReason: 'agent_silent' });
  });

  it('hangs up with mind_error (VOID infra_error) when its ears or its mouth meet an endpoint that floods them (issue 26)', async () => {
    const endpoint = await HostileEndpoint.start({ kind: 'flood', prefix: '{"text": "' });
    try {
      const endpointSettings = { baseUrl: endpoint.baseUrl, apiKey: undefined, timeoutMs: 30_000, maxBodyBytes: 64 * 1024 };
      const once = { attempts: 1, backoffMs: [], timeoutMs: 30_000 };
      const deaf = await agentServer();
      const clock = new ManualClock();
      const ears = transcriptionEars({ endpoint: endpointSettings, model: 'stt-1', clock, cache: null, log: new CallerLog(), retry: once });
      const heard = dial(deaf, listMind([say('Hello.')]), clock, { ears });
      await settle();
      deaf.speak('u_000000000001');
      expect(await heard).toMatchObject({ endReason: 'mind_error', hungUp: true });
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));

      const mute = await agentServer();
      const mouth = speechEndpointMouth({ endpoint: endpointSettings, model: 'tts-1', voice: 'alloy', rateHz: 24_000, clock, log: new CallerLog(), retry: once });
      const spoken = dial(mute, listMind([say('Hello.')]), clock, { mouth });
      await settle();
      mute.speak('u_000000000001');
      expect(await spoken).toMatchObject({ endReason: 'mind_error', hungUp: true });
      expect(endpoint.exchanges.map((e) => e.path)).toEqual(['/v1/audio/transcriptions', '/v1/audio/speech']);
    } finally {
      await endpoint.close();
    }
  });
});
