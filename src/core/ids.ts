import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * The characters and length of every id that names a file or key (call, episode, run), as a
 * pattern fragment for patterns that embed one (file names, keys, URL segments).
 */
export const ID_CHARS = '[A-Za-z0-9_-]{1,64}';

/** Call ids name files and S3 keys, so nothing else may reach a path (architecture.md §4). */
export const CALL_ID_PATTERN = new RegExp(`^${ID_CHARS}$`);

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

/**
 * The prefix and random length of each kind of id mivas mints: CHIRP calls without an
 * `X-Simulation-Result-Id`, the local caller's calls, RL text episodes, speech rollouts and
 * OpenEnv HTTP sessions. The prefix says who minted an id (Bluejay links skip `call_` and `loc_`).
 */
export const MINTED_IDS = {
  call: { prefix: 'call_', hexChars: 12 },
  local: { prefix: 'loc_', hexChars: 12 },
  episode: { prefix: EPISODE_ID_PREFIX, hexChars: 24 },
  rollout: { prefix: 'ro_', hexChars: 24 },
  session: { prefix: 'ses_', hexChars: 24 },
} as const;

/** A kind of id mivas mints. */
export type MintedIdKind = keyof typeof MINTED_IDS;

/** A fresh id of a kind; `infix` (an RL replica's name) goes between the prefix and the random part. */
export function mintId(ids: IdSource, kind: MintedIdKind, infix?: string): string {
  const { prefix, hexChars } = MINTED_IDS[kind];
  return `${prefix}${infix ? `${infix}_` : ''}${ids.hex(hexChars)}`;
}

/**
 * Why an id cannot name a new conversation: `live` (a call live or still in its upgrade), `scratch`
 * (a scratch conversation of the tool routes holds it), `ended` (a conversation of this process
 * ended under it, or its evidence is spooled), `used` (a database or an episode already had it).
 */
export type IdUse = 'live' | 'scratch' | 'ended' | 'used';

/** Something that may hold conversation ids: the call registry, the scratch conversations, the episode desk... */
export interface IdHolder {
  /** How this holder uses the id, or null when it does not. */
  useOf(id: string): IdUse | null;
}

/**
 * The one answer to "is this id free?" in a process (architecture.md §4): every holder of
 * conversation ids registers here, and the CHIRP upgrade, the tool routes, the episode desk and the
 * rollouts ask here before an id names a new conversation. Created once per app and passed down.
 */
export class ConversationIds {
  private readonly holders: IdHolder[] = [];

  /** Adds a holder whose ids are no longer free. */
  hold(holder: IdHolder): void {
    this.holders.push(holder);
  }

  /** How the id is used (the first holder that has it), or null when it is free. */
  useOf(id: string): IdUse | null {
    for (const holder of this.holders) {
      const use = holder.useOf(id);
      if (use) return use;
    }
    return null;
  }

  /** A minted id no holder has (a clash of random ids is a bug, so a few tries suffice). */
  mintFree(ids: IdSource, kind: MintedIdKind, infix?: string): string {
    for (let attempt = 0; attempt < 8; attempt++) {
      const id = mintId(ids, kind, infix);
      if (!this.useOf(id)) return id;
    }
    throw new Error(`could not mint a free ${kind} id: the id source repeats itself`);
  }
}
