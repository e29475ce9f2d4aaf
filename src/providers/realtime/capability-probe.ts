import type { AgentSetup, FunctionCall, ProviderFailure } from '../model-session.ts';
import type { RealtimeDialect } from './dialect.ts';
import { ProviderConnectError, RealtimeSession } from './realtime-session.ts';

/** The one harmless tool the capability probe offers: it does nothing but prove a call arrives. */
export const PROBE_TOOL_NAME = 'mivas_preflight_ping';

/** The probe's agent: one tool, and instructions that ask for it before anything else. */
export const PROBE_AGENT: AgentSetup = {
  name: 'preflight',
  instructions:
    `You are being connection-tested. When the user asks, call the function ${PROBE_TOOL_NAME} with word set to "ready" ` +
    'before saying anything. After the function returns, say "ready" and nothing else.',
  tools: [
    {
      name: PROBE_TOOL_NAME,
      description: 'Confirms that this line can call functions. Call it when the user asks for the connection check.',
      parameters: { type: 'object', properties: { word: { type: 'string', description: 'The word the user asked for.' } }, required: ['word'], additionalProperties: false },
    },
  ],
};

/** What the probe asks, as a user text message, once the session is configured. */
export const PROBE_REQUEST = `Connection check: call ${PROBE_TOOL_NAME} with the word "ready" now.`;

/** `yes`: the model called the tool; `no`: it answered without calling it; `error`: the check could not run to an answer. */
export type ToolVerdict = 'yes' | 'no' | 'error';

/** The capability probe's findings; times are milliseconds from the start of the connection. */
export interface ToolProbeResult {
  readonly provider: string;
  readonly model: string;
  readonly tools: ToolVerdict;
  /** Until the WebSocket upgrade completed. */
  readonly handshakeMs: number | null;
  /** Until the first session.updated (the session accepted its configuration). */
  readonly readyMs: number | null;
  /** Until the function call arrived. */
  readonly toolCallMs: number | null;
  /** Until the first agent audio, in whichever response it came. */
  readonly firstAudioMs: number | null;
  /** The provider's own error, exactly as reported (credentials blanked), if any. */
  readonly error: { readonly code: string; readonly message: string; readonly status: number | null } | null;
  /** One sentence for the preflight line. */
  readonly detail: string;
}

/** Options of a probe; `nowMs` is a monotonic clock. */
export interface ToolProbeOptions {
  readonly timeoutMs?: number;
  readonly nowMs?: () => number;
}

type Waited = 'ready' | 'call' | 'done' | 'audio' | 'fatal' | 'timeout';

/**
 * Opens a real session with the dialect, offers PROBE_TOOL_NAME, asks for it and reports whether
 * the model called it, how long the handshake, session configuration, call and first audio took,
 * and the provider's exact error if any (issue 21). It answers the call, asks for the spoken
 * follow-up and closes the socket; it never throws.
 */
