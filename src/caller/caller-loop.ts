import { bytesToMs, FRAME_BYTES, FRAME_MS, msToBytes, type SpeechSynth } from '../audio/index.ts';
import type { CallerFrame } from '../chirp/index.ts';
import type { Clock, IdSource, Timer } from '../core/index.ts';
import type { CallerDuplexRecord, CallerLineSource } from '../snapshot/index.ts';
import { CacheMissError } from './caller-cache.ts';
import type { CallerLog } from './caller-log.ts';
import type { CallerEndReason, CallerMind, CallerTurn } from './caller-mind.ts';
import { takesFloor, triggeredAct, type DuplexAct, type DuplexSettings } from './duplex.ts';
import type { Ears } from './ears.ts';

/** A stateful transform of the caller's outbound audio (an audio condition, `src/audio/line-conditions.ts`); one per call. */
export interface OutboundAudio {
  /** Prepares one caller line before it is framed (a noise condition normalises its level). */
  line?(pcm: Buffer): Buffer;
  /** Transforms one outbound frame, hold audio included. */
  process(pcm: Buffer): Buffer;
}

/** The caps of one conversation (all on the injected clock; Infinity: no cap). */
export interface ConversationLimits {
  /** The caller hangs up (`duration_cap`) this long after the call connected. */
  readonly maxDurationMs: number;
  /** The caller hangs up (`agent_silent`) when the agent has not spoken for this long while it waits; Infinity: never. */
  readonly agentSilenceMs: number;
  /** After its closing line, the caller hangs up once the agent has been quiet this long. */
  readonly hangupGraceMs: number;
}

export const DEFAULT_LIMITS: ConversationLimits = { maxDurationMs: 600_000, agentSilenceMs: 60_000, hangupGraceMs: 4_000 };

/** No cap but the safety timeout: a caller that says its line and waits for the server to end the call. */
export const NO_CAPS: ConversationLimits = { maxDurationMs: Number.POSITIVE_INFINITY, agentSilenceMs: Number.POSITIVE_INFINITY, hangupGraceMs: DEFAULT_LIMITS.hangupGraceMs };

/** What the loop does to the outside world; the socket adapter (`dialConversation`) or a unit test supplies it. */
export interface LoopEffects {
  /** Sends one CHIRP text frame. */
  sendFrame(frame: CallerFrame): void;
  /** Sends one binary audio frame; false when it could not go out (the socket is not open). */
  sendAudio(pcm: Buffer): boolean;
  /** Closes the call with 1000 and this reason. */
  close(reason: string): void;
}

/** Who the caller is and how it paces, for one call. */
export interface LoopSettings {
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
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The task's duplex acts (null or absent: a half-duplex caller); they need ears. */
  readonly duplex?: DuplexSettings | null;
}

/**
 * Where the caller's side of the call is. `listening`: waiting for the agent; `answering`: hearing an
 * utterance and asking the mind; `speaking`: a line is going out (or waits for the agent to finish);
 * `cutting_in`: a duplex act's line is going out over the agent's utterance; `closing`: its closing
 * line is said, it hangs up once the agent has been quiet for the grace; `hung_up`: the caller
 * closed; `ended`: the socket closed.
 */
export type LoopState = 'connecting' | 'listening' | 'answering' | 'speaking' | 'cutting_in' | 'closing' | 'hung_up' | 'ended';

/** The agent utterance in progress, as the duplex acts overhear it. */
interface Overhearing {
  readonly id: string;
  /** Agent audio received so far. */
  bytes: number;
  /** The prefix transcribed last (a multiple of the hearing step). */
  checkedBytes: number;
  /** A partial transcript is on its way. */
  hearing: boolean;
  /** An act whose trigger held, and the agent audio position at which the caller starts. */
  armed: { readonly act: DuplexAct; readonly atBytes: number } | null;
  /** A correction or barge-in was said over this utterance: the caller has answered it already. */
  tookFloor: boolean;
}

type TimerName = 'safety' | 'duration' | 'silence' | 'grace' | 'frame';

/** The loop's only owner of timers: one per name, re-arming replaces, a non-finite delay arms nothing. */
class LoopTimers {
  private readonly live = new Map<TimerName, Timer>();
  private readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  arm(name: TimerName, delayMs: number, fn: () => void): void {
    this.cancel(name);
    if (!Number.isFinite(delayMs)) return;
    this.live.set(name, this.clock.setTimer(delayMs, () => {
      this.live.delete(name);
      fn();
    }));
  }

  cancel(name: TimerName): void {
    this.live.get(name)?.cancel();
    this.live.delete(name);
  }

  cancelAllBut(keep: TimerName | null): void {
    for (const name of [...this.live.keys()]) if (name !== keep) this.cancel(name);
  }
}

