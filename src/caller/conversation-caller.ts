import WebSocket from 'ws';
import { bytesToMs, FRAME_BYTES, FRAME_MS, type SpeechSynth } from '../audio/index.ts';
import { decodeServerFrame, encodeCallerFrame, type CallerFrame } from '../chirp/index.ts';
import { randomIds, systemClock, type Clock, type IdSource, type Timer } from '../core/index.ts';
import { CacheMissError } from './caller-cache.ts';
import type { CallerLog } from './caller-log.ts';
import type { CallerEndReason, CallerMind, CallerTurn } from './caller-mind.ts';
import type { Ears } from './ears.ts';
import { callerReport, onRefusal, type CallerReport } from './local-caller.ts';

/** A stateful transform of the caller's outbound audio (an audio condition, `src/audio/line-conditions.ts`); one per call. */
export interface OutboundAudio {
  /** Prepares one caller line before it is framed (a noise condition normalises its level). */
  line?(pcm: Buffer): Buffer;
  /** Transforms one outbound frame, hold audio included. */
  process(pcm: Buffer): Buffer;
}

/** The caps of one conversation (all on the injected clock). */
export interface ConversationLimits {
  /** The caller hangs up (`duration_cap`) this long after the call connected. */
  readonly maxDurationMs: number;
  /** The caller hangs up (`agent_silent`) when the agent has not spoken for this long while it waits; Infinity: never. */
  readonly agentSilenceMs: number;
  /** After its closing line, the caller hangs up once the agent has been quiet this long. */
  readonly hangupGraceMs: number;
}

export const DEFAULT_LIMITS: ConversationLimits = { maxDurationMs: 600_000, agentSilenceMs: 60_000, hangupGraceMs: 4_000 };

/** How one conversational call is dialed. */
export interface ConversationOptions {
  readonly url: string;
  readonly callId: string;
  readonly taskId: string | null;
  readonly runId: string | null;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  readonly mind: CallerMind;
  /** Null: the agent's words are not needed (the scripted mind); each utterance is heard as "". */
  readonly ears: Ears | null;
  readonly mouth: SpeechSynth;
  readonly log: CallerLog;
  /** Real-time pacing with continuous hold audio; false sends each line in one burst (`--fast`). */
  readonly paced: boolean;
  readonly limits: ConversationLimits;
  /** Applied to every outbound frame, hold audio included (background noise, a bad line). */
  readonly outbound?: OutboundAudio | null;
  /** A safety limit past every cap: the caller closes if the call has not ended by then. */
  readonly timeoutMs: number;
  readonly clock?: Clock;
  readonly ids?: IdSource;
}

/** What the conversational caller observed: the local caller's report plus how its side ended. */
export interface ConversationReport extends CallerReport {
  /** Why the caller ended its side; null when the server ended the call first. */
  readonly endReason: CallerEndReason | null;
  /** True when the caller closed the socket. */
  readonly hungUp: boolean;
}

function basicHeader(auth: { user: string; pass: string }): string {
  return `Basic ${Buffer.from(`${auth.user}:${auth.pass}`).toString('base64')}`;
}

/**
 * A caller that converses (architecture.md §17): it dials like the local caller, collects each agent
 * utterance between the server's `speech.started` and `speech.completed`, hears it with its ears,
 * asks its mind for the answer and speaks it with its mouth. Turns are handled one at a time in
 * order, so the same agent gets the same caller however fast each side is. It never talks over
 * the agent; after its closing line it hangs up (1000) once the agent has been quiet for the
 * grace period; its caps end the call with a typed reason.
 */
