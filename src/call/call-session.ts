import { SampleAligner, StereoRecorder, createResampler, CHIRP_RATE_HZ, type Resampler } from '../audio/index.ts';
import { encodeTextFrame, OutboundPacer, parseTextFrame, type ChirpSocket, type OutboundChirpType } from '../chirp/index.ts';
import type { Clock, IdSource, Log, Timer } from '../core/index.ts';
import { GraphRuntime, type DispatchEffect } from '../graph/index.ts';
import type { Pack } from '../packs/index.ts';
import type { CostEstimator, ModelSession, ProviderFailure } from '../providers/index.ts';
import { emptyUsage, Timeline, type EndReason, type SnapshotOutbox, type Usage } from '../snapshot/index.ts';
import { dumpDatabase, type CallDatabase, type CallDatabases, type DatabaseDump } from '../store/index.ts';
import { snapshotParts, type CallRecord } from './call-snapshot.ts';
import { computeSmoke, countClipping } from './smoke.ts';
import { TurnDriver } from './turn-driver.ts';

/** Caller audio kept while the provider is not ready yet: the newest 30 s. */
const MAX_BUFFERED_INBOUND_BYTES = 30 * 32_000;
/** How often the watchdog loop looks at silence and pings. */
const WATCHDOG_TICK_MS = 1_000;

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
  private readonly aligner = new SampleAligner();
  private readonly pacer: OutboundPacer;
  private readonly abort = new AbortController();
  private database: CallDatabase | null = null;
  private runtime: GraphRuntime | null = null;
  private driver: TurnDriver | null = null;
  private inbound: Resampler | null = null;
  private outbound: Resampler | null = null;
  private providerReady = false;
  private pendingInbound: Buffer[] = [];
  private pendingBytes = 0;
  private lastInboundMs: number;
  private awaitingPong = false;
  private firstAgentAudioMs: number | null = null;
  private clippingEvents = 0;
  private usage: Usage = emptyUsage();
  private timers: Timer[] = [];
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
    this.lastInboundMs = this.acceptedMs;
    this.startedAtEpochMs = ctx.clock.epochMs();
    this.timeline = new Timeline(() => this.mediaMs());
    this.pacer = new OutboundPacer(ctx.clock, this.pacerEffects(), () => `u_${ctx.ids.hex(12)}`, ctx.limits.fast);
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
    return this.runtime;
  }

  /** Starts the call: database, graph, audio pipeline, watchdogs, then the model connection. */
  async start(): Promise<void> {
    const { ctx, identity } = this;
    this.timeline.add({ type: 'call.started', call_id: identity.callId, pack: ctx.pack.id, harness: ctx.harness, task_id: identity.taskId, run_id: identity.runId });
    this.listenToSocket();
    this.startWatchdogs();
    try {
      this.database = ctx.databases.acquire(identity.callId);
      this.runtime = new GraphRuntime(ctx.pack, { pack: ctx.pack, callId: identity.callId, database: this.database, nowMs: () => ctx.clock.nowMs() }, this.timeline);
      this.inbound = await createResampler(CHIRP_RATE_HZ, this.session.inputRateHz);
      this.outbound = await createResampler(this.session.outputRateHz, CHIRP_RATE_HZ);
    } catch (err) {
      ctx.log.error({ err }, 'call setup failed');
      return this.end('internal_error', 1011);
    }
    if (this.ended) return;
    this.driver = new TurnDriver(this.session, this.runtime, this.timeline, this.driverHost(), ctx.clock, {
      retryDelayMs: ctx.limits.nudgeRetryDelayMs,
      maxAttempts: ctx.limits.nudgeMaxAttempts,
    });
    this.driver.attach();
    this.session.events.on('ready', () => this.onProviderReady());
    this.session.events.on('itemInjected', (role, text) => this.timeline.add({ type: 'item.injected', role, text }));
    try {
      await this.session.connect(this.runtime.agentSetup(), this.abort.signal);
    } catch (err) {
      this.fail({ code: 'connect_failed', message: err instanceof Error ? err.message : 'connect failed', fatal: true });
    }
  }

  /** Ends the call once: stop everything, close both sockets, write the snapshot. */
  end(reason: EndReason, closeCode: number | null, callerClosed = false): void {
    if (this.ended) return;
    this.ended = { callId: this.identity.callId, endReason: reason, closeCode };
    this.abort.abort();
    for (const t of this.timers.splice(0)) t.cancel();
    this.driver?.detach();
    this.pacer.dispose();
    if (!callerClosed && this.socket.isOpen()) {
      if (closeCode === 1011) this.sendText('session.error', { code: 'INTERNAL_ERROR', message: reason });
      this.socket.close(closeCode ?? 1000, reason);
    }
    this.session.close().catch((err: unknown) => this.ctx.log.warn({ err }, 'provider close failed'));
    this.timeline.add({ type: 'call.ended', end_reason: reason, close_code: closeCode });
    this.writeSnapshot(this.ended);
    this.inbound?.destroy();
    this.outbound?.destroy();
    this.resolveDone(this.ended);
  }

  private fail(failure: ProviderFailure): void {
    this.ctx.log.warn({ code: failure.code }, 'provider failure ends the call');
    this.end('provider_error', 1011);
  }

  private listenToSocket(): void {
    const ev = this.socket.events;
    ev.on('binary', (chunk) => this.onCallerAudio(chunk));
    ev.on('text', (text) => this.onCallerText(text));
    ev.on('pong', () => {
      this.awaitingPong = false;
    });
    ev.on('close', (code) => this.end('caller_hangup', code, true));
  }

  private onCallerAudio(chunk: Buffer): void {
    if (this.ended) return;
    this.lastInboundMs = this.ctx.clock.nowMs();
    const pcm = this.aligner.write(chunk);
    if (pcm.length === 0) return;
    this.recorder.write('caller', this.mediaMs() - pcm.length / 32, pcm);
    if (this.providerReady && this.inbound) {
      this.session.sendAudio(this.inbound.process(pcm));
      return;
    }
    this.pendingInbound.push(pcm);
    this.pendingBytes += pcm.length;
    while (this.pendingBytes > MAX_BUFFERED_INBOUND_BYTES) this.pendingBytes -= this.pendingInbound.shift()?.length ?? this.pendingBytes;
  }

  private onProviderReady(): void {
    if (this.providerReady || !this.inbound) return;
    this.providerReady = true;
    for (const pcm of this.pendingInbound.splice(0)) this.session.sendAudio(this.inbound.process(pcm));
    this.pendingBytes = 0;
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

  private startWatchdogs(): void {
    const { limits } = this.ctx;
    this.timers.push(this.ctx.clock.setTimer(limits.maxCallMs, () => this.end('max_duration', 1000)));
    this.scheduleTick(this.ctx.clock.nowMs());
  }

  private scheduleTick(lastPingMs: number): void {
    if (this.ended) return;
    this.timers.push(
      this.ctx.clock.setTimer(WATCHDOG_TICK_MS, () => {
        const now = this.ctx.clock.nowMs();
        if (now - this.lastInboundMs >= this.ctx.limits.callerSilenceMs) return this.end('caller_silence', 1000);
        let pingAt = lastPingMs;
        if (now - lastPingMs >= this.ctx.limits.pingIntervalMs) {
          if (this.awaitingPong) {
            this.socket.terminate();
            return this.end('caller_hangup', 1006, true);
          }
          this.awaitingPong = true;
          this.socket.ping();
          pingAt = now;
        }
        this.scheduleTick(pingAt);
      }),
    );
  }

  private sendText(type: OutboundChirpType, data: Record<string, unknown>): void {
    this.socket.sendText(encodeTextFrame(type, data, this.ctx.ids, this.ctx.clock.epochMs()));
  }

  private pacerEffects(): ConstructorParameters<typeof OutboundPacer>[1] {
    return {
      utteranceStarted: (utteranceId) => {
        this.firstAgentAudioMs ??= this.mediaMs();
        this.sendText('speech.started', { utterance_id: utteranceId });
        this.timeline.add({ type: 'speech.started', side: 'agent', utterance_id: utteranceId });
      },
      frame: (pcm, _utteranceId, positionMs) => {
        this.socket.sendBinary(pcm);
        this.clippingEvents += countClipping(pcm);
        this.recorder.write('agent', positionMs - this.acceptedMs, pcm);
      },
      utteranceCompleted: (utteranceId, _itemId, interrupted) => {
        this.sendText('speech.completed', { utterance_id: utteranceId });
        if (!interrupted) this.sendText('mark', { name: utteranceId });
        this.timeline.add({ type: 'speech.completed', side: 'agent', utterance_id: utteranceId, interrupted });
      },
      underrun: (utteranceId, gapMs) => {
        this.timeline.add({ type: 'audio.underrun', utterance_id: utteranceId, gap_ms: Math.round(gapMs) });
      },
    };
  }

  private driverHost(): ConstructorParameters<typeof TurnDriver>[3] {
    return {
      agentAudio: (itemId, pcm) => {
        const resampled = this.outbound?.process(pcm) ?? pcm;
        this.pacer.push(itemId, resampled);
      },
      agentAudioDone: (itemId) => this.pacer.finish(itemId),
      interruptPlayback: () => this.pacer.interrupt(),
      sessionToolFired: (effect) => this.onSessionTool(effect),
      farewellComplete: () => {
        const reason = this.endingReason ?? 'agent_end_call';
        void this.pacer.whenIdle().then(() => this.end(reason, 1000));
      },
      addUsage: (usage) => {
        this.usage = addUsage(this.usage, usage);
      },
      fail: (failure) => this.fail(failure),
    };
  }

  private endingReason: EndReason | null = null;

  private onSessionTool(effect: Extract<DispatchEffect, { kind: 'end_call' | 'human_transfer' }>): void {
    this.endingReason = effect.kind === 'human_transfer' ? 'human_transfer' : 'agent_end_call';
    const reason = this.endingReason;
    this.timers.push(this.ctx.clock.setTimer(this.ctx.limits.endCallMaxWaitMs, () => this.end(reason, 1000)));
  }

  private writeSnapshot(outcome: CallOutcome): void {
    const { ctx, identity } = this;
    const database = this.database;
    if (!database) {
      ctx.log.error({}, 'no database: snapshot skipped');
      return;
    }
    try {
      const dump = dumpDatabase(database.sqlite);
      ctx.databases.release(identity.callId);
      const endMs = this.mediaMs();
      const cost = ctx.estimateCost(this.session.model, this.usage, endMs);
      const record: CallRecord = {
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
          firstAgentAudioMs: this.firstAgentAudioMs,
          toolsExpected: identity.taskId ? (ctx.pack.tasks.get(identity.taskId)?.exp_tool_calls.length ?? 0) > 0 : null,
          traceId: ctx.observer?.traceId ?? null,
          telemetryOn: (ctx.observer?.traceId ?? null) !== null,
          clippingEvents: this.clippingEvents,
        }),
        usage: this.usage,
        costUsd: cost.costUsd,
        priceTableVersion: cost.priceTableVersion,
        traceId: ctx.observer?.traceId ?? null,
      };
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