/**
 * The CHIRP caller (architecture.md §17) as a state machine without a socket: the adapter feeds it
 * the server's events (`connected`, `agentStarted`, `agentAudio`, `agentCompleted`, `mark`,
 * `closed`) and it answers through its effects. Each agent utterance is heard with the ears and
 * answered by the mind, one at a time in order, so the same agent gets the same caller at any
 * speed. It never starts a line while the agent speaks and stops its line when the agent barges
 * in. After its closing line it hangs up once the agent has been quiet for the grace; its caps end
 * the call with a typed reason; a failing mind, ears or mouth ends it with `mind_error`.
 */
export class CallerLoop {
  state: LoopState = 'connecting';
  endReason: CallerEndReason | null = null;
  hungUp = false;
  timedOut = false;
  readonly counts = { agentUtterances: 0, agentAudioBytes: 0, callerAudioBytes: 0 };

  private agentSpeaking = false;
  private listening: { id: string; chunks: Buffer[] } | null = null;
  private readonly heard: { id: string; pcm: Buffer; answered: boolean }[] = [];
  private overhearing: Overhearing | null = null;
  private pendingActs: readonly DuplexAct[];
  /** Lines go out one at a time, a cut-in's included. */
  private lineTail: Promise<void> = Promise.resolve();
  private opened = false;
  private pumping: Promise<void> | null = null;
  private quietWaiters: (() => void)[] = [];
  private readonly timers: LoopTimers;
  private readonly player: LinePlayer;
  private readonly settings: LoopSettings;
  private readonly effects: LoopEffects;

  constructor(settings: LoopSettings, effects: LoopEffects) {
    this.settings = settings;
    this.effects = effects;
    this.timers = new LoopTimers(settings.clock);
    this.player = new LinePlayer(settings, this.timers, effects, (bytes) => (this.counts.callerAudioBytes += bytes));
    this.pendingActs = settings.ears ? (settings.duplex?.acts ?? []) : [];
    this.timers.arm('safety', settings.timeoutMs, () => {
      this.timedOut = true;
      effects.close('caller timeout');
    });
  }

  /** The server accepted the call: hold audio starts and the caps are armed. */
  connected(): void {
    this.move('listening');
    this.player.start();
    this.armSilence();
    this.timers.arm('duration', this.settings.limits.maxDurationMs, () => this.hangUp('duration_cap'));
  }

  agentStarted(utteranceId: string): void {
    this.counts.agentUtterances++;
    this.agentSpeaking = true;
    this.listening = { id: utteranceId, chunks: [] };
    // Duplex acts overhear the agent once the caller has opened (never over the greeting).
    this.overhearing = this.opened && this.pendingActs.length ? { id: utteranceId, bytes: 0, checkedBytes: 0, hearing: false, armed: null, tookFloor: false } : null;
    this.timers.cancel('silence');
    this.timers.cancel('grace');
    // The agent barging in stops the caller's line, as Bluejay's digital humans stop.
    this.player.interrupt();
  }

  agentAudio(chunk: Buffer): void {
    this.counts.agentAudioBytes += chunk.length;
    this.listening?.chunks.push(Buffer.from(chunk));
    if (this.overhearing && this.listening?.id === this.overhearing.id) {
      this.overhearing.bytes += chunk.length;
      this.overhear(this.overhearing);
    }
  }

  agentCompleted(utteranceId: string): void {
    this.agentSpeaking = false;
    const done = this.listening?.id === utteranceId ? this.listening : null;
    const answered = this.overhearing?.id === utteranceId && this.overhearing.tookFloor;
    this.listening = null;
    this.overhearing = null;
    this.wakeQuietWaiters();
    if (this.state === 'closing') this.armGrace();
    // Utterances after the caller's closing line are still heard, so the record shows both sides to the end.
    if (done) {
      this.heard.push({ id: done.id, pcm: Buffer.concat(done.chunks), answered });
      void this.pump();
    }
  }

  /** The server's mark: echoed with its name. */
  mark(name: string): void {
    this.effects.sendFrame({ type: 'mark', name });
  }

  /** The socket closed; resolves once every utterance still waiting has been heard (not answered), so the record is complete. */
  closed(): Promise<void> {
    if (this.state === 'ended') return this.pumping ?? Promise.resolve();
    this.state = 'ended';
    this.timers.cancelAllBut(null);
    this.player.stop();
    this.wakeQuietWaiters();
    return (this.pumping ?? Promise.resolve()).then(() => this.pump());
  }

  private get over(): boolean {
    return this.state === 'hung_up' || this.state === 'ended';
  }

  /** Moves between the live states; once closing, hung up or ended, only hangUp and closed move it. */
  private move(to: LoopState): void {
    if (this.over || this.state === 'closing') return;
    this.state = to;
  }

