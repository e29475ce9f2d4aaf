import { join } from 'node:path';
import { StereoRecorder, CHIRP_RATE_HZ, createResampler, type FinishedRecording } from '../audio/index.ts';
import { decodeCallerFrame, type ChirpSocket } from '../chirp/index.ts';
import type { Config } from '../config.ts';
import type { Clock, IdSource, Log, Timer } from '../core/index.ts';
import { ConversationRun, type Conversation, type DispatchRequest, type DispatchResult } from '../conversation/index.ts';
import type { Pack } from '../packs/index.ts';
import { unpricedNote, type CostEstimator, type ModelSession, type ProviderFailure, type RateLimitReading } from '../providers/index.ts';
import { addUsage, computeSmoke, emptyUsage, snapshotParts, type CallRecord, type EndReason, type Timeline, type Smoke, type SnapshotBody, type SnapshotOutbox, type SnapshotParts, type TimelineEvent, type Usage } from '../snapshot/index.ts';
import type { CallDatabases, DatabaseDump } from '../store/index.ts';
import { AgentAudio } from './agent-audio.ts';
import { CallerInputBudget } from './caller-input.ts';
import { CallWatchdogs } from './call-watchdogs.ts';
import { InboundAudio } from './inbound-audio.ts';
import { inferredHop, listenToPlatform, type PlatformHandoffMode } from './platform-calls.ts';
import { TurnDriver, type TurnDriverHost } from './turn-driver.ts';

/**
 * Limits and timings a call runs under: the part of the configuration a call reads (its meanings
 * are documented on `Config`), so nothing copies the fields one by one.
 */
export type CallLimits = Pick<Config, 'maxCallMs' | 'callerAudioLeadMs' | 'callerSilenceMs' | 'endCallMaxWaitMs' | 'nudgeRetryDelayMs' | 'nudgeMaxAttempts' | 'pingIntervalMs' | 'providerReadyMs' | 'fast'>;

/** What a call needs from the app (architecture.md convention 11). */
export interface CallContext {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly log: Log;
  readonly limits: CallLimits;
  readonly pack: Pack;
  readonly templateDump: DatabaseDump;
  readonly databases: CallDatabases;
  readonly outbox: SnapshotOutbox;
  /** Where the call's recording streams to disk as it grows (`<dir>/<call_id>.wav`); absent: it is held in memory. */
  readonly recordingsDir?: string;
  readonly harness: string;
  /** Prices the call's usage on its model at hangup; no provider names here (architecture.md convention 2). */
  readonly estimateCost: CostEstimator;
  /** Telemetry and the Bluejay link, attached by the app; the call only reports to it. */
  readonly observer?: CallObserver;
  /** How transfers a platform made on its own side are taken (relays; default `enforce`). */
  readonly platformHandoffs?: PlatformHandoffMode;
}

/** What the app watches of a call (metrics, spans, the Bluejay link); none of that logic lives here. */
export interface CallObserver {
  /** The trace id the call's spans will carry (minted at accept), or null when tracing is off. */
  readonly traceId: string | null;
  /** Called once at hangup with the finished record, after its snapshot is spooled. */
  callEnded(record: CallRecord): void;
  /** Each timeline event as it is recorded (live counters: tools, handoffs, barge-ins, provider errors). */
  eventRecorded?(event: TimelineEvent): void;
  /** The provider's latest rate-limit report, as it arrives (a live gauge, not a per-call figure). */
  rateLimitsUpdated(harness: string, limits: readonly RateLimitReading[]): void;
}

/** The call's identity as accepted at upgrade. */
export interface CallIdentity {
  readonly callId: string;
  readonly runId: string | null;
  readonly taskId: string | null;
}

/** A finished call's outcome, for the registry and the local caller's summary. */
export interface CallOutcome {
  readonly callId: string;
  readonly endReason: EndReason;
  readonly closeCode: number | null;
}

/** A caller that flooded is sent close 1008 and dropped this long after if it does not close. */
const FLOOD_GRACE_MS = 1_000;

