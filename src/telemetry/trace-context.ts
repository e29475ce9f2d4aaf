/** A remote parent from a W3C `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header). */
export interface RemoteParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
}

/**
 * Reads `traceparent`: version 00 as `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`;
 * a later version may append fields after the four, which are ignored. An all-zero id, version
 * ff, upper-case hex or any other shape is invalid and gives null (the call starts its own trace).
 */
export function parseTraceparent(header: string | string[] | undefined): RemoteParent | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(value.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}
