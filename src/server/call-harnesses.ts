import type { HarnessFactory } from '../providers/index.ts';

/**
 * The harness each call gets: the served one (MIVAS_HARNESS), or one assigned to a single call id
 * for as long as something needs it (a speech rollout's policy endpoint, docs/rl.md). The CHIRP
 * route asks `for(callId)`; only the assigner releases.
 */
export class CallHarnesses {
  private readonly assigned = new Map<string, HarnessFactory>();
  /** The served harness. */
  readonly served: HarnessFactory;

  constructor(served: HarnessFactory) {
    this.served = served;
  }

  /** The harness a call with this id runs on. */
  for(callId: string): HarnessFactory {
    return this.assigned.get(callId) ?? this.served;
  }

  /** Gives one call id its own harness until `release`. */
  assign(callId: string, harness: HarnessFactory): void {
    this.assigned.set(callId, harness);
  }

  release(callId: string): void {
    this.assigned.delete(callId);
  }

  /** Call ids with a harness of their own now. */
  get size(): number {
    return this.assigned.size;
  }
}