export function dialConversation(options: ConversationOptions): Promise<ConversationReport> {
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const headers: Record<string, string> = { 'X-Simulation-Result-Id': options.callId };
  if (options.taskId) headers['X-Mivas-Task-Id'] = options.taskId;
  if (options.runId) headers['X-Mivas-Run-Id'] = options.runId;
  if (options.auth) headers.Authorization = basicHeader(options.auth);
  const ws = new WebSocket(options.url, { headers, perMessageDeflate: false });
  const started = clock.nowMs();
  const state = {
    agentUtterances: 0,
    agentAudioBytes: 0,
    callerAudioBytes: 0,
    timedOut: false,
    refusedStatus: null as number | null,
    refusedReason: null as string | null,
    endReason: null as CallerEndReason | null,
    hungUp: false,
    finished: false,
  };
  const send = (frame: CallerFrame): void => {
    if (ws.readyState === ws.OPEN) ws.send(encodeCallerFrame(frame, ids, clock.epochMs()));
  };
  const speaker = new CallerMouthpiece(ws, options.paced, clock, options.outbound ?? null, (bytes) => (state.callerAudioBytes += bytes));

  // The agent's current utterance, and the completed ones waiting for an answer.
  let listening: { id: string; chunks: Buffer[] } | null = null;
  const heard: { id: string; pcm: Buffer }[] = [];
  let agentSpeaking = false;
  let quietWaiters: (() => void)[] = [];
  let opened = false;
  let working = false;
  let closingAfterLine = false;
  const timers: { silence: Timer | null; grace: Timer | null; duration: Timer | null; safety: Timer | null } = { silence: null, grace: null, duration: null, safety: null };

  const cancel = (name: keyof typeof timers): void => {
    timers[name]?.cancel();
    timers[name] = null;
  };
  const hangUp = (reason: CallerEndReason): void => {
    if (state.finished || state.hungUp) return;
    state.endReason ??= reason;
    state.hungUp = true;
    for (const name of Object.keys(timers) as (keyof typeof timers)[]) if (name !== 'safety') cancel(name);
    speaker.stop();
    ws.close(1000, 'caller hangup');
  };
  const armSilence = (): void => {
    cancel('silence');
    if (Number.isFinite(options.limits.agentSilenceMs) && !state.endReason) timers.silence = clock.setTimer(options.limits.agentSilenceMs, () => hangUp('agent_silent'));
  };
  const armGrace = (): void => {
    cancel('grace');
    if (closingAfterLine && !agentSpeaking) timers.grace = clock.setTimer(options.limits.hangupGraceMs, () => hangUp(state.endReason ?? 'closing_line'));
  };
  const agentQuiet = (): Promise<void> => (agentSpeaking ? new Promise((resolve) => quietWaiters.push(resolve)) : Promise.resolve());

  const speak = async (turn: CallerTurn): Promise<void> => {
    if (!turn.text) return;
    const spoken = await options.mouth.synthesize(turn.text);
    const pcm = options.outbound?.line ? options.outbound.line(spoken) : spoken;
    await agentQuiet();
    if (state.finished || state.hungUp) return;
    const utteranceId = `c_${ids.hex(12)}`;
    const seq = options.log.caller(utteranceId, turn.text, turn.source ?? null, turn.pin ?? null, bytesToMs(pcm.length));
    const completed = await speaker.say(pcm, utteranceId, send);
    if (!completed) options.log.interrupted(seq);
  };

  const act = async (turn: CallerTurn): Promise<void> => {
    await speak(turn);
    if (!turn.hangUp) return;
    state.endReason ??= turn.hangUp;
    cancel('silence');
    if (turn.text && turn.hangUp === 'closing_line') {
      closingAfterLine = true;
      armGrace();
    } else hangUp(turn.hangUp);
  };

  const answer = async (utterance: { id: string; pcm: Buffer }): Promise<void> => {
    const turnSeq = options.log.turns.length;
    const text = options.ears ? await options.ears.hear(utterance.pcm, turnSeq) : '';
    options.log.agent(utterance.id, text, bytesToMs(utterance.pcm.length));
    // After the call ended (or the caller closed) an utterance is only heard, for the record.
    if (state.endReason || state.finished || state.hungUp) return;
    if (!opened) {
      opened = true;
      options.mind.observe?.(text);
      await act(await options.mind.open());
    } else {
      await act(await options.mind.reply(text));
    }
  };

  let pumping: Promise<void> | null = null;
  const pump = (): Promise<void> => {
    pumping ??= (async () => {
      for (let next = heard.shift(); next; next = heard.shift()) {
        try {
          await answer(next);
        } catch (err) {
          hangUp(err instanceof CacheMissError ? 'cache_miss' : 'mind_error');
        }
      }
      pumping = null;
      if (!state.endReason && !agentSpeaking && !state.finished) armSilence();
    })();
    return pumping;
  };

  ws.on('open', () => {
    speaker.start();
    armSilence();
    timers.duration = clock.setTimer(options.limits.maxDurationMs, () => hangUp('duration_cap'));
  });
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      const chunk = data as Buffer;
      state.agentAudioBytes += chunk.length;
      listening?.chunks.push(Buffer.from(chunk));
      return;
    }
    const decoded = decodeServerFrame(String(data));
    if (!decoded.ok) return;
    const frame = decoded.frame;
    if (frame.type === 'mark') send({ type: 'mark', name: frame.name });
    if (frame.type === 'speech.started') {
      state.agentUtterances++;
      agentSpeaking = true;
      listening = { id: frame.utteranceId, chunks: [] };
      cancel('silence');
      cancel('grace');
      // The agent barging in stops the caller's line, as Bluejay's digital humans stop.
      speaker.interrupt(send);
    }
    if (frame.type === 'speech.completed') {
      agentSpeaking = false;
      const done = listening && listening.id === frame.utteranceId ? listening : null;
      listening = null;
      for (const resolve of quietWaiters) resolve();
      quietWaiters = [];
      if (closingAfterLine) armGrace();
      // Utterances after the caller's closing line are still heard, so the record shows both sides to the end.
      if (done) {
        heard.push({ id: done.id, pcm: Buffer.concat(done.chunks) });
        void pump();
      }
    }
  });
  onRefusal(ws, state);
  timers.safety = clock.setTimer(options.timeoutMs, () => {
    state.timedOut = true;
    ws.close(1000, 'caller timeout');
  });

  return new Promise((resolve) => {
    const finish = (closeCode: number, closeReason: string): void => {
      if (state.finished) return;
      state.finished = true;
      for (const name of Object.keys(timers) as (keyof typeof timers)[]) cancel(name);
      speaker.stop();
      for (const wake of quietWaiters) wake();
      // Utterances still waiting are heard (not answered) before the report, so the record is complete.
      void (pumping ?? Promise.resolve()).then(() => pump()).then(() => resolve({
        ...callerReport(options, state, closeCode, closeReason, clock.nowMs() - started),
        endReason: state.endReason,
        hungUp: state.hungUp,
      }));
    };
    ws.on('close', (code, reason) => finish(code, reason.toString()));
    ws.on('error', (err) => {
      if (ws.readyState === ws.CLOSED || ws.readyState === ws.CONNECTING) finish(1006, err.message);
    });
  });
}

