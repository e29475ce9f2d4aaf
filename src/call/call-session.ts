import { StereoRecorder, CHIRP_RATE_HZ, createResampler } from '../audio/index.ts';
import { parseTextFrame, type ChirpSocket } from '../chirp/index.ts';
import type { Clock, IdSource, Log } from '../core/index.ts';
import { GraphRuntime } from '../graph/index.ts';
import type { Pack } from '../packs/index.ts';
import type { CostEstimator, ModelSession, ProviderFailure, RateLimitReading } from '../providers/index.ts';
import { emptyUsage, Timeline, type EndReason, type SnapshotOutbox, type Usage } from '../snapshot/index.ts';
import { dumpDatabase, type CallDatabase, type CallDatabases, type DatabaseDump } from '../store/index.ts';
import { snapshotParts, type CallRecord } from './call-snapshot.ts';
import { AgentAudio } from './agent-audio.ts';
import { CallWatchdogs } from './call-watchdogs.ts';
import { InboundAudio } from './inbound-audio.ts';
import { computeSmoke } from './smoke.ts';
import { TurnDriver, type SessionToolEffect, type TurnDriverHost } from './turn-driver.ts';

/** Limits and timings a call runs under (from configuration). */
export interface CallLimits {
  readonly maxCallMs: number;
  readonly callerSilenceMs: number;
  readonly endCallMaxWaitMs: number;
  readonly nudgeRetryDelayMs: number;
  readonly nudgeMaxAttempts: number;
  readonly pingIntervalMs: number;
  readonly fast: boolean;
}

/** What a call needs from the app (style rule 11). */
export interface CallContext {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly log: Log;
  readonly limits: CallLimits;
  readonly pack: Pack;
  readonly templateDump: DatabaseDump;
  readonly databases: CallDatabases;
  readonly outbox: SnapshotOutbox;
  readonly harness: string;
  /** Prices the call's usage on its model at hangup; no provider names here (style rule 2). */
  readonly estimateCost: CostEstimator;
  /** Telemetry and the Bluejay link, attached by the app; the call only reports to it. */
  readonly observer?: CallObserver;
}

/** What the app watches of a call (metrics, spans, the Bluejay link); none of that logic lives here. */
export interface CallObserver {
  /** The trace id the call's spans will carry (minted at accept), or null when tracing is off. */
  readonly traceId: string | null;
  /** Called once at hangup with the finished record, after its snapshot is spooled. */
  callEnded(record: CallRecord): void;
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

/**
 * One CHIRP call from accept to snapshot: bridges caller audio to the model session, paces agent
 * audio back, runs the graph through the turn driver, watches limits, and at the end freezes the
 * evidence into the outbox. Every timer and listener is torn down in end().
 */
export class CallSession {
  readonly timeline: Timeline;
  private readonly acceptedMs: number;
  private readonly startedAtEpochMs: number;
  private readonly recorder = new StereoRecorder();
  private readonly inbound: InboundAudio;
  private readonly agent: AgentAudio;
  private readonly watchdogs: CallWatchdogs;
  private readonly abort = new AbortController();
  private graph: { runtime: GraphRuntime; database: CallDatabase; driver: TurnDriver } | null = null;
  private usage: Usage = emptyUsage();
  private endingReason: EndReason | null = null;
  private ended: CallOutcome | null = null;
  private readonly done: Promise<CallOutcome>;
  private resolveDone: (outcome: CallOutcome) => void = () => undefined;

