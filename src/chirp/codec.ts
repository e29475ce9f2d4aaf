import { z } from 'zod';
import { parseJson, type IdSource } from '../core/index.ts';

/**
 * The one CHIRP text-frame codec (wire.md §1.4), for both directions. The server encodes
 * `ServerFrame`s and decodes `CallerFrame`s; a caller (the local caller, the test client, the
 * bench) encodes `CallerFrame`s and decodes `ServerFrame`s. Every frame travels in the envelope
 * `{"type","id","ts_ms","data"}` as compact JSON. Decoding never throws: a frame that is not
 * JSON, not an envelope, of an unknown type or with unusable data comes back with a reason.
 */

/** The envelope as read: only `type` is required (a peer's frames are optional and loosely formed). */
const envelopeSchema = z.object({
  type: z.string().min(1),
  id: z.string().optional(),
  ts_ms: z.number().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** Longest utterance id or mark name kept from a peer. */
const NAME_MAX = 128;

/** The capacity a probe reports. */
export interface ProbeCapacity {
  readonly live: number;
  readonly max: number;
}

/** Text frames mivas sends and a caller receives. */
export type ServerFrame =
  | { readonly type: 'speech.started'; readonly utteranceId: string }
  | { readonly type: 'speech.completed'; readonly utteranceId: string }
  | { readonly type: 'mark'; readonly name: string }
  | { readonly type: 'session.error'; readonly code: string; readonly message: string }
  | { readonly type: 'probe.ok'; readonly pack: string; readonly harness: string; readonly version: string; readonly capacity: ProbeCapacity };

/**
 * Text frames a caller (Bluejay, the local caller) sends and mivas receives. Bluejay's speech
 * events may lack a usable utterance id (null then); mivas's own always carry one.
 */
export type CallerFrame =
  | { readonly type: 'speech.started'; readonly utteranceId: string | null }
  | { readonly type: 'speech.completed'; readonly utteranceId: string | null }
  | { readonly type: 'mark'; readonly name: string }
  | { readonly type: 'session.error'; readonly code: string; readonly message: string };

export type ServerFrameType = ServerFrame['type'];
/** A server frame's fields without its type: `ServerFrameFields<'mark'>` is `{ name }`. */
export type ServerFrameFields<T extends ServerFrameType> = Omit<Extract<ServerFrame, { type: T }>, 'type'>;

/**
 * Why a text frame was not decoded. `not_json`, `bad_envelope`, `mark_without_name` and
 * `unknown_type:<type, first 40 chars>` are recorded verbatim in the timeline's `frame.ignored`.
 */
export type DecodeFailure = 'not_json' | 'bad_envelope' | 'mark_without_name' | `unknown_type:${string}` | `bad_data:${string}`;

/** A decoded frame, or why it was ignored. */
export type Decoded<F> = { readonly ok: true; readonly frame: F } | { readonly ok: false; readonly reason: DecodeFailure };

/** A frame read as an envelope: its type and data (`{}` when absent). */
export type DecodedEnvelope = { readonly ok: true; readonly type: string; readonly data: Record<string, unknown> } | { readonly ok: false; readonly reason: 'not_json' | 'bad_envelope' };

/** Reads a text frame as a CHIRP envelope, whatever its type. */
export function decodeEnvelope(text: string): DecodedEnvelope {
  const json = parseJson(text);
  if (!json.ok) return { ok: false, reason: 'not_json' };
  const envelope = envelopeSchema.safeParse(json.value);
  if (!envelope.success) return { ok: false, reason: 'bad_envelope' };
  return { ok: true, type: envelope.data.type, data: envelope.data.data ?? {} };
}

/**
 * Writes one envelope: exactly `type`, `id` (UUID v4 from `ids`), `ts_ms` (`epochMs` rounded to an
 * integer) and `data`, compact. The raw layer under the typed encoders; use it directly only for
 * frames outside the typed sets (a test sending an unknown type).
 */
export function encodeEnvelope(type: string, data: Record<string, unknown>, ids: Pick<IdSource, 'uuid'>, epochMs: number): string {
  return JSON.stringify({ type, id: ids.uuid(), ts_ms: Math.round(epochMs), data });
}

/** Encodes a frame mivas sends. */
export function encodeServerFrame(frame: ServerFrame, ids: Pick<IdSource, 'uuid'>, epochMs: number): string {
  return encodeEnvelope(frame.type, serverData(frame), ids, epochMs);
}

/** Encodes a frame a caller sends; a speech event without an utterance id has empty data. */
export function encodeCallerFrame(frame: CallerFrame, ids: Pick<IdSource, 'uuid'>, epochMs: number): string {
  return encodeEnvelope(frame.type, callerData(frame), ids, epochMs);
}

/** Builds a server frame from its type and fields (the form `AgentAudio.sendText` takes). */
export function serverFrame<T extends ServerFrameType>(type: T, fields: ServerFrameFields<T>): Extract<ServerFrame, { type: T }> {
  return { type, ...fields } as Extract<ServerFrame, { type: T }>;
}

function serverData(frame: ServerFrame): Record<string, unknown> {
  switch (frame.type) {
    case 'speech.started':
    case 'speech.completed':
      return { utterance_id: frame.utteranceId };
    case 'mark':
      return { name: frame.name };
    case 'session.error':
      return { code: frame.code, message: frame.message };
    case 'probe.ok':
      return { pack: frame.pack, harness: frame.harness, version: frame.version, capacity: { live: frame.capacity.live, max: frame.capacity.max } };
  }
}

function callerData(frame: CallerFrame): Record<string, unknown> {
  switch (frame.type) {
    case 'speech.started':
    case 'speech.completed':
      return frame.utteranceId === null ? {} : { utterance_id: frame.utteranceId };
    case 'mark':
      return { name: frame.name };
    case 'session.error':
      return { code: frame.code, message: frame.message };
  }
}

const peerUtterance = z.object({ utterance_id: z.string().max(NAME_MAX).optional() });
const ownUtterance = z.object({ utterance_id: z.string().min(1).max(NAME_MAX) });
const ownSessionError = z.object({ code: z.string(), message: z.string() });
const capacityCount = z.number().int().nonnegative();
const probeOk = z.object({ pack: z.string(), harness: z.string(), version: z.string(), capacity: z.object({ live: capacityCount, max: capacityCount }) });

function unknownType(type: string): DecodeFailure {
  return `unknown_type:${type.slice(0, 40)}`;
}

/** A mark's name, clipped; empty when absent. The same rule reads marks in both directions. */
function markName(data: Record<string, unknown>): string {
  return typeof data.name === 'string' ? data.name.slice(0, NAME_MAX) : '';
}

/**
 * Decodes a frame a caller sent (the server's side). Lenient where Bluejay is loose: a speech
 * event without a usable utterance id decodes with null; session.error fields are stringified and
 * clipped (code 64, message 300 chars).
 */
export function decodeCallerFrame(text: string): Decoded<CallerFrame> {
  const envelope = decodeEnvelope(text);
  if (!envelope.ok) return envelope;
  const { type, data } = envelope;
  switch (type) {
    case 'speech.started':
    case 'speech.completed': {
      const parsed = peerUtterance.safeParse(data);
      return { ok: true, frame: { type, utteranceId: parsed.success ? (parsed.data.utterance_id ?? null) : null } };
    }
    case 'mark': {
      const name = markName(data);
      return name ? { ok: true, frame: { type, name } } : { ok: false, reason: 'mark_without_name' };
    }
    case 'session.error':
      return { ok: true, frame: { type, code: String(data.code ?? '').slice(0, 64), message: String(data.message ?? '').slice(0, 300) } };
    default:
      return { ok: false, reason: unknownType(type) };
  }
}

/**
 * Decodes a frame mivas sent (a caller's side). Strict, since mivas always sends complete frames:
 * a speech event needs its utterance id, session.error its code and message, probe.ok every field.
 */
export function decodeServerFrame(text: string): Decoded<ServerFrame> {
  const envelope = decodeEnvelope(text);
  if (!envelope.ok) return envelope;
  const { type, data } = envelope;
  const bad = { ok: false, reason: `bad_data:${type}` } as const;
  switch (type) {
    case 'speech.started':
    case 'speech.completed': {
      const parsed = ownUtterance.safeParse(data);
      return parsed.success ? { ok: true, frame: { type, utteranceId: parsed.data.utterance_id } } : bad;
    }
    case 'mark': {
      const name = markName(data);
      return name ? { ok: true, frame: { type, name } } : { ok: false, reason: 'mark_without_name' };
    }
    case 'session.error': {
      const parsed = ownSessionError.safeParse(data);
      return parsed.success ? { ok: true, frame: { type, code: parsed.data.code, message: parsed.data.message } } : bad;
    }
    case 'probe.ok': {
      const parsed = probeOk.safeParse(data);
      return parsed.success ? { ok: true, frame: { type, ...parsed.data } } : bad;
    }
    default:
      return { ok: false, reason: unknownType(type) };
  }
}
