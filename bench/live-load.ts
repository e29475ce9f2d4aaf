/**
 * The live-call load process (pinned to the core the server does not use): the realtime provider
 * stand-in and N local CHIRP callers, driven over IPC by bench/live-bench.ts. Callers and the
 * stand-in share one clock, so the relay latency of caller audio (the caller's first speech frame
 * leaving → the stand-in seeing it audible in an input_audio_buffer.append) is measured directly.
 * Every run is bounded by its duration plus fixed timeouts. Loopback only.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CallerTicker, callerSpeech, LoadCaller } from './live-callers.ts';
import { LoadProvider, type ProviderOptions } from './live-provider.ts';
import { percentAbove, summarize, type LatencySummary } from './stats.ts';

/** A step the orchestrator asks for. */
export interface RunCommand {
  readonly cmd: 'run';
  readonly url: string;
  readonly calls: number;
  readonly durationMs: number;
  readonly runId: string;
  readonly idPrefix: string;
}

/** What one step measured at the callers and the stand-in. */
export interface LoadResult {
  readonly calls: number;
  readonly callsUp: number;
  readonly callIds: string[];
  readonly jitter: LatencySummary;
  /** Percent of frame intervals off by more than 5 ms: what the p99 hides once it saturates at 20 ms. */
  readonly jitterOver5Pct: number;
  readonly lateness: LatencySummary;
  readonly relay: LatencySummary;
  readonly agentUtterances: number;
  readonly interruptedUtterances: number;
  /** Frames missing from utterances that played to their mark (beyond the resampler's tail). */
  readonly droppedFrames: number;
  readonly toolOutputs: number;
  readonly toolErrors: number;
  readonly loadEventLoopP99Ms: number;
  readonly rampMs: number;
}

/** Frames a resampler may hold back at an utterance's end (its filter delay), not counted as dropped. */
const TAIL_TOLERANCE_FRAMES = 2;
const DIAL_TIMEOUT_MS = 10_000;
const HANGUP_TIMEOUT_MS = 15_000;

const options = JSON.parse(process.argv[2] ?? '{}') as ProviderOptions & { speechMs: number };
const relay: number[] = [];
const bySession = new Map<number, LoadCaller>();
const tools = { outputs: 0, errors: 0 };
const provider = await LoadProvider.start(options, {
  callerOnset(index, atMs) {
    const caller = bySession.get(index);
    if (caller?.speechSentAtMs == null) return;
    relay.push(atMs - caller.speechSentAtMs);
    caller.speechSentAtMs = null;
  },
  toolOutput(_index, ok) {
    tools.outputs++;
    if (!ok) tools.errors++;
  },
});
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();

function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(() => clearTimeout(timer));
}

async function run(command: RunCommand): Promise<LoadResult> {
  const speech = callerSpeech(options.speechMs);
  const ticker = new CallerTicker();
  ticker.start();
  const callers: LoadCaller[] = [];
  const rampStart = performance.now();
  // Dial one at a time so the n-th provider session belongs to the n-th caller.
  for (let i = 0; i < command.calls; i++) {
    const caller = new LoadCaller(`${command.idPrefix}_${String(i).padStart(4, '0')}`, { url: command.url, runId: command.runId, speechMs: options.speechMs, replyDelayMs: 300 }, speech);
    callers.push(caller);
    ticker.callers.add(caller);
    if (!(await within(caller.opened, DIAL_TIMEOUT_MS, false))) continue;
    const session = await within(provider.nextSession(), DIAL_TIMEOUT_MS, null);
    if (session) bySession.set(session.index, caller);
  }
  const rampMs = performance.now() - rampStart;
  for (const c of callers) c.resetFigures();
  relay.length = 0;
  tools.outputs = 0;
  tools.errors = 0;
  loop.reset();
  process.send?.({ event: 'ramped' });
  await new Promise((resolve) => setTimeout(resolve, command.durationMs));
  for (const c of callers) c.stopMeasuring();
  const loadEventLoopP99Ms = Math.round(loop.percentile(99) / 1e4) / 100;
  process.send?.({ event: 'measured' });
  for (const c of callers) c.hangUp();
  await within(Promise.all(callers.map((c) => c.closed)), HANGUP_TIMEOUT_MS, []);
  ticker.stop();
  const reports = callers.map((c) => c.report());
  const expectedFrames = Math.round(options.utteranceMs / 20);
  return {
    calls: command.calls,
    callsUp: reports.filter((r) => r.refusedStatus === null && r.closeCode === 1000).length,
    callIds: reports.map((r) => r.callId),
    jitter: summarize(reports.flatMap((r) => r.jitterMs)),
    jitterOver5Pct: percentAbove(reports.flatMap((r) => r.jitterMs), 5),
    lateness: summarize(reports.flatMap((r) => r.latenessMs)),
    relay: summarize(relay),
    agentUtterances: reports.reduce((n, r) => n + r.agentUtterances, 0),
    interruptedUtterances: reports.reduce((n, r) => n + r.interruptedUtterances, 0),
    droppedFrames: reports.reduce((n, r) => n + r.utteranceBytes.reduce((m, bytes) => m + Math.max(0, expectedFrames - Math.ceil(bytes / 640) - TAIL_TOLERANCE_FRAMES), 0), 0),
    toolOutputs: tools.outputs,
    toolErrors: tools.errors,
    loadEventLoopP99Ms,
    rampMs: Math.round(rampMs),
  };
}

process.on('message', (message: RunCommand | { cmd: 'stop' }) => {
  if (message.cmd === 'stop') {
    void provider.close().then(() => process.exit(0));
    return;
  }
  void run(message).then((result) => process.send?.({ event: 'done', result }));
});
process.send?.({ event: 'ready', baseUrl: provider.baseUrl() });