/**
 * One CHIRP call from accept to snapshot: bridges caller audio to the model session, paces agent
 * audio back, runs the graph through the turn driver, watches limits, and at the end freezes the
 * evidence into the outbox. Every timer and listener is torn down in end().
 */
export class CallSession {
  readonly timeline: Timeline;
  /** The conversation, its ending rules and its timeline (architecture.md §20). */
  private readonly run: ConversationRun;
  private readonly acceptedMs: number;
  private readonly startedAtEpochMs: number;
  private readonly recorder: StereoRecorder;
  private readonly input: CallerInputBudget;
  private readonly inbound: InboundAudio;
  private readonly agent: AgentAudio;
  private readonly watchdogs: CallWatchdogs;
  private readonly abort = new AbortController();
  private driver: TurnDriver | null = null;
  /** Set once the provider is ready; until then the ready deadline runs (after connect). */
  private providerReady = false;
  private readyDeadline: Timer | null = null;
  /** Why the conversation failed (setup, a rejected timeline event, a dump error); ends it with internal_error. */
  private fault: string | null = null;
  /** Why the caller's input ended the call (caller_flood). */
  private floodDetail: string | null = null;
  private usage: Usage = emptyUsage();
  private stopPlatform: () => void = () => undefined;
  private ended: CallOutcome | null = null;
  private readonly done: Promise<CallOutcome>;
  private resolveDone: (outcome: CallOutcome) => void = () => undefined;

  private readonly ctx: CallContext;
  readonly identity: CallIdentity;
  private readonly socket: ChirpSocket;
  private readonly session: ModelSession;

