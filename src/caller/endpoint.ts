import { boundedFetch, DEFAULT_JSON_CAP_BYTES, OutboundLimitError, type Clock } from '../core/index.ts';

/** An OpenAI-compatible HTTP endpoint: a base URL ending in `/v1` (or the vendor's equivalent) and an optional key. */
export interface EndpointSettings {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  /** Overrides the retry policy's per-attempt timeout (a slow self-hosted model, a person answering by hand). */
  readonly timeoutMs?: number;
  /** Cap of an answer's body (and of a JSON request); default DEFAULT_JSON_CAP_BYTES. */
  readonly maxBodyBytes?: number;
}

/** A caller endpoint failed past its retries; the message names the endpoint, never the key. */
export class CallerEndpointError extends Error {
  readonly status: number | null;

  constructor(
    message: string,
    status: number | null,
  ) {
    super(message);
    this.status = status;
    this.name = 'CallerEndpointError';
  }
}

/** Statuses worth a retry (wire.md §4.2 uses the same set for Bluejay). */
const RETRY_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504]);

/** How requests are retried: attempts in all, and the waits between them on the injected clock. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly backoffMs: readonly number[];
  /** Per-attempt timeout (a network guard, not a test assertion). */
  readonly timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: [1_000, 3_000], timeoutMs: 60_000 };

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}

/**
 * POSTs to `<baseUrl><path>` with the bearer key, retrying transport errors, timeouts and the
 * retryable statuses; any other status ≥ 400 fails at once with the first 300 characters of the
 * body. Each attempt is bounded (core `boundedFetch`): the timeout covers the answer's body, which
 * is capped as the caller reads it; an answer over the cap is not retried.
 */
export async function postWithRetry(endpoint: EndpointSettings, path: string, body: RequestInit['body'], headers: Record<string, string>, clock: Clock, retry: RetryPolicy = DEFAULT_RETRY): Promise<Response> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}${path}`;
  const allHeaders: Record<string, string> = { ...headers };
  if (endpoint.apiKey) allHeaders.Authorization = `Bearer ${endpoint.apiKey}`;
  let last = '';
  let lastStatus: number | null = null;
  const bounded = boundedFetch({ timeoutMs: endpoint.timeoutMs ?? retry.timeoutMs, maxBodyBytes: endpoint.maxBodyBytes ?? DEFAULT_JSON_CAP_BYTES });
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    try {
      const res = await bounded(url, { method: 'POST', headers: allHeaders, body });
      if (res.ok) return res;
      const text = (await res.text().catch(() => '')).slice(0, 300);
      last = `${url} answered ${res.status}: ${text}`;
      lastStatus = res.status;
      if (!RETRY_STATUSES.has(res.status)) break;
    } catch (err) {
      last = `${url} failed: ${err instanceof Error ? err.message : String(err)}`;
      lastStatus = null;
      if (err instanceof OutboundLimitError && err.code === 'OUTBOUND_BODY_TOO_LARGE') break;
    }
    if (attempt < retry.attempts) await sleep(clock, retry.backoffMs[attempt - 1] ?? retry.backoffMs.at(-1) ?? 1_000);
  }
  throw new CallerEndpointError(last, lastStatus);
}
