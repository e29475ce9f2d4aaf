import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { advisoryVoidReason, type CallRecord, type TimelineEvent } from '../snapshot/index.ts';
import { callFacts, eventFacts, usageClasses } from './call-facts.ts';

/** Why an upgrade was refused (wire.md §5.3 `mivas_upgrade_rejections_total{reason}`). */
export type UpgradeRejection = 'auth' | 'bad_id' | 'duplicate' | 'capacity' | 'draining' | 'refused';

/** Outcome of one Bluejay link (wire.md §5.3): `retried` counts retry attempts, the others one per call. */
export type LinkResult = 'ok' | 'retried' | 'failed' | 'skipped';

/** Live values read at scrape time (never copied, so they cannot go stale). */
export interface MetricSources {
  liveCalls(): number;
  maxCalls(): number;
  isDraining(): boolean;
  snapshotBacklog(): { count: number; oldestMs: number; unspooled?: number; spoolFailures?: number };
  /** Scratch conversations held for the HTTP tool routes, and how many were reaped (optional for older callers). */
  harnessSessions?(): { held: number; reaped: number };
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CALL_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/**
 * The Prometheus metrics of one app (wire.md §5.3) on a private Registry (stack.md: never the
 * global one, so tests can build many apps). Per-call series are derived from the finished
 * call's record at hangup; no label ever carries a call id.
 */
export class MivasMetrics {
  readonly registry = new Registry();
  private readonly callsTotal: Counter<'pack' | 'harness' | 'end_reason'>;
  private readonly rejections: Counter<'reason'>;
  private readonly probes: Counter;
  private readonly callDuration: Histogram<'pack' | 'harness'>;
  private readonly greetingLatency: Histogram<'harness'>;
  private readonly nudges: Counter;
  private readonly voids: Counter<'reason'>;
  private readonly audioBytes: Counter<'direction'>;
  /**
   * CHIRP bytes counted since the last read of mivas_audio_bytes_total: two plain additions per
   * 20 ms frame, folded into the counter when it is collected, instead of a labelled increment
   * (label hashing and a map lookup) on every frame of every call.
   */
  private readonly pendingAudioBytes = { inbound: 0, outbound: 0 };
  private readonly underruns: Counter;
  private readonly clockResets: Counter;
  private readonly frameIntervals: Counter<'off_by'>;
  private readonly bargeIns: Counter<'harness'>;
  private readonly markEcho: Histogram;
  private readonly providerConnect: Histogram<'provider'>;
  private readonly ttft: Histogram<'provider' | 'model'>;
  private readonly rateLimitRemaining: Gauge<'provider' | 'name'>;
  private readonly providerErrors: Counter<'provider' | 'code'>;
  private readonly tokens: Counter<'model' | 'class'>;
  private readonly cost: Counter<'model'>;
  private readonly toolCalls: Counter<'pack' | 'tool' | 'kind' | 'ok'>;
  private readonly toolDuration: Histogram<'pack' | 'kind'>;
  private readonly handoffs: Counter<'pack' | 'from' | 'to'>;
  private readonly handoffsRefused: Counter<'pack'>;
  private readonly uploads: Counter<'result'>;
  private readonly uploadSeconds: Histogram;
  private readonly links: Counter<'result'>;
  private readonly spansDropped: Counter;
  private readonly build: Gauge<'version' | 'node' | 'pack' | 'harness'>;
  private readonly httpTools: Counter<'tool' | 'result'>;