  constructor(
    ctx: CallContext,
    identity: CallIdentity,
    socket: ChirpSocket,
    session: ModelSession,
  ) {
    this.ctx = ctx;
    this.identity = identity;
    this.socket = socket;
    this.session = session;
    this.acceptedMs = ctx.clock.nowMs();
    this.startedAtEpochMs = ctx.clock.epochMs();
    this.run = new ConversationRun({
      pack: ctx.pack,
      id: identity.callId,
      databases: ctx.databases,
      clock: ctx.clock,
      originMs: this.acceptedMs,
      harness: ctx.harness,
      taskId: identity.taskId,
      runId: identity.runId,
      onInvalidEvent: (reason) => this.internalFault(reason),
    });
    this.timeline = this.run.timeline;
    const observer = ctx.observer;
    if (observer?.eventRecorded) this.timeline.onRecorded = (event) => observer.eventRecorded?.(event);
    this.recorder = new StereoRecorder(ctx.recordingsDir ? { path: join(ctx.recordingsDir, `${identity.callId}.wav`) } : null);
    this.input = new CallerInputBudget(ctx.clock, { audioLeadMs: ctx.limits.callerAudioLeadMs, maxCallMs: ctx.limits.maxCallMs, fast: ctx.limits.fast });
    this.inbound = new InboundAudio(ctx.clock, this.recorder, (pcm) => session.sendAudio(pcm));
    this.agent = new AgentAudio({ clock: ctx.clock, ids: ctx.ids, socket, timeline: this.timeline, recorder: this.recorder, acceptedMs: this.acceptedMs, fast: ctx.limits.fast });
    this.watchdogs = new CallWatchdogs(ctx.clock, ctx.limits, {
      lastCallerFrameMs: () => this.inbound.lastFrameAtMs(),
      ping: () => socket.ping(),
      terminate: () => socket.terminate(),
      end: (reason, code, callerClosed) => this.end(reason, code, callerClosed),
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Resolves when the call has ended and its snapshot is spooled (or, if the spool refused it, held by the outbox). */
  finished(): Promise<CallOutcome> {
    return this.done;
  }

  /** Milliseconds since the socket was accepted: the media clock of timeline and WAV. */
  mediaMs(): number {
    return this.run.mediaMs();
  }

  /**
   * A tool call from an external harness over HTTP (architecture.md §16): dispatched by this call's
   * run like the model's own, recorded with origin `http`, its next step applied here. An HTTP
   * session tool that starts the ending closes the call once what is queued has played; one that
   * arrives while the model's farewell is under way changes nothing (the first ending wins).
   * Null once the call has ended or before its conversation exists.
   */
  dispatchFromHarness(request: Omit<DispatchRequest, 'origin'>, origin: NonNullable<DispatchRequest['origin']> = 'http'): DispatchResult | null {
    if (this.ended || !this.driver) return null;
    const conversation = this.run.conversationOrNull();
    const hop = conversation && this.ctx.platformHandoffs === 'observe' && origin !== 'inferred' ? inferredHop(conversation, request.name) : null;
    if (hop) this.dispatchFromHarness(hop, 'inferred');
    const { result, next } = this.run.dispatch({ ...request, origin });
    if (next.kind === 'handoff') this.session.applyAgent(next.setup);
    if (next.kind === 'farewell') {
      this.capFarewell();
      void this.agent.whenPlayed().then(() => this.end(next.reason, 1000));
    }
    return result;
  }

  /** The id the platform under test knows this call by (a relay's), or null. */
  platformCallId(): string | null {
    return this.session.platformCallId ?? null;
  }

  /** The relay's agent hung up: recorded, and the call ends once what it said has played (as the agent's ending unless already ending otherwise). */
  private agentHungUp(): void {
    if (this.ended) return;
    this.timeline.add({ type: 'agent.hangup' });
    void this.agent.whenPlayed().then(() => this.end('agent_end_call', 1000));
  }

  /** The call's conversation while it is open (for the state route). */
  conversationOrNull(): Conversation | null {
    return this.run.conversationOrNull();
  }

  /** True once the call has ended. */
  hasEnded(): boolean {
    return this.ended !== null;
  }

  /** Starts the call: database, graph, audio pipeline, watchdogs, then the model connection. */
  async start(): Promise<void> {
    const { ctx } = this;
    // Subscribing only: no socket event can arrive before call.started is recorded below.
    this.listenToSocket();
    this.watchdogs.start();
    let conversation: Conversation;
    try {
      conversation = this.run.start();
      const tools = { dispatch: (request: DispatchRequest) => this.run.dispatch(request).result, agentSetup: (agent: string) => conversation.agentSetup(agent) };
      this.driver = new TurnDriver(this.session, tools, this.timeline, this.driverHost(), ctx.clock, { retryDelayMs: ctx.limits.nudgeRetryDelayMs, maxAttempts: ctx.limits.nudgeMaxAttempts });
      this.inbound.useResampler(createResampler(CHIRP_RATE_HZ, this.session.inputRateHz));
      this.agent.useResampler(createResampler(this.session.outputRateHz, CHIRP_RATE_HZ));
    } catch (err) {
      ctx.log.error({ err }, 'call setup failed');
      this.fault = `setup failed: ${err instanceof Error ? err.message : String(err)}`;
      return this.end('internal_error', 1011);
    }
    if (this.ended) return;
    this.driver.attach();
    this.stopPlatform = listenToPlatform(this.session.events, {
      isEnding: () => this.ended !== null || this.run.pendingEnding() !== null,
      dispatch: (request, origin) => this.dispatchFromHarness(request, origin),
      agentHungUp: () => this.agentHungUp(),
    });
    const connectStartMs = ctx.clock.nowMs();
    this.session.events.on('ready', () => this.onProviderReady(connectStartMs));
    this.session.events.on('itemInjected', (role, text) => this.timeline.add({ type: 'item.injected', role, text }));
    this.session.events.on('rateLimits', (limits) => ctx.observer?.rateLimitsUpdated(ctx.harness, limits));
    try {
      await this.session.connect(conversation.agentSetup(), this.abort.signal);
    } catch (err) {
      return this.fail({ code: 'connect_failed', message: err instanceof Error ? err.message : 'connect failed', fatal: true });
    }
    this.awaitReady();
  }

  /**
   * A provider that took the connection but never confirms its setup (no first session.updated,
   * no error either) would leave the call waiting for the caller to hang up: past the ready
   * deadline the call ends provider_error, with the reason on the timeline.
   */
  private awaitReady(): void {
    if (this.ended || this.providerReady) return;
    const limitMs = this.ctx.limits.providerReadyMs;
    this.readyDeadline = this.ctx.clock.setTimer(limitMs, () => {
      if (this.ended || this.providerReady) return;
      const failure: ProviderFailure = { code: 'provider_not_ready', message: `the provider did not confirm its session setup within ${limitMs / 1000} s`, fatal: true };
      this.timeline.add({ type: 'provider.error', ...failure });
      this.fail(failure);
    });
  }

  /**
   * Ends the call once: stop everything, close any agent utterance still open (its
   * speech.completed goes out before the close), close both sockets, write the snapshot.
   */
  end(requested: EndReason, closeCode: number | null, callerClosed = false): void {
    if (this.ended) return;
    // The first ending wins (src/conversation/conversation-run.ts); a fault of ours overrides it.
    const reason = this.run.end(this.fault ? 'internal_error' : requested);
    this.ended = { callId: this.identity.callId, endReason: reason, closeCode };
    this.abort.abort();
    this.watchdogs.stop();
    this.readyDeadline?.cancel();
    this.driver?.detach();
    this.stopPlatform();
    const writable = !callerClosed && this.socket.isOpen();
    this.agent.closeOpenUtterances(writable);
    this.agent.dispose();
    if (writable) {
      if (closeCode === 1011) this.agent.sendText('session.error', { code: 'INTERNAL_ERROR', message: reason });
      this.socket.close(closeCode ?? 1000, reason);
    }
    this.session.close().catch((err: unknown) => this.ctx.log.warn({ err }, 'provider close failed'));
    const closed = this.closeConversation();
    if (this.fault && this.ended.endReason !== 'internal_error') this.ended = { ...this.ended, endReason: 'internal_error' };
    this.run.end(this.ended.endReason);
    this.run.recordEnd(closeCode);
    this.inbound.dispose();
    const outcome = this.ended;
    void this.writeSnapshot(outcome, closed).then(() => this.resolveDone(outcome));
  }

  private onProviderReady(connectStartMs: number): void {
    if (this.ended) return;
    this.providerReady = true;
    this.readyDeadline?.cancel();
    this.timeline.add({ type: 'provider.ready', connect_ms: Math.round((this.ctx.clock.nowMs() - connectStartMs) * 10) / 10 });
    this.inbound.markReady();
  }

  /** A fault of our own (a timeline event the schema refused): the call ends with internal_error. */
  private internalFault(reason: string): void {
    this.ctx.log.error({ reason }, 'internal fault ends the call');
    this.fault ??= reason;
    queueMicrotask(() => this.end('internal_error', 1011));
  }

  /** Dumps and closes the conversation's database; a failure is recorded as the call's fault. */
  private closeConversation(): { final: DatabaseDump; db: Buffer } | null {
    if (!this.run.conversationOrNull()) return null;
    try {
      return this.run.close();
    } catch (err) {
      this.ctx.log.error({ err }, 'conversation dump failed');
      this.fault ??= `database dump failed: ${err instanceof Error ? err.message : String(err)}`;
      this.ctx.databases.remove(this.identity.callId);
      return null;
    }
  }

  private fail(failure: ProviderFailure): void {
    this.ctx.log.warn({ code: failure.code }, 'provider failure ends the call');
    this.end('provider_error', 1011);
  }

  /**
   * The caller's input broke its budget (src/call/caller-input.ts): stop reading (TCP back-pressure
   * holds the rest at the sender), end with caller_flood and close 1008, and drop the peer if it
   * does not close within a second.
   */
  private flooded(detail: string): void {
    this.ctx.log.warn({ detail }, 'caller flood ends the call');
    this.floodDetail = detail;
    this.socket.pause();
    this.end('caller_flood', 1008);
    this.ctx.clock.setTimer(FLOOD_GRACE_MS, () => this.socket.terminate());
  }

  private listenToSocket(): void {
    const ev = this.socket.events;
    ev.on('binary', (chunk) => {
      if (this.ended) return;
      const flood = this.input.audio(chunk.length);
      if (flood) return this.flooded(flood);
      this.inbound.write(chunk, this.mediaMs());
    });
    ev.on('text', (text) => this.onCallerText(text));
    ev.on('pong', () => this.watchdogs.pong());
    ev.on('close', (code) => this.end('caller_hangup', code, true));
  }

  private onCallerText(text: string): void {
    if (this.ended) return;
    const flood = this.input.text();
    if (flood) return this.flooded(flood);
    const parsed = decodeCallerFrame(text);
    if (!parsed.ok) {
      this.timeline.add({ type: 'frame.ignored', reason: parsed.reason });
      return;
    }
    const event = parsed.frame;
    const utteranceId = 'utteranceId' in event ? (event.utteranceId ?? `c_${this.ctx.ids.hex(12)}`) : '';
    switch (event.type) {
      case 'speech.started':
        this.run.speechStarted('caller', utteranceId);
        return this.session.callerSpeech('started');
      case 'speech.completed':
        this.run.speechCompleted('caller', utteranceId);
        return this.session.callerSpeech('completed');
      case 'mark':
        this.timeline.add({ type: 'mark.echo', name: event.name });
        return;
      case 'session.error':
        this.ctx.log.warn({ code: event.code }, 'caller reported a session error');
        this.timeline.add({ type: 'frame.ignored', reason: `caller_session_error:${event.code}` });
        return;
    }
  }

  private driverHost(): TurnDriverHost {
    return {
      agentAudio: (itemId, pcm) => this.agent.push(itemId, pcm),
      agentAudioDone: (itemId) => this.agent.finish(itemId),
      interruptPlayback: () => this.agent.interrupt(),
      sessionToolFired: () => this.capFarewell(),
      farewellComplete: () => {
        const reason = this.run.pendingEnding() ?? 'agent_end_call';
        // Close once the farewell has played at the caller, not when its last frame left (up to 200 ms early).
        void this.agent.whenPlayed().then(() => this.end(reason, 1000));
      },
      addUsage: (usage) => {
        this.usage = addUsage(this.usage, usage);
      },
      fail: (failure) => this.fail(failure),
    };
  }

  /** The ending began (the run holds its reason): the farewell may take at most the cap. */
  private capFarewell(): void {
    this.watchdogs.endAfter(this.ctx.limits.endCallMaxWaitMs, this.run.pendingEnding() ?? 'agent_end_call');
  }

  /** The facts of the call that need no computation: who, when, how it ended. */
  private recordBase(outcome: CallOutcome, endMs: number): Pick<CallRecord, 'pack' | 'callId' | 'runId' | 'taskId' | 'harness' | 'model' | 'startedAtEpochMs' | 'endedAtEpochMs' | 'durationMs' | 'endReason' | 'closeCode' | 'usage'> {
    const { ctx, identity } = this;
    return {
      pack: ctx.pack,
      ...identity,
      harness: ctx.harness,
      model: this.session.model,
      startedAtEpochMs: this.startedAtEpochMs,
      endedAtEpochMs: ctx.clock.epochMs(),
      durationMs: endMs,
      endReason: outcome.endReason,
      closeCode: outcome.closeCode,
      usage: this.usage,
    };
  }

  private buildRecord(outcome: CallOutcome, endMs: number): CallRecord {
    const { ctx, identity } = this;
    const cost = ctx.estimateCost(this.session.model, this.usage, endMs);
    const traceId = ctx.observer?.traceId ?? null;
    const task = identity.taskId ? ctx.pack.tasks.get(identity.taskId) : undefined;
    return {
      ...this.recordBase(outcome, endMs),
      endDetail: this.fault ?? this.floodDetail,
      // A copy: the record is the call as it ended, whatever is added to the timeline later.
      events: [...this.timeline.events()],
      truncation: this.timeline.truncation(),
      smoke: computeSmoke({
        events: this.timeline.events(),
        endMs,
        firstAgentAudioMs: this.agent.firstAudioMs(),
        toolsExpected: identity.taskId ? (task?.exp_tool_calls.length ?? 0) > 0 : null,
        traceId,
        telemetryOn: traceId !== null,
        clippingEvents: this.agent.clippingEvents(),
      }),
      costUsd: cost.costUsd,
      costNote: unpricedNote(this.session.model),
      priceTableVersion: cost.priceTableVersion,
      traceId,
      pacing: this.agent.pacing(),
    };
  }

  /**
   * Freezes the evidence into the outbox. A set is always written: when the conversation never
   * got a database or its dump failed, the template stands in for its rows; when assembling the
   * full set fails, a minimal one (start and end events, internal_error and the reason) is. The
   * outbox hears of the set at once (so a flush waits for it); the recording's last blocks and
   * the spool writes are asynchronous, so no other call's pacer waits on this hangup.
   */
  private async writeSnapshot(outcome: CallOutcome, closed: { final: DatabaseDump; db: Buffer } | null): Promise<void> {
    const { ctx, identity } = this;
    const assembled = this.assemble(outcome, closed);
    try {
      const [{ record }, where] = await Promise.all([assembled, ctx.outbox.store(ctx.pack.id, identity.callId, assembled.then((a) => a.parts))]);
      if (where === 'held') ctx.log.error({ callId: identity.callId }, 'the spool refused the snapshot: it is held in memory and written again when space returns (see /health snapshot_unspooled)');
      ctx.observer?.callEnded(record);
    } catch (err) {
      ctx.log.error({ err }, 'minimal snapshot failed too: the call has no snapshot');
    }
  }

  /** The record and the five parts (the WAV as the recorder's file, once its last blocks are written). */
  private async assemble(outcome: CallOutcome, closed: { final: DatabaseDump; db: Buffer } | null): Promise<{ record: CallRecord; parts: SnapshotParts }> {
    const { ctx } = this;
    const final = closed?.final ?? ctx.templateDump;
    const db = closed?.db ?? ctx.databases.templateBytes();
    const endMs = this.mediaMs();
    let record: CallRecord | null = null;
    let failure: unknown = null;
    try {
      record = this.buildRecord(outcome, endMs);
    } catch (err) {
      failure = err;
    }
    const wav = wavBody(await this.recorder.finish(endMs));
    if (record) {
      try {
        return { record, parts: snapshotParts(record, final, ctx.templateDump, db, wav).parts };
      } catch (err) {
        failure = err;
      }
    }
    ctx.log.error({ err: failure }, 'snapshot assembly failed: writing a minimal set');
    const minimal = this.minimalRecord(outcome, endMs, `snapshot assembly failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    return { record: minimal, parts: snapshotParts(minimal, final, ctx.templateDump, db, wav).parts };
  }

  /** The record of a call whose full evidence could not be assembled: its start and end only, no computed facts. */
  private minimalRecord(outcome: CallOutcome, endMs: number, detail: string): CallRecord {
    const first = this.timeline.events()[0];
    const ended = { seq: 1, at_ms: Math.max(0, Math.round(endMs)), type: 'call.ended' as const, end_reason: 'internal_error' as const, close_code: outcome.closeCode };
    return {
      ...this.recordBase({ ...outcome, endReason: 'internal_error' }, endMs),
      endDetail: [this.fault, detail].filter(Boolean).join('; '),
      events: first ? [first, ended] : [],
      smoke: FAILED_SMOKE,
      costUsd: null,
      priceTableVersion: null,
      traceId: this.ctx.observer?.traceId ?? null,
      pacing: null,
    };
  }
}

/** The smoke rubric of a call whose evidence could not be assembled: nothing checked, nothing passed. */
const FAILED_SMOKE: Smoke = {
  both_sides_spoke: false,
  tools_recorded: false,
  trace_id_present: null,
  dead_air_max_s: 0,
  dead_air_ok: false,
  outbound_dropouts: 0,
  clipping_events: 0,
  clean_audio: false,
  first_agent_audio_ms: null,
  first_audio_ok: false,
  pass: false,
};

function wavBody(recording: FinishedRecording): SnapshotBody {
  return recording.kind === 'file' ? { file: recording.path } : recording.wav;
}
