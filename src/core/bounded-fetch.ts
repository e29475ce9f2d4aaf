import { MivasError } from './errors.ts';

/** How long one outbound exchange may take (connect, headers and body) and how many body bytes it may carry. */
export interface OutboundBounds {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
}

/** The caps where a setting gives none: a JSON answer, and raw audio (about 11 minutes of 24 kHz PCM16). */
export const DEFAULT_JSON_CAP_BYTES = 4 * 1024 * 1024;
export const DEFAULT_AUDIO_CAP_BYTES = 32 * 1024 * 1024;

/** An outbound exchange broke its bounds: OUTBOUND_TIMEOUT or OUTBOUND_BODY_TOO_LARGE. */
export class OutboundLimitError extends MivasError {}

/** Origin and path of a request: what an error may name (a query can carry a key). */
function where(input: Parameters<typeof fetch>[0]): string {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    const url = new URL(href);
    return `${url.origin}${url.pathname}`;
  } catch {
    return 'the endpoint';
  }
}

/** Statuses whose Response may carry no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` bounded in time and size, for every client of an endpoint mivas does not control. The
 * deadline covers the whole exchange, body included; the body is counted as it is read and the
 * exchange is aborted (its socket closed) the moment it passes the cap, or before reading when
 * `Content-Length` already says so. A string request body over the cap is not sent either, so a
 * conversation fed by an endpoint cannot grow without end. Past a bound the fetch, or the body
 * read, rejects with an OutboundLimitError naming the endpoint's origin and path, never a key.
 * The caller's own `signal` still aborts as before.
 */
export function boundedFetch(bounds: OutboundBounds, base: typeof fetch = fetch): typeof fetch {
  return async (input, init = {}) => {
    const url = where(input);
    const tooLarge = (what: string): OutboundLimitError => new OutboundLimitError('OUTBOUND_BODY_TOO_LARGE', `${what} ${url} is over the ${bounds.maxBodyBytes}-byte cap`);
    if (typeof init.body === 'string' && Buffer.byteLength(init.body) > bounds.maxBodyBytes) throw tooLarge('the request to');
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new OutboundLimitError('OUTBOUND_TIMEOUT', `${url} did not finish within ${bounds.timeoutMs} ms`)), bounds.timeoutMs);
    timer.unref();
    const outer = init.signal;
    const onOuter = (): void => abort.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    else outer?.addEventListener('abort', onOuter, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    };
    const fail = (err: OutboundLimitError): never => {
      abort.abort(err);
      settle();
      throw err;
    };
    let res: Response;
    try {
      res = await base(input, { ...init, signal: abort.signal });
    } catch (err) {
      settle();
      throw abort.signal.reason instanceof OutboundLimitError ? abort.signal.reason : err;
    }
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (declared > bounds.maxBodyBytes) return fail(tooLarge('the answer of'));
    if (!res.body || NULL_BODY_STATUSES.has(res.status)) {
      settle();
      return res;
    }
    let count = 0;
    const counted = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        count += chunk.byteLength;
        if (count <= bounds.maxBodyBytes) return controller.enqueue(chunk);
        const err = tooLarge('the answer of');
        abort.abort(err);
        settle();
        controller.error(err);
      },
      // A reader that stops early (barge-in) cancels the body; the timer then fires on a finished exchange, harmlessly.
      flush: settle,
    });
    return new Response(res.body.pipeThrough(counted), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
