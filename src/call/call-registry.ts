import type { IdHolder, IdUse } from '../core/index.ts';
import type { CallSession } from './call-session.ts';

/** Why an upgrade cannot take a call slot. */
export type ReserveRefusal = 'duplicate' | 'capacity' | 'draining';

/**
 * Live calls of one app (created in buildApp, never module state): capacity, reservations made
 * before the upgrade completes, and the draining flag.
 */
export class CallRegistry implements IdHolder {
  private readonly reserved = new Set<string>();
  private readonly live = new Map<string, CallSession>();
  private draining = false;
  private readonly idleWaiters: (() => void)[] = [];
  /** Ids of calls that have ended, newest last, so late HTTP tool calls get a clear refusal. */
  private readonly ended = new Set<string>();

  readonly maxCalls: number;
  private readonly endedKept;

  constructor(
    maxCalls: number,
    endedKept = 10_000,
  ) {
    this.maxCalls = maxCalls;
    this.endedKept = endedKept;
  }

  /** Reserves a slot for a call id, or says why not. */
  reserve(callId: string): ReserveRefusal | null {
    if (this.draining) return 'draining';
    if (this.reserved.has(callId) || this.live.has(callId)) return 'duplicate';
    if (this.reserved.size + this.live.size >= this.maxCalls) return 'capacity';
    this.reserved.add(callId);
    return null;
  }

  /** Gives back a reservation that did not become a call. */
  cancel(callId: string): void {
    this.reserved.delete(callId);
    this.wakeIfIdle();
  }

  /** Turns a reservation into a live call and forgets it when the call finishes. */
  activate(session: CallSession): void {
    const id = session.identity.callId;
    this.reserved.delete(id);
    this.live.set(id, session);
    void session.finished().then(() => {
      this.live.delete(id);
      this.rememberEnded(id);
      this.wakeIfIdle();
    });
  }

  /** True when a call with this id ended in this process (the most recent ids are kept). */
  hasEnded(callId: string): boolean {
    return this.ended.has(callId);
  }

  private rememberEnded(callId: string): void {
    this.ended.add(callId);
    for (const oldest of this.ended) {
      if (this.ended.size <= this.endedKept) break;
      this.ended.delete(oldest);
    }
  }

  /** The live call with this id, if any. */
  get(callId: string): CallSession | undefined {
    return this.live.get(callId);
  }

  /** True when the id is reserved or live. */
  isActive(callId: string): boolean {
    return this.reserved.has(callId) || this.live.has(callId);
  }

  /** `live` for an id reserved or live, `ended` for one that ended in this process (the ids `ConversationIds` asks about). */
  useOf(callId: string): IdUse | null {
    if (this.isActive(callId)) return 'live';
    return this.hasEnded(callId) ? 'ended' : null;
  }

  /** Number of live (and reserved) calls. */
  count(): number {
    return this.live.size + this.reserved.size;
  }

  /** Stops accepting calls. */
  startDraining(): void {
    this.draining = true;
  }

  /** True while draining. */
  isDraining(): boolean {
    return this.draining;
  }

  /** Resolves once no call is live or reserved (a reservation that becomes a call is waited for). */
  whenIdle(): Promise<void> {
    if (this.count() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIfIdle(): void {
    if (this.count() === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Every live call. */
  sessions(): CallSession[] {
    return [...this.live.values()];
  }
}
