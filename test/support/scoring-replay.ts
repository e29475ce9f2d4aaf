import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pack } from '../../src/packs/index.ts';
import { replayConversation, syntheticSummary, syntheticTimeline, type RouteAction, type SyntheticCallOptions } from '../../src/scoring/index.ts';
import type { FinalState, Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { CallDatabases, ensureTemplate } from '../../src/store/index.ts';

/** A replayed synthetic conversation: the three parts the scorer reads, plus the raw .db bytes. */
export interface ReplayedCall {
  readonly summary: Summary;
  readonly events: TimelineEvent[];
  readonly final: FinalState;
  readonly db: Buffer;
}

/** Per-test workspace that replays route actions on fresh copies of a pack's template. */
export interface ReplayWorkspace {
  replay(actions: readonly RouteAction[], options: Partial<SyntheticCallOptions> & { callId: string; taskId: string | null; startedAt?: string; model?: string | null }, summary?: Partial<Summary>): ReplayedCall;
  close(): void;
}

/** Opens a workspace in a temp directory; close() removes it. */
export function replayWorkspace(pack: Pack): ReplayWorkspace {
  const dir = mkdtempSync(join(tmpdir(), 'mivas-score-'));
  const dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  return {
    replay(actions, options, summary = {}) {
      const database = dbs.acquire(options.callId);
      try {
        const { steps, final } = replayConversation(pack, database, actions, options.callId);
        const full = { pack: pack.id, ...options };
        return { summary: syntheticSummary(pack, full, summary), events: syntheticTimeline(steps, full), final, db: database.sqlite.serialize() };
      } finally {
        dbs.remove(options.callId);
      }
    },
    close() {
      dbs.closeAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The reference route of control-industry S-E1: hop to the scheduler, book 2026-10-07. */
export const S_E1_ROUTE: readonly RouteAction[] = [
  { kind: 'hop', to: 'scheduler' },
  { kind: 'call', name: 'book_appointment', parameters: { date: '2026-10-07' } },
];
