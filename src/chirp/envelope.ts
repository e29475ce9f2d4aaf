import { z } from 'zod';
import type { IdSource } from '../core/index.ts';

/** The CHIRP text-frame envelope (wire.md §1.4). */
export const chirpEnvelopeSchema = z.object({
  type: z.string().min(1),
  id: z.string().optional(),
  ts_ms: z.number().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

const utteranceData = z.object({ utterance_id: z.string().max(128).optional() }).passthrough();

/** Inbound CHIRP events mivas acts on; anything else is logged and ignored. */
export type InboundChirpEvent =
  | { readonly type: 'speech.started'; readonly utteranceId: string | null }
  | { readonly type: 'speech.completed'; readonly utteranceId: string | null }
  | { readonly type: 'mark'; readonly name: string }
  | { readonly type: 'session.error'; readonly code: string; readonly message: string };

/** Result of parsing an inbound text frame: a known event, or why it was ignored. */
export type ParsedTextFrame = { readonly ok: true; readonly event: InboundChirpEvent } | { readonly ok: false; readonly reason: string };

/** Parses one inbound text frame without throwing (a bad frame never ends a call). */
export function parseTextFrame(text: string): ParsedTextFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  const envelope = chirpEnvelopeSchema.safeParse(json);
  if (!envelope.success) return { ok: false, reason: 'bad_envelope' };
  const { type, data = {} } = envelope.data;
  if (type === 'speech.started' || type === 'speech.completed') {
    const parsed = utteranceData.safeParse(data);
    return { ok: true, event: { type, utteranceId: parsed.success ? (parsed.data.utterance_id ?? null) : null } };
  }
  if (type === 'mark') {
    const name = typeof data.name === 'string' ? data.name.slice(0, 128) : '';
    return name ? { ok: true, event: { type, name } } : { ok: false, reason: 'mark_without_name' };
  }
  if (type === 'session.error') {
    return { ok: true, event: { type, code: String(data.code ?? '').slice(0, 64), message: String(data.message ?? '').slice(0, 300) } };
  }
  return { ok: false, reason: `unknown_type:${type.slice(0, 40)}` };
}

/** Outbound text events mivas sends. */
export type OutboundChirpType = 'speech.started' | 'speech.completed' | 'mark' | 'session.error' | 'probe.ok';

/** Serialises an outbound event in the envelope: exactly type, id (UUID v4), ts_ms, data. */
export function encodeTextFrame(type: OutboundChirpType, data: Record<string, unknown>, ids: IdSource, epochMs: number): string {
  return JSON.stringify({ type, id: ids.uuid(), ts_ms: Math.round(epochMs), data });
}
