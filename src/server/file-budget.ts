import { readdirSync, readFileSync } from 'node:fs';

/**
 * The open-file budget of the process (docs/reliability.md "Open files"): every call, scratch
 * conversation, OpenEnv socket and episode holds file handles, so their caps are derived from
 * the process's open-file limit, and `/health` turns unhealthy before the handles run out.
 */

/** What each holder costs in handles: a call (CHIRP socket, provider socket, database and journal, recording, one spare), a scratch conversation or episode (database and journal), an OpenEnv socket. */
const COST = { call: 6, scratch: 2, episode: 2, openEnvSocket: 1 } as const;
/** The share of the usable budget each holder may take; the rest is left for HTTP connections, the spool, the sink and the template. */
const SHARE = { call: 0.4, scratch: 0.2, episode: 0.1, openEnvSocket: 0.1 } as const;

/** The caps a process runs with. */
export interface ProcessCaps {
  /** The soft open-file limit, or null where it is unknown or unlimited (then the configured caps stand). */
  readonly fileLimit: number | null;
  readonly calls: number;
  readonly scratch: number;
  readonly episodes: number;
  readonly openEnvSockets: number;
}

/** Handles kept back from the derived caps (the process's own: listener, logs, template, modules). */
function reserveOf(limit: number): number {
  return Math.max(64, Math.floor(limit / 8));
}

/** The soft "Max open files" of `/proc/self/limits` (Linux); null when absent, unreadable or unlimited. */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  const soft = m?.[1] ? Number(m[1]) : NaN;
  return Number.isInteger(soft) && soft > 0 ? soft : null;
}

/** Handles this process holds now (`/proc/self/fd`), or null where that is not readable. */
export function openFileCount(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

/** Each configured cap, lowered to its share of the open-file limit (at least 1). */
export function deriveCaps(limit: number | null, wanted: Omit<ProcessCaps, 'fileLimit'>): ProcessCaps {
  if (limit === null) return { fileLimit: null, ...wanted };
  const usable = Math.max(0, limit - reserveOf(limit));
  const fit = (kind: keyof typeof COST, want: number): number => Math.max(1, Math.min(want, Math.floor((usable * SHARE[kind]) / COST[kind])));
  return {
    fileLimit: limit,
    calls: fit('call', wanted.calls),
    scratch: fit('scratch', wanted.scratch),
    episodes: fit('episode', wanted.episodes),
    openEnvSockets: fit('openEnvSocket', wanted.openEnvSockets),
  };
}

/** True when so few handles are left that `/health` should say so (503) before new work fails: the last sixteenth, at least 32. */
export function filesRunningOut(open: number | null, limit: number | null): boolean {
  if (open === null || limit === null) return false;
  return open >= limit - Math.max(32, Math.floor(limit / 16));
}