  constructor(sources: MetricSources) {
    const r = [this.registry];
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({ name, help, registers: r, collect() { this.set(read()); } });
    };
    gauge('mivas_calls_active', 'Live (and reserved) calls.', () => sources.liveCalls());
    gauge('mivas_calls_max', 'MIVAS_MAX_CALLS: live calls one process takes.', () => sources.maxCalls());
    gauge('mivas_draining', '1 while the process drains (new upgrades get 503).', () => (sources.isDraining() ? 1 : 0));
    gauge('mivas_snapshot_backlog', 'Snapshot sets spooled and not yet uploaded.', () => sources.snapshotBacklog().count);
    gauge('mivas_harness_sessions', 'Scratch conversations held for the HTTP tool routes (ids never dialed).', () => sources.harnessSessions?.().held ?? 0);
    gauge('mivas_harness_sessions_reaped', 'Scratch conversations reaped after MIVAS_TOOLS_IDLE_S idle since start.', () => sources.harnessSessions?.().reaped ?? 0);
    gauge('mivas_snapshot_oldest_pending_seconds', 'Age of the oldest spooled snapshot set.', () => sources.snapshotBacklog().oldestMs / 1000);
    gauge('mivas_snapshot_unspooled', 'Snapshot sets the spool refused (a full disk), held in memory and retried.', () => sources.snapshotBacklog().unspooled ?? 0);
    gauge('mivas_snapshot_spool_failures', 'Spool writes refused since start; every refused set is kept and retried.', () => sources.snapshotBacklog().spoolFailures ?? 0);
    this.callsTotal = new Counter({ name: 'mivas_calls_total', help: 'Finished calls by end reason.', labelNames: ['pack', 'harness', 'end_reason'], registers: r });
    this.rejections = new Counter({ name: 'mivas_upgrade_rejections_total', help: 'Upgrades refused before 101.', labelNames: ['reason'], registers: r });
    this.probes = new Counter({ name: 'mivas_probes_total', help: '101 probes answered.', registers: r });
    this.callDuration = new Histogram({ name: 'mivas_call_duration_seconds', help: 'Accept to hangup.', labelNames: ['pack', 'harness'], buckets: CALL_BUCKETS, registers: r });
    this.greetingLatency = new Histogram({ name: 'mivas_greeting_latency_seconds', help: 'Accept to the first agent frame.', labelNames: ['harness'], buckets: SECONDS_BUCKETS, registers: r });
    this.nudges = new Counter({ name: 'mivas_greeting_nudges_total', help: 'Greeting nudges sent.', registers: r });
    this.voids = new Counter({ name: 'mivas_void_calls_total', help: 'Calls with an advisory void reason.', labelNames: ['reason'], registers: r });
    const pendingAudio = this.pendingAudioBytes;
    this.audioBytes = new Counter({
      name: 'mivas_audio_bytes_total',
      help: 'CHIRP PCM bytes by direction.',
      labelNames: ['direction'],
      registers: r,
      collect() {
        for (const direction of ['inbound', 'outbound'] as const) {
          if (pendingAudio[direction] > 0) this.inc({ direction }, pendingAudio[direction]);
          pendingAudio[direction] = 0;
        }
      },
    });
    this.underruns = new Counter({ name: 'mivas_pacer_underruns_total', help: 'Outbound pacer stalls.', registers: r });
    this.clockResets = new Counter({ name: 'mivas_pacer_clock_resets_total', help: 'Outbound pacer clock restarts after falling more than 100 ms behind.', registers: r });
    this.frameIntervals = new Counter({ name: 'mivas_pacer_frame_intervals_total', help: 'Paced agent frame intervals past each lead, by distance from 20 ms (within_5ms, over_5ms).', labelNames: ['off_by'], registers: r });
    this.bargeIns = new Counter({ name: 'mivas_barge_ins_total', help: 'Agent utterances cut by the caller.', labelNames: ['harness'], registers: r });
    this.markEcho = new Histogram({ name: 'mivas_mark_echo_seconds', help: "Bluejay's playout lag: a mark sent to its echo.", buckets: SECONDS_BUCKETS, registers: r });
    this.providerConnect = new Histogram({ name: 'mivas_provider_connect_seconds', help: 'Connect start to the provider session being ready.', labelNames: ['provider'], buckets: SECONDS_BUCKETS, registers: r });
    this.ttft = new Histogram({ name: 'mivas_model_ttft_seconds', help: "A response's trigger (request or end of caller speech) to its first audio.", labelNames: ['provider', 'model'], buckets: SECONDS_BUCKETS, registers: r });
    this.rateLimitRemaining = new Gauge({ name: 'mivas_rate_limit_remaining', help: "The provider's latest rate_limits.updated remainders.", labelNames: ['provider', 'name'], registers: r });
    this.providerErrors = new Counter({ name: 'mivas_provider_errors_total', help: 'Provider errors by code.', labelNames: ['provider', 'code'], registers: r });
    this.tokens = new Counter({ name: 'mivas_tokens_total', help: 'Model tokens by price class.', labelNames: ['model', 'class'], registers: r });
    this.cost = new Counter({ name: 'mivas_cost_usd_total', help: 'Estimated model cost.', labelNames: ['model'], registers: r });
    this.toolCalls = new Counter({ name: 'mivas_tool_calls_total', help: 'Tool calls of every kind.', labelNames: ['pack', 'tool', 'kind', 'ok'], registers: r });
    this.toolDuration = new Histogram({ name: 'mivas_tool_duration_seconds', help: 'Tool dispatch to output.', labelNames: ['pack', 'kind'], buckets: SECONDS_BUCKETS, registers: r });
    this.handoffs = new Counter({ name: 'mivas_handoffs_total', help: 'Agent handoffs applied.', labelNames: ['pack', 'from', 'to'], registers: r });
    this.handoffsRefused = new Counter({ name: 'mivas_handoffs_refused_total', help: 'Handoffs refused (undeclared edge).', labelNames: ['pack'], registers: r });
    this.uploads = new Counter({ name: 'mivas_snapshot_uploads_total', help: 'Snapshot upload attempts by result.', labelNames: ['result'], registers: r });
    this.uploadSeconds = new Histogram({ name: 'mivas_snapshot_upload_seconds', help: 'Time to upload one snapshot set.', buckets: SECONDS_BUCKETS, registers: r });
    this.links = new Counter({ name: 'mivas_bluejay_links_total', help: 'update-simulation-result outcomes.', labelNames: ['result'], registers: r });
    this.spansDropped = new Counter({ name: 'mivas_otel_spans_dropped_total', help: 'Spans in exports that failed.', registers: r });
    this.build = new Gauge({ name: 'mivas_build_info', help: 'Always 1; the labels say what runs: mivas version, Node version, pack, harness.', labelNames: ['version', 'node', 'pack', 'harness'], registers: r });
    this.httpTools = new Counter({ name: 'mivas_http_tool_calls_total', help: 'HTTP tool-route requests by result (live, scratch, ended, refused).', labelNames: ['tool', 'result'], registers: r });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Sets mivas_build_info once at start. */
  buildInfo(labels: { version: string; pack: string; harness: string }): void {
    this.build.set({ ...labels, node: process.version }, 1);
  }

