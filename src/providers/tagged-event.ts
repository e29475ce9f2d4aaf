import type { z } from 'zod';
import { parseJson } from '../core/index.ts';

/** A server event type the harness does not act on. */
export interface OtherEvent {
  readonly type: 'other';
}

/**
 * One JSON frame of a `type`-tagged wire (GPT-Live, Phonic) through its schema: the event; `other`
 * for a type the schema does not list; null for a listed type whose fields do not parse, or for a
 * frame that is not JSON. Never throws.
 */
export function parseTaggedEvent<T>(schema: z.ZodType<T>, listed: ReadonlySet<string>, data: string): T | OtherEvent | null {
  const read = parseJson(data);
  if (!read.ok) return null;
  const json = read.value;
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const type = json !== null && typeof json === 'object' && 'type' in json ? json.type : undefined;
  return typeof type === 'string' && listed.has(type) ? null : { type: 'other' };
}