/**
 * Streams the caller's audio on the injected clock: paced, a continuous 20 ms stream of hold
 * audio with lines spliced in (as Bluejay sends); fast, each line in one burst. Every frame goes
 * through the outbound transform (the audio condition) first.
 */
class CallerMouthpiece {
  private queue: Buffer[] = [];
  private timer: Timer | null = null;
  private nextDueMs = 0;
  private current: { utteranceId: string; done: (completed: boolean) => void } | null = null;

  private readonly ws: WebSocket;
  private readonly paced: boolean;
  private readonly clock: Clock;
  private readonly outbound: OutboundAudio | null;
  private readonly counted: (bytes: number) => void;

  constructor(
    ws: WebSocket,
    paced: boolean,
    clock: Clock,
    outbound: OutboundAudio | null,
    counted: (bytes: number) => void,
  ) {
    this.ws = ws;
    this.paced = paced;
    this.clock = clock;
    this.outbound = outbound;
    this.counted = counted;
  }

  start(): void {
    if (!this.paced) return;
    this.nextDueMs = this.clock.nowMs();
    this.tick();
  }

  /** Speaks one line; resolves true when it played to its end, false when cut off. */
  say(pcm: Buffer, utteranceId: string, send: (frame: CallerFrame) => void): Promise<boolean> {
    send({ type: 'speech.started', utteranceId });
    if (!this.paced) {
      for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.write(pcm.subarray(i, i + FRAME_BYTES));
      send({ type: 'speech.completed', utteranceId });
      return Promise.resolve(true);
    }
    for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.queue.push(pcm.subarray(i, i + FRAME_BYTES));
    return new Promise((resolve) => {
      this.current = {
        utteranceId,
        done: (completed) => {
          send({ type: 'speech.completed', utteranceId });
          resolve(completed);
        },
      };
    });
  }

  /** Drops the rest of the line being spoken (the agent barged in). */
  interrupt(_send: (frame: CallerFrame) => void): void {
    if (!this.current) return;
    this.queue = [];
    const current = this.current;
    this.current = null;
    current.done(false);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    const current = this.current;
    this.current = null;
    current?.done(false);
  }

  private tick(): void {
    const now = this.clock.nowMs();
    while (this.nextDueMs <= now) {
      const frame = this.queue.shift();
      this.write(frame ?? Buffer.alloc(FRAME_BYTES));
      if (!frame && this.current) {
        const current = this.current;
        this.current = null;
        current.done(true);
      }
      this.nextDueMs += FRAME_MS;
    }
    this.timer = this.clock.setTimer(Math.max(1, this.nextDueMs - this.clock.nowMs()), () => this.tick());
  }

  private write(frame: Buffer): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const out = this.outbound ? this.outbound.process(frame) : frame;
    this.ws.send(out, { binary: true });
    this.counted(out.length);
  }
}
