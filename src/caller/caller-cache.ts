import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, sha256Parts } from '../core/index.ts';

/**
 * The caller cache (`--caller-cache DIR`): one JSON file per request, keyed by a hash of
 * everything that decides the reply. For chat that is the model, the seed, the tools and the
 * messages, i.e. the conversation so far; for transcription the model and the audio bytes; for
 * speech the model, voice and text. A repeated run against an identical agent therefore asks
 * nothing new and replays identical caller lines; a different trial has a different seed, so a
 * different key. Frozen: read only, and a miss is an error the caller ends on (`cache_miss`).
 */
export interface CallerCache {
  readonly frozen: boolean;
  get(key: string): unknown;
  put(key: string, entry: unknown): void;
}

/** A request's key: sha256 over its kind and its canonical JSON (object keys sorted). */
export function requestKey(kind: 'chat' | 'transcription' | 'speech', request: unknown): string {
  return sha256Parts([kind, canonicalJson(request)]);
}

/** Thrown by a frozen cache's reader on a miss. */
export class CacheMissError extends Error {
  readonly key: string;

  constructor(key: string) {
    super(`caller cache has no entry ${key.slice(0, 16)}… (frozen)`);
    this.key = key;
    this.name = 'CacheMissError';
  }
}

/** A cache in a directory: `<dir>/<key[0..2]>/<key>.json`, written to a temp name and renamed. */
export function directoryCache(dir: string, options: { frozen?: boolean } = {}): CallerCache {
  const fileOf = (key: string): string => join(dir, key.slice(0, 2), `${key}.json`);
  return {
    frozen: options.frozen ?? false,
    get(key) {
      try {
        return JSON.parse(readFileSync(fileOf(key), 'utf8')) as unknown;
      } catch {
        return undefined;
      }
    },
    put(key, entry) {
      if (options.frozen) return;
      const file = fileOf(key);
      mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(entry, null, 1)}\n`);
      renameSync(temp, file);
    },
  };
}

/** A cache held in memory (tests, and runs without `--caller-cache` that still want per-run reuse). */
export function memoryCache(options: { frozen?: boolean; seed?: ReadonlyMap<string, unknown> } = {}): CallerCache & { readonly entries: Map<string, unknown> } {
  const entries = new Map<string, unknown>(options.seed ?? []);
  return {
    frozen: options.frozen ?? false,
    entries,
    get: (key) => entries.get(key),
    put(key, entry) {
      if (!options.frozen) entries.set(key, entry);
    },
  };
}

/**
 * Looks a request up, else asks `fetch` and stores the answer. Returns the response and whether
 * it came from the cache; a frozen cache throws `CacheMissError` instead of fetching.
 */
export async function throughCache<T>(cache: CallerCache | null, key: string, request: unknown, fetch: () => Promise<T>, parse: (stored: unknown) => T | undefined): Promise<{ value: T; cached: boolean }> {
  if (cache) {
    const stored = cache.get(key);
    const entry = stored && typeof stored === 'object' ? (stored as { response?: unknown }).response : undefined;
    const value = entry === undefined ? undefined : parse(entry);
    if (value !== undefined) return { value, cached: true };
    if (cache.frozen) throw new CacheMissError(key);
  }
  const value = await fetch();
  cache?.put(key, { key, request, response: value });
  return { value, cached: false };
}
