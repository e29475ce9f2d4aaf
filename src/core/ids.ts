import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Call ids name files and S3 keys, so nothing else may reach a path (architecture.md §4). */
export const CALL_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * RL text episodes (docs/rl.md) are named `ep_…` and nothing else is: no caller, tool route or
 * client-chosen episode id may cross over, so an episode can never take a call's id (finished or
 * still to come) and a call can never take an episode's.
 */
export const EPISODE_ID_PREFIX = 'ep_';

/** True when the id may name a call (a CHIRP call or a scratch conversation of the tool routes). */
export function isCallId(id: string): boolean {
  return CALL_ID_PATTERN.test(id) && !id.startsWith(EPISODE_ID_PREFIX);
}

/** True when the id may name a text episode. */
export function isEpisodeId(id: string): boolean {
  return CALL_ID_PATTERN.test(id) && id.startsWith(EPISODE_ID_PREFIX);
}

/** Source of identifiers; injected so tests can make ids repeatable. */
export interface IdSource {
  /** Lowercase hex string of the given number of characters. */
  hex(chars: number): string;
  /** An RFC 4122 version 4 UUID. */
  uuid(): string;
}

/** Cryptographically random ids. */
export function randomIds(): IdSource {
  return {
    hex: (chars) => randomBytes(Math.ceil(chars / 2)).toString('hex').slice(0, chars),
    uuid: () => randomUUID(),
  };
}

/** Repeatable ids derived from a seed and a counter (tests only). */
export function seededIds(seed: string): IdSource {
  let counter = 0;
  const next = (): string => createHash('sha256').update(`${seed}:${counter++}`).digest('hex');
  return {
    hex: (chars) => next().slice(0, chars),
    uuid: () => {
      const h = next();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16] ?? '0', 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}
