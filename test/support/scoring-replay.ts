import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayOffline, type OfflineOptions, type RouteAction } from '../../src/conversation/index.ts';
import type { Pack } from '../../src/packs/index.ts';
import { syntheticSummary } from '../../src/scoring/index.ts';
import type { FinalState, Summary, TimelineEvent } from '../../src/snapshot/index.ts';
import { CallDatabases, ensureTemplate } from '../../src/store/index.ts';

/** A conversation replayed through the engine: the three parts the scorer reads, plus the raw .db bytes. */
export interface ReplayedCall {
  readonly summary: Summary;
  readonly events: TimelineEvent[];
  readonly final: FinalState;
  readonly db: Buffer;
}

type ReplayOptions = Omit<OfflineOptions, 'pack' | 'databases'> & { startedAt?: string; model?: string | null };

/** Per-test workspace that replays route actions through the conversation engine on fresh databases. */
export interface ReplayWorkspace {
  replay(actions: readonly RouteAction[], options: ReplayOptions, summary?: Partial<Summary>): ReplayedCall;
  close(): void;
}

/** Opens a workspace in a temp directory; close() removes it. */
export function replayWorkspace(pack: Pack): ReplayWorkspace {
  const dir = mkdtempSync(join(tmpdir(), 'mivas-score-'));
  const dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  return {
    replay(actions, options, summary = {}) {
      const { events, final, db } = replayOffline(actions, { ...options, pack, databases: dbs });
      const endReason = [...events].reverse().find((e) => e.type === 'call.ended');
      const full = { pack: pack.id, ...options, ...(endReason?.type === 'call.ended' ? { endReason: endReason.end_reason } : {}) };
      return { summary: syntheticSummary(pack, full, summary), events, final, db };
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
