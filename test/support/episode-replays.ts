import { createHash } from 'node:crypto';
import { ManualClock, seededIds } from '../../src/core/index.ts';
import { builtInCallers, EpisodeDesk, noopPolicy, scriptedPolicy, type EpisodeResult, type HandoffMode, type TextPolicy } from '../../src/episodes/index.ts';
import type { SnapshotPart } from '../../src/snapshot/index.ts';
import { episodePack } from './episode-rig.ts';

/** What one replayed episode left behind: the sha256 of each snapshot part and of its result (reward and verdict). */
export interface ReplayPrint {
  readonly parts: Record<string, string>;
  readonly result: string;
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

interface Plan {
  readonly pack: string;
  readonly taskId: string;
  readonly policy: TextPolicy;
  readonly handoffMode: HandoffMode;
  readonly maxTurns?: number;
}

/**
 * The packs whose prints were recorded before the desk's speed work, in the order they were played:
 * the fixture is a record of those bytes, so a pack added later has no earlier print to hold to and
 * would only shift the seeded ids of the recorded ones.
 */
const RECORDED_PACKS = ['healthcare', 'legal', 'customer-support'] as const;

/**
 * Replays a fixed set of text episodes on an episode desk with a manual clock and seeded ids (so
 * every byte is reproducible), all at once so their steps interleave, and fingerprints what each
 * left: its five snapshot parts as the store received them and its scored result. Per recorded pack:
 * the reference routes of its first four tasks (soft and native handoffs), a noop episode, and one
 * cut off by a two-action turn cap. Keyed `<pack>/<task>/<variant>`.
 */
export async function replayPrints(): Promise<Record<string, ReplayPrint>> {
  const rigs = await Promise.all(RECORDED_PACKS.map((id) => episodePack(id)));
  const stored = new Map<string, ReadonlyMap<SnapshotPart, Buffer>>();
  const desk = new EpisodeDesk({
    packs: new Map(rigs.map((r) => [r.pack.id, { pack: r.pack, databases: r.databases, templateDump: r.templateDump }])),
    maxEpisodes: 100,
    idleMs: 600_000,
    clock: new ManualClock(),
    ids: seededIds('replay-prints'),
    callers: builtInCallers,
    store: (pack, callId, parts) => stored.set(`${pack}/${callId}`, parts),
  });
  try {
    const plans: Plan[] = rigs.flatMap((rig) => {
      const ids = [...rig.pack.tasks.keys()].sort();
      const first = ids[0] as string;
      return [
        ...ids.slice(0, 4).map((taskId, i): Plan => ({ pack: rig.pack.id, taskId, policy: scriptedPolicy(), handoffMode: i % 2 ? 'native' : 'soft' })),
        { pack: rig.pack.id, taskId: first, policy: noopPolicy(), handoffMode: 'soft' },
        { pack: rig.pack.id, taskId: first, policy: scriptedPolicy(), handoffMode: 'native', maxTurns: 2 },
      ];
    });
    // Opened one after another so the seeded ids fall to the same episodes on every run.
    const opened = [];
    for (const p of plans) opened.push((await desk.open({ pack: p.pack, taskId: p.taskId, handoffMode: p.handoffMode, maxTurns: p.maxTurns, policy: p.policy.name })).episode);
    const results: EpisodeResult[] = await Promise.all(
      opened.map(async (episode, i) => {
        const plan = plans[i] as Plan;
        await plan.policy.play({ pack: episode.pack, task: episode.task, isDone: () => episode.isDone(), step: (action) => desk.step(episode.id, action) }, null);
        return desk.finish(episode.id, 'policy_stopped');
      }),
    );
    const prints: Record<string, ReplayPrint> = {};
    results.forEach((result, i) => {
      const plan = plans[i] as Plan;
      const parts = stored.get(`${result.pack}/${result.episode_id}`) ?? new Map<SnapshotPart, Buffer>();
      const variant = plan.maxTurns ? 'turn-cap' : `${plan.policy.name}-${plan.handoffMode}`;
      prints[`${plan.pack}/${plan.taskId}/${variant}`] = {
        parts: Object.fromEntries([...parts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([part, body]) => [part, sha256(body)])),
        result: sha256(JSON.stringify(result)),
      };
    });
    return prints;
  } finally {
    await desk.close();
    for (const rig of rigs) rig.close();
  }
}
