/** True for a JSON object (not null, not an array): the shape tool arguments and bodies must have. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