  constructor(
    private readonly ctx: CallContext,
    readonly identity: CallIdentity,
    private readonly socket: ChirpSocket,
    private readonly session: ModelSession,
  ) {
    this.acceptedMs = ctx.clock.nowMs();
    this.startedAtEpochMs = ctx.clock.epochMs();
    this.timeline = new Timeline(() => this.mediaMs());
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

  /** Resolves when the call has ended and its snapshot is spooled. */
  finished(): Promise<CallOutcome> {
    return this.done;
  }

  /** Milliseconds since the socket was accepted: the media clock of timeline and WAV. */
  mediaMs(): number {
    return this.ctx.clock.nowMs() - this.acceptedMs;
  }

  /** The active agent (for HTTP tool calls on a live call). */
  runtimeOrNull(): GraphRuntime | null {
    return this.graph?.runtime ?? null;
  }

  /** Starts the call: database, graph, audio pipeline, watchdogs, then the model connection. */
  async start(): Promise<void> {
    const { ctx, identity } = this;
    this.timeline.add({ type: 'call.started', call_id: identity.callId, pack: ctx.pack.id, harness: ctx.harness, task_id: identity.taskId, run_id: identity.runId });
    this.listenToSocket();
    this.watchdogs.start();
    let runtime: GraphRuntime;
    try {
      const database = ctx.databases.acquire(identity.callId);
      runtime = new GraphRuntime(ctx.pack, { pack: ctx.pack, callId: identity.callId, database, nowMs: () => ctx.clock.nowMs() }, this.timeline);
      const driver = new TurnDriver(this.session, runtime, this.timeline, this.driverHost(), ctx.clock, { retryDelayMs: ctx.limits.nudgeRetryDelayMs, maxAttempts: ctx.limits.nudgeMaxAttempts });
      this.graph = { runtime, database, driver };
      this.inbound.useResampler(createResampler(CHIRP_RATE_HZ, this.session.inputRateHz));
      this.agent.useResampler(createResampler(this.session.outputRateHz, CHIRP_RATE_HZ));
    } catch (err) {
      ctx.log.error({ err }, 'call setup failed');
      return this.end('internal_error', 1011);
    }
    if (this.ended) return;
    this.graph.driver.attach();
    const connectStartMs = ctx.clock.nowMs();
    this.session.events.on('ready', () => this.onProviderReady(connectStartMs));
    this.session.events.on('itemInjected', (role, text) => this.timeline.add({ type: 'item.injected', role, text }));
    this.session.events.on('rateLimits', (limits) => ctx.observer?.rateLimitsUpdated(ctx.harness, limits));
    try {
      await this.session.connect(runtime.agentSetup(), this.abort.signal);
    } catch (err) {
      this.fail({ code: 'connect_failed', message: err instanceof Error ? err.message : 'connect failed', fatal: true });
    }
  }

  /**
   * Ends the call once: stop everything, close any agent utterance still open (its
   * speech.completed goes out before the close), close both sockets, write the snapshot.
   */
  end(reason: EndReason, closeCode: number | null, callerClosed = false): void {
    if (this.ended) return;
    this.ended = { callId: this.identity.callId, endReason: reason, closeCode };
    this.abort.abort();
    this.watchdogs.stop();
    this.graph?.driver.detach();
    const writable = !callerClosed && this.socket.isOpen();
    this.agent.closeOpenUtterances(writable);
    this.agent.dispose();
    if (writable) {
      if (closeCode === 1011) this.agent.sendText('session.error', { code: 'INTERNAL_ERROR', message: reason });
      this.socket.close(closeCode ?? 1000, reason);
    }
    this.session.close().catch((err: unknown) => this.ctx.log.warn({ err }, 'provider close failed'));
    this.timeline.add({ type: 'call.ended', end_reason: reason, close_code: closeCode });
    this.writeSnapshot(this.ended);
    this.inbound.dispose();
    this.resolveDone(this.ended);
  }

  private onProviderReady(connectStartMs: number): void {
    if (this.ended) return;
    this.timeline.add({ type: 'provider.ready', connect_ms: Math.round((this.ctx.clock.nowMs() - connectStartMs) * 10) / 10 });
    this.inbound.markReady();
  }

  private fail(failure: ProviderFailure): void {
    this.ctx.log.warn({ code: failure.code }, 'provider failure ends the call');
    this.end('provider_error', 1011);
  }

  private listenToSocket(): void {
    const ev = this.socket.events;
    ev.on('binary', (chunk) => {
      if (!this.ended) this.inbound.write(chunk, this.mediaMs());
    });
    ev.on('text', (text) => this.onCallerText(text));
    ev.on('pong', () => this.watchdogs.pong());
    ev.on('close', (code) => this.end('caller_hangup', code, true));
  }

  private onCallerText(text: string): void {
    if (this.ended) return;
    const parsed = parseTextFrame(text);
    if (!parsed.ok) {
      this.timeline.add({ type: 'frame.ignored', reason: parsed.reason });
      return;
    }
    const event = parsed.event;
    const utteranceId = 'utteranceId' in event ? (event.utteranceId ?? `c_${this.ctx.ids.hex(12)}`) : '';
    switch (event.type) {
      case 'speech.started':
        this.timeline.add({ type: 'speech.started', side: 'caller', utterance_id: utteranceId });
        return this.session.callerSpeech('started');
      case 'speech.completed':
        this.timeline.add({ type: 'speech.completed', side: 'caller', utterance_id: utteranceId, interrupted: false });
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
      sessionToolFired: (effect) => this.onSessionTool(effect),
      farewellComplete: () => {
        const reason = this.endingReason ?? 'agent_end_call';
        // Close once the farewell has played at the caller, not when its last frame left (up to 200 ms early).
        void this.agent.whenPlayed().then(() => this.end(reason, 1000));
      },
      addUsage: (usage) => {
        this.usage = addUsage(this.usage, usage);
      },
      fail: (failure) => this.fail(failure),
    };
  }

  private onSessionTool(effect: SessionToolEffect): void {
    this.endingReason = effect.kind === 'human_transfer' ? 'human_transfer' : 'agent_end_call';
    this.watchdogs.endAfter(this.ctx.limits.endCallMaxWaitMs, this.endingReason);
  }

  private buildRecord(outcome: CallOutcome, endMs: number): CallRecord {
    const { ctx, identity } = this;
    const cost = ctx.estimateCost(this.session.model, this.usage, endMs);
    const traceId = ctx.observer?.traceId ?? null;
    const task = identity.taskId ? ctx.pack.tasks.get(identity.taskId) : undefined;
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
      events: this.timeline.events(),
      smoke: computeSmoke({
        events: this.timeline.events(),
        endMs,
        firstAgentAudioMs: this.agent.firstAudioMs(),
        toolsExpected: identity.taskId ? (task?.exp_tool_calls.length ?? 0) > 0 : null,
        traceId,
        telemetryOn: traceId !== null,
        clippingEvents: this.agent.clippingEvents(),
      }),
      usage: this.usage,
      costUsd: cost.costUsd,
      priceTableVersion: cost.priceTableVersion,
      traceId,
      pacing: this.agent.pacing(),
    };
  }

  private writeSnapshot(outcome: CallOutcome): void {
    const { ctx, identity } = this;
    const database = this.graph?.database ?? null;
    if (!database) {
      ctx.log.error({}, 'no database: snapshot skipped');
      return;
    }
    try {
      const dump = dumpDatabase(database.sqlite);
      ctx.databases.release(identity.callId);
      const endMs = this.mediaMs();
      const record = this.buildRecord(outcome, endMs);
      const { parts } = snapshotParts(record, dump, ctx.templateDump, database.file, this.recorder.toWav(endMs));
      ctx.outbox.store(ctx.pack.id, identity.callId, parts);
      ctx.databases.remove(identity.callId);
      ctx.observer?.callEnded(record);
    } catch (err) {
      ctx.log.error({ err }, 'snapshot assembly failed');
    }
  }
}

/** Sums two usage records class by class. */
export function addUsage(a: Usage, b: Usage): Usage {
  const out = { ...a };
  for (const key of Object.keys(out) as (keyof Usage)[]) out[key] = a[key] + b[key];
  return out;
}