  private hangUp(reason: CallerEndReason): void {
    if (this.over) return;
    this.endReason ??= reason;
    this.hungUp = true;
    this.state = 'hung_up';
    this.timers.cancelAllBut('safety');
    this.player.stop();
    this.effects.close('caller hangup');
  }

  private armSilence(): void {
    if (!this.endReason) this.timers.arm('silence', this.settings.limits.agentSilenceMs, () => this.hangUp('agent_silent'));
  }

  private armGrace(): void {
    this.timers.cancel('grace');
    if (!this.agentSpeaking) this.timers.arm('grace', this.settings.limits.hangupGraceMs, () => this.hangUp(this.endReason ?? 'closing_line'));
  }

  private wakeQuietWaiters(): void {
    for (const wake of this.quietWaiters) wake();
    this.quietWaiters = [];
  }

  private agentQuiet(): Promise<void> {
    return this.agentSpeaking && !this.over ? new Promise((resolve) => this.quietWaiters.push(resolve)) : Promise.resolve();
  }

  /** Answers the heard utterances one at a time, in order (one drain at a time). */
  private pump(): Promise<void> {
    if (this.pumping || this.heard.length === 0) return this.pumping ?? Promise.resolve();
    this.pumping = this.drain();
    return this.pumping;
  }

  private async drain(): Promise<void> {
    for (let next = this.heard.shift(); next; next = this.heard.shift()) {
      try {
        await this.answer(next);
      } catch (err) {
        this.hangUp(err instanceof CacheMissError ? 'cache_miss' : 'mind_error');
      }
    }
    this.pumping = null;
    if (!this.endReason && !this.agentSpeaking && !this.over) this.armSilence();
  }

  /**
   * Overhears the utterance in progress for the duplex acts: its prefix is transcribed at each
   * multiple of the hearing step, in order (so the same agent audio gives the same partial
   * transcripts); the first act whose trigger holds is armed, and said once its delay of agent
   * audio has arrived, if the caller is only listening then.
   */
  private overhear(o: Overhearing): void {
    if (this.over || this.state === 'closing' || o.tookFloor) return;
    if (o.armed) {
      if (o.bytes >= o.armed.atBytes && this.state === 'listening') this.cutIn(o, o.armed.act);
      return;
    }
    const step = msToBytes(this.settings.duplex?.hearEveryMs ?? Number.POSITIVE_INFINITY);
    if (o.hearing || !this.pendingActs.length || o.bytes - o.checkedBytes < step) return;
    o.checkedBytes += step;
    o.hearing = true;
    const prefix = Buffer.concat(this.listening?.chunks ?? []).subarray(0, o.checkedBytes);
    const heardAt = o.checkedBytes;
    void (this.settings.ears as Ears).hear(prefix, null).then(
      (soFar) => {
        o.hearing = false;
        const act = triggeredAct(this.pendingActs, soFar);
        if (act) o.armed = { act, atBytes: heardAt + msToBytes(act.cutInAfterMs) };
        if (this.overhearing === o) this.overhear(o);
      },
      () => {
        // A failed partial transcript only skips that step; the utterance's own transcript decides the turn.
        o.hearing = false;
      },
    );
  }

  /** Says a duplex act's line over the agent's utterance; each act is played once per call. */
  private cutIn(o: Overhearing, act: DuplexAct): void {
    this.pendingActs = this.pendingActs.filter((a) => a !== act);
    o.armed = null;
    o.tookFloor = takesFloor(act.kind);
    this.move('cutting_in');
    const atAgentMs = Math.round(bytesToMs(o.bytes));
    void this.sayOver(act, o.id, atAgentMs)
      .catch(() => this.hangUp('mind_error'))
      .finally(() => {
        if (this.state === 'cutting_in') this.move('listening');
      });
  }

  private async sayOver(act: DuplexAct, overUtteranceId: string, atAgentMs: number): Promise<void> {
    const { mouth, outbound } = this.settings;
    const spoken = await mouth.synthesize(act.line);
    const pcm = outbound?.line ? outbound.line(spoken) : spoken;
    this.settings.mind.saidOver?.(act.line);
    await this.sayLine(pcm, act.line, 'pin', act.pin, { act: act.kind, over_utterance_id: overUtteranceId, at_agent_ms: atAgentMs });
  }

  private async answer(utterance: { id: string; pcm: Buffer; answered: boolean }): Promise<void> {
    const { ears, log, mind } = this.settings;
    const turnSeq = log.turns.length;
    this.move('answering');
    const text = ears ? await ears.hear(utterance.pcm, turnSeq) : '';
    log.agent(utterance.id, text, bytesToMs(utterance.pcm.length));
    // After the call ended (or the caller closed) an utterance is only heard, for the record.
    if (this.endReason || this.over) return;
    // An utterance the caller cut in on with a correction or barge-in was answered by that line.
    if (utterance.answered) {
      mind.observe?.(text);
      return;
    }
    if (!this.opened) {
      this.opened = true;
      mind.observe?.(text);
      await this.act(await mind.open());
    } else {
      await this.act(await mind.reply(text));
    }
    this.move('listening');
  }