export async function probeToolCalling(dialect: RealtimeDialect, options: ToolProbeOptions = {}): Promise<ToolProbeResult> {
  const nowMs = options.nowMs ?? (() => performance.now());
  const deadline = nowMs() + (options.timeoutMs ?? 30_000);
  const session = new RealtimeSession(dialect);
  const t0 = nowMs();
  const since = (): number => Math.round(nowMs() - t0);
  // Written by the session's events, read after each wait (an object, so reads are never narrowed away).
  const seen: {
    readyMs: number | null;
    firstAudioMs: number | null;
    call: FunctionCall | null;
    callMs: number | null;
    fatal: ProviderFailure | null;
    providerError: ProviderFailure | null;
    responsesDone: number;
  } = { readyMs: null, firstAudioMs: null, call: null, callMs: null, fatal: null, providerError: null, responsesDone: 0 };
  let wake: ((what: Waited) => void) | null = null;
  const signal = (what: Waited): void => wake?.(what);
  session.events.on('ready', () => {
    seen.readyMs ??= since();
    signal('ready');
  });
  session.events.on('audio', () => {
    seen.firstAudioMs ??= since();
    signal('audio');
  });
  session.events.on('functionCall', (c) => {
    if (seen.call || c.name !== PROBE_TOOL_NAME) return;
    seen.call = c;
    seen.callMs = since();
    signal('call');
  });
  session.events.on('responseDone', () => {
    seen.responsesDone += 1;
    signal('done');
  });
  session.events.on('failure', (f) => {
    if (f.fatal) {
      seen.fatal ??= f;
      signal('fatal');
    } else seen.providerError ??= f;
  });
  /** Resolves at the first event after which `until` holds, or at the deadline. */
  const waitUntil = (until: () => boolean): Promise<Waited> =>
    new Promise((resolve) => {
      if (seen.fatal) return resolve('fatal');
      if (until()) return resolve('done');
      const timer = setTimeout(() => finish('timeout'), Math.max(0, deadline - nowMs()));
      const finish = (what: Waited): void => {
        clearTimeout(timer);
        wake = null;
        resolve(what);
      };
      wake = (what) => {
        if (what === 'fatal' || until()) finish(what);
      };
    });

  const abort = new AbortController();
  let handshakeMs: number | null = null;
  const result = (tools: ToolVerdict, detail: string, err: ProviderConnectError | ProviderFailure | null = null): ToolProbeResult => ({
    provider: dialect.provider,
    model: dialect.model,
    tools,
    handshakeMs,
    readyMs: seen.readyMs,
    toolCallMs: seen.callMs,
    firstAudioMs: seen.firstAudioMs,
    error: err ? { code: err.code, message: err.message, status: err instanceof ProviderConnectError ? err.status : null } : null,
    detail,
  });
  try {
    try {
      await session.connect(PROBE_AGENT, abort.signal);
    } catch (err) {
      if (err instanceof ProviderConnectError) return result('error', err.message, err);
      return result('error', err instanceof Error ? err.message : String(err), seen.fatal);
    }
    handshakeMs = since();
    await waitUntil(() => seen.readyMs !== null);
    if (seen.readyMs === null) return unanswered(result, seen, 'the session never confirmed its configuration (no session.updated)');
    session.sendUserText(PROBE_REQUEST);
    session.requestResponse();
    await waitUntil(() => seen.call !== null || seen.responsesDone > 0);
    const made = seen.call;
    if (!made) {
      const err = seen.providerError;
      if (seen.responsesDone > 0) return result('no', `the model answered without calling ${PROBE_TOOL_NAME}${err ? ` (provider error: ${err.message})` : ''}`, err);
      return unanswered(result, seen, 'no response arrived');
    }
    // Answer the call as a real call would, then ask for the spoken follow-up to time first audio.
    await waitUntil(() => seen.responsesDone > 0);
    session.sendToolOutput(made.callId, JSON.stringify({ ok: true, data: { word: 'ready' } }));
    session.requestResponse();
    await waitUntil(() => seen.firstAudioMs !== null || seen.responsesDone > 1);
    return result('yes', `${PROBE_TOOL_NAME} called with ${made.arguments || '{}'}`);
  } finally {
    abort.abort();
    await session.close();
  }
}

/** A probe that got no answer: the fatal failure or the provider's error explains it, else a timeout. */
function unanswered(
  result: (tools: ToolVerdict, detail: string, err?: ProviderFailure | null) => ToolProbeResult,
  seen: { readonly fatal: ProviderFailure | null; readonly providerError: ProviderFailure | null },
  what: string,
): ToolProbeResult {
  const cause = seen.fatal ?? seen.providerError;
  if (cause) return result('error', `${what}: ${cause.message}`, cause);
  return result('error', `${what} before the probe timed out`, { code: 'timeout', message: `${what} before the probe timed out`, fatal: false });
}
