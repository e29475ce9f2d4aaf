import type { Clock, IdHolder, IdUse, Timer } from '../core/index.ts';
import { Conversation } from '../conversation/index.ts';
import type { Pack } from '../packs/index.ts';
import { Timeline } from '../snapshot/index.ts';
import type { CallDatabases } from '../store/index.ts';

interface HeldConversation {
  readonly conversation: Conversation;
  lastUsedMs: number;
}

/** Scratch conversations one process holds at most (each keeps a database handle open); lowered to fit the open-file limit. */
export const MAX_HARNESS_SESSIONS = 1024;

/**
 * How much of its timeline a scratch conversation keeps: nothing reads it (it is never
 * snapshotted), and a harness or a load test can call tools on one id without end. Past the first
 * 1,000 events or 256 KiB, later events are counted, not kept, nor checked against the schema, so
 * a long-lived id costs neither memory nor that work per call (at most 1024 × 256 KiB in all).
 */
export const SCRATCH_TIMELINE_LIMITS = { maxEvents: 1_000, maxBytes: 256 * 1024 } as const;

/**
 * Conversations that exist only through the HTTP tool routes: an external harness calling tools
 * for an id no caller has dialed. Each is a fresh conversation (its own database, timeline and
 * active agent); idle ones are reaped and their databases deleted. Nothing is snapshotted: they
 * are scratch sessions, and their id can never be dialed afterwards (it has a database).
 */
export class HarnessSessions implements IdHolder {
  private readonly held = new Map<string, HeldConversation>();
  private reaper: Timer;
  private reapedCount = 0;

  private readonly pack: Pack;
  private readonly databases: CallDatabases;
  private readonly clock: Clock;
  private readonly idleMs: number;
  /** Conversations held at most. */
  readonly max: number;

  constructor(
    pack: Pack,
    databases: CallDatabases,
    clock: Clock,
    idleMs: number,
    max = MAX_HARNESS_SESSIONS,
  ) {
    this.max = max;
    this.pack = pack;
    this.databases = databases;
    this.clock = clock;
    this.idleMs = idleMs;
    this.reaper = this.schedule();
  }

  /** The conversation for an id, opened fresh on first use. */
  get(id: string): Conversation | undefined {
    const held = this.held.get(id);
    if (held) held.lastUsedMs = this.clock.nowMs();
    return held?.conversation;
  }

  /** Opens a conversation for an id that has none anywhere (the caller checked); throws CallIdUsedError otherwise. */
  open(id: string): Conversation {
    const conversation = Conversation.open({ pack: this.pack, id, databases: this.databases, timeline: new Timeline(() => 0, undefined, SCRATCH_TIMELINE_LIMITS), nowMs: () => this.clock.nowMs() });
    this.held.set(id, { conversation, lastUsedMs: this.clock.nowMs() });
    return conversation;
  }

  /** True when no more scratch conversations can be opened until some are reaped. */
  isFull(): boolean {
    return this.held.size >= this.max;
  }

  /** True when an id belongs to a held conversation. */
  has(id: string): boolean {
    return this.held.has(id);
  }

  /** `scratch` for an id a held conversation has (the ids `ConversationIds` asks about). */
  useOf(id: string): IdUse | null {
    return this.held.has(id) ? 'scratch' : null;
  }

  /** Conversations held now. */
  count(): number {
    return this.held.size;
  }

  /** Conversations reaped since start. */
  reaped(): number {
    return this.reapedCount;
  }

  /** Discards every conversation idle for at least `idleMs` (the configured timeout); returns how many went. */
  reapIdle(idleMs = this.idleMs): number {
    const cutoff = this.clock.nowMs() - idleMs;
    let n = 0;
    for (const [id, held] of this.held) {
      if (held.lastUsedMs > cutoff) continue;
      this.held.delete(id);
      held.conversation.discard();
      n++;
    }
    this.reapedCount += n;
    return n;
  }

  /** Stops reaping and discards everything (server close). */
  close(): void {
    this.reaper.cancel();
    for (const held of this.held.values()) held.conversation.discard();
    this.held.clear();
  }

  private schedule(): Timer {
    // Checks at a quarter of the timeout, so a session lives at most 1.25 timeouts idle.
    return this.clock.setTimer(Math.max(1000, this.idleMs / 4), () => {
      this.reapIdle();
      this.reaper = this.schedule();
    });
  }
}
