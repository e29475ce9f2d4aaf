import type { z } from 'zod';

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
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const type = json !== null && typeof json === 'object' && 'type' in json ? json.type : undefined;
  return typeof type === 'string' && listed.has(type) ? null : { type: 'other' };
}