  /** One HTTP tool-route request, as it is answered (not at hangup). */
  httpToolCall(tool: string, result: 'live' | 'scratch' | 'ended' | 'refused'): void {
    this.httpTools.inc({ tool, result });
  }

  /** Derives every per-call series from a finished call's record (one hook at hangup). */
  callEnded(record: CallRecord): void {
    const { pack, harness } = { pack: record.pack.id, harness: record.harness };
    const facts = callFacts(record);
    this.callsTotal.inc({ pack, harness, end_reason: record.endReason });
    this.callDuration.observe({ pack, harness }, record.durationMs / 1000);
    if (facts.firstAgentAudioMs !== null) this.greetingLatency.observe({ harness }, facts.firstAgentAudioMs / 1000);
    if (facts.nudges) this.nudges.inc(facts.nudges);
    const voidReason = advisoryVoidReason(record);
    if (voidReason) this.voids.inc({ reason: voidReason });
    if (facts.underruns) this.underruns.inc(facts.underruns);
    if (facts.clockResets) this.clockResets.inc(facts.clockResets);
    if (record.pacing) {
      this.frameIntervals.inc({ off_by: 'within_5ms' }, record.pacing.intervals - record.pacing.offOver5Ms);
      this.frameIntervals.inc({ off_by: 'over_5ms' }, record.pacing.offOver5Ms);
    }
    const model = record.model ?? harness;
    for (const [cls, n] of usageClasses(record.usage)) if (n > 0) this.tokens.inc({ model, class: cls }, n);
    if (record.costUsd !== null && record.costUsd > 0) this.cost.inc({ model }, record.costUsd);
    // `provider` is the harness name, as in mivas_provider_errors_total.
    for (const ms of facts.providerConnectMs) this.providerConnect.observe({ provider: harness }, ms / 1000);
    for (const ms of facts.ttftMs) this.ttft.observe({ provider: harness, model }, ms / 1000);
    for (const ms of facts.markEchoMs) this.markEcho.observe(ms / 1000);
  }

  /**
   * Counts one event of a live call as it is recorded: tool calls and their durations, handoffs
   * (and refused ones), barge-ins and provider errors move during the call, not at its hangup.
   */
  eventRecorded(pack: string, harness: string, event: TimelineEvent): void {
    const facts = eventFacts([event]);
    if (facts.bargeIns) this.bargeIns.inc({ harness }, facts.bargeIns);
    for (const [code, n] of facts.providerErrors) this.providerErrors.inc({ provider: harness, code }, n);
    for (const tool of facts.tools) {
      this.toolCalls.inc({ pack, tool: tool.name, kind: tool.kind, ok: String(tool.ok) });
      this.toolDuration.observe({ pack, kind: tool.kind }, tool.durationMs / 1000);
    }
    for (const h of facts.handoffs) this.handoffs.inc({ pack, from: h.from, to: h.to });
    if (facts.refusedHandoffs) this.handoffsRefused.inc({ pack }, facts.refusedHandoffs);
  }

  /** Sets the rate-limit gauge from a provider's latest report (live, as reports arrive). */
  rateLimitsUpdated(provider: string, limits: readonly { readonly name: string; readonly remaining: number }[]): void {
    for (const { name, remaining } of limits) this.rateLimitRemaining.set({ provider, name }, remaining);
  }

  /** Counts CHIRP PCM bytes (inbound: caller → mivas; outbound: mivas → caller). */
  audio(direction: 'inbound' | 'outbound', bytes: number): void {
    this.pendingAudioBytes[direction] += bytes;
  }

  /** Counts an upgrade refused before 101. */
  upgradeRejected(reason: UpgradeRejection): void {
    this.rejections.inc({ reason });
  }

  /** Counts a 101 probe answered. */
  probeAnswered(): void {
    this.probes.inc();
  }

  /** Counts one snapshot upload attempt; a success observes its duration. */
  snapshotUpload(result: 'ok' | 'failed', durationMs?: number): void {
    this.uploads.inc({ result });
    if (result === 'ok' && durationMs !== undefined) this.uploadSeconds.observe(durationMs / 1000);
  }

  /** Counts a Bluejay link outcome. */
  bluejayLink(result: LinkResult): void {
    this.links.inc({ result });
  }

  /** Counts spans lost in a failed export. */
  spansLost(count: number): void {
    if (count > 0) this.spansDropped.inc(count);
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