  private async act(turn: CallerTurn): Promise<void> {
    await this.speak(turn);
    if (!turn.hangUp) return;
    this.endReason ??= turn.hangUp;
    this.timers.cancel('silence');
    if (turn.text && turn.hangUp === 'closing_line') {
      this.move('closing');
      this.armGrace();
    } else this.hangUp(turn.hangUp);
  }

  private async speak(turn: CallerTurn): Promise<void> {
    if (!turn.text) return;
    const { mouth, outbound } = this.settings;
    const spoken = await mouth.synthesize(turn.text);
    const pcm = outbound?.line ? outbound.line(spoken) : spoken;
    this.move('speaking');
    await this.agentQuiet();
    await this.sayLine(pcm, turn.text, turn.source ?? null, turn.pin ?? null, null);
  }

  /** Says one line once the line before it has gone out, and records it (cut short: interrupted). */
  private sayLine(pcm: Buffer, text: string, source: CallerLineSource | null, pin: number | null, duplex: CallerDuplexRecord | null): Promise<void> {
    const { log, ids } = this.settings;
    const run = this.lineTail.then(async () => {
      if (this.over) return;
      const utteranceId = `c_${ids.hex(12)}`;
      const seq = log.caller(utteranceId, text, source, pin, bytesToMs(pcm.length), duplex);
      const completed = await this.player.say(pcm, utteranceId);
      if (!completed) log.interrupted(seq);
    });
    this.lineTail = run.catch(() => undefined);
    return run;
  }
}

/**
 * Plays the caller's audio: paced, a continuous 20 ms stream of hold audio from accept to close with
 * lines spliced in (as Bluejay sends, wire.md §1.8); fast, each line in one burst and no hold
 * audio. Every frame goes through the outbound transform (the audio condition) first.
 */
class LinePlayer {
  private queue: Buffer[] = [];
  private nextDueMs = 0;
  private playing = false;
  private current: ((completed: boolean) => void) | null = null;
  private readonly settings: Pick<LoopSettings, 'paced' | 'clock' | 'outbound'>;
  private readonly timers: LoopTimers;
  private readonly effects: LoopEffects;
  private readonly counted: (bytes: number) => void;

  constructor(settings: Pick<LoopSettings, 'paced' | 'clock' | 'outbound'>, timers: LoopTimers, effects: LoopEffects, counted: (bytes: number) => void) {
    this.settings = settings;
    this.timers = timers;
    this.effects = effects;
    this.counted = counted;
  }

  start(): void {
    if (!this.settings.paced) return;
    this.playing = true;
    this.nextDueMs = this.settings.clock.nowMs();
    this.tick();
  }

  /** Speaks one line; resolves true when it played to its end, false when cut off. */
  say(pcm: Buffer, utteranceId: string): Promise<boolean> {
    this.effects.sendFrame({ type: 'speech.started', utteranceId });
    const finished = (completed: boolean): boolean => {
      this.effects.sendFrame({ type: 'speech.completed', utteranceId });
      return completed;
    };
    if (!this.settings.paced) {
      for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.write(pcm.subarray(i, i + FRAME_BYTES));
      return Promise.resolve(finished(true));
    }
    for (let i = 0; i < pcm.length; i += FRAME_BYTES) this.queue.push(pcm.subarray(i, i + FRAME_BYTES));
    return new Promise((resolve) => (this.current = (completed) => resolve(finished(completed))));
  }

  /** Drops the rest of the line being spoken (the agent barged in). */
  interrupt(): void {
    this.queue = [];
    this.endLine(false);
  }

  stop(): void {
    this.playing = false;
    this.timers.cancel('frame');
    this.endLine(false);
  }

  private endLine(completed: boolean): void {
    const current = this.current;
    this.current = null;
    current?.(completed);
  }

  private tick(): void {
    if (!this.playing) return;
    const { clock } = this.settings;
    while (this.nextDueMs <= clock.nowMs()) {
      const frame = this.queue.shift();
      this.write(frame ?? Buffer.alloc(FRAME_BYTES));
      if (!frame) this.endLine(true);
      this.nextDueMs += FRAME_MS;
    }
    this.timers.arm('frame', Math.max(1, this.nextDueMs - clock.nowMs()), () => this.tick());
  }

  private write(frame: Buffer): void {
    const out = this.settings.outbound ? this.settings.outbound.process(frame) : frame;
    if (this.effects.sendAudio(out)) this.counted(out.length);
  }
}
