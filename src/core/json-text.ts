import type { z } from 'zod';

/** A text read as JSON: its value, or not JSON. */
export type JsonText = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** Reads a text as JSON without throwing: the one place a received text's `JSON.parse` failure becomes a value. */
export function parseJson(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A text read as JSON and then by `schema`; null when it is not JSON or does not match. */
export function parseJsonAs<S extends z.ZodType>(schema: S, text: string): z.output<S> | null {
  const json = parseJson(text);
  if (!json.ok) return null;
  const parsed = schema.safeParse(json.value);
  return parsed.success ? parsed.data : null;
}
