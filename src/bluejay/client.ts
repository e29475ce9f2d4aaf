import type { z } from 'zod';
import { boundedFetch, DEFAULT_JSON_CAP_BYTES, MivasError, type OutboundBounds } from '../core/index.ts';
import {
  createDigitalHumanResponseSchema,
  digitalHumanResponseSchema,
  queueRunResponseSchema,
  runResultsResponseSchema,
  type QueueRunResponse,
  type RunResultsResponse,
  type UpdateSimulationResultBody,
} from './schema.ts';

/** Statuses worth another attempt (wire.md §4.2); transport errors are retried too. */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** One HTTP exchange's outcome, returned rather than thrown so the caller decides on retries. */
export type BluejayAttempt =
  | { readonly kind: 'ok'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'http_error'; readonly status: number; readonly bodyHead: string; readonly retryable: boolean }
  | { readonly kind: 'transport_error'; readonly message: string; readonly retryable: true };

/** A Bluejay API call that failed (the CLI's error path). */
export class BluejayApiError extends MivasError {}

/** Where and how to reach the API. */
export interface BluejayClientOptions {
  readonly apiUrl: string;
  readonly apiKey: string;
  /** Injected for tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Per request, body included, and the answer's cap (MIVAS_BLUEJAY_TIMEOUT_S, MIVAS_BLUEJAY_MAX_BODY_MB). */
  readonly bounds?: OutboundBounds;
}

/** The bounds where the options give none: the configuration's defaults. */
const DEFAULT_BOUNDS: OutboundBounds = { timeoutMs: 30_000, maxBodyBytes: 2 * DEFAULT_JSON_CAP_BYTES };

/** The Bluejay REST client (wire.md §4): `X-API-Key` on every request, JSON bodies, zod-parsed answers. */
export class BluejayClient {
  private readonly fetchImpl: typeof fetch;

  private readonly options: BluejayClientOptions;

  constructor(options: BluejayClientOptions) {
    this.options = options;
    this.fetchImpl = boundedFetch(options.bounds ?? DEFAULT_BOUNDS, options.fetch ?? fetch);
  }

  /** One POST /update-simulation-result attempt; the caller owns retries and the ledger. */
  updateSimulationResult(body: UpdateSimulationResultBody, signal?: AbortSignal): Promise<BluejayAttempt> {
    return this.attempt('POST', '/update-simulation-result', body, signal);
  }

  /** POST /create-digital-human for one simulation; returns the new id. */
  async createDigitalHuman(simulationIds: readonly string[], digitalHuman: Readonly<Record<string, unknown>>): Promise<string> {
    const out = await this.request('POST', '/create-digital-human', { simulation_ids: simulationIds, digital_human: digitalHuman }, createDigitalHumanResponseSchema);
    return out.id;
  }

  /** POST /queue-simulation-run */
  queueSimulationRun(simulationId: string, digitalHumanIds?: readonly string[]): Promise<QueueRunResponse> {
    return this.request('POST', '/queue-simulation-run', { simulation_id: simulationId, ...(digitalHumanIds?.length ? { digital_human_ids: digitalHumanIds } : {}) }, queueRunResponseSchema);
  }

  /** GET /retrieve-simulation-results/{run} */
  retrieveSimulationResults(runId: string): Promise<RunResultsResponse> {
    return this.request('GET', `/retrieve-simulation-results/${encodeURIComponent(runId)}`, undefined, runResultsResponseSchema);
  }

  /** GET /digital-human/{id} */
  digitalHuman(id: string): Promise<z.infer<typeof digitalHumanResponseSchema>> {
    return this.request('GET', `/digital-human/${encodeURIComponent(id)}`, undefined, digitalHumanResponseSchema);
  }

  private async request<S extends z.ZodType>(method: string, path: string, body: unknown, schema: S): Promise<z.infer<S>> {
    const out = await this.attempt(method, path, body);
    if (out.kind === 'transport_error') throw new BluejayApiError('BLUEJAY_UNREACHABLE', `${method} ${path}: ${out.message}`);
    if (out.kind === 'http_error') throw new BluejayApiError('BLUEJAY_HTTP_ERROR', `${method} ${path}: HTTP ${out.status}: ${out.bodyHead}`, { status: out.status });
    const parsed = schema.safeParse(out.body);
    if (!parsed.success) throw new BluejayApiError('BLUEJAY_BAD_RESPONSE', `${method} ${path}: unexpected response: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  }

  private async attempt(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<BluejayAttempt> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.options.apiUrl}${path}`, {
        method,
        headers: { 'X-API-Key': this.options.apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      return { kind: 'transport_error', message: err instanceof Error ? err.message : String(err), retryable: true };
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      return { kind: 'transport_error', message: err instanceof Error ? err.message : String(err), retryable: true };
    }
    if (res.status >= 400) return { kind: 'http_error', status: res.status, bodyHead: text.slice(0, 300), retryable: RETRYABLE_STATUSES.has(res.status) };
    return { kind: 'ok', status: res.status, body: parseJson(text) };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
