import type { ConversationVerdict, Status } from '../scoring/index.ts';

/**
 * The reward definition's version. Bump it whenever a number below could change for the same
 * conversation, so rewards from different versions are never mixed (docs/rl.md "Reward").
 */
export const REWARD_VERSION = 'mivas-reward/1';

/** The four parts of the reward, each in [0, 1]. */
export interface RewardComponents {
  /** 1 when the final database matches the task's expected state (gate 1). */
  readonly state: number;
  /** 1 when the required tool calls were made with matching arguments and outputs, and no forbidden one (gate 2). */
  readonly tools: number;
  /** 1 when the expected handoff path is an in-order subsequence of the transfers made (gate 3). */
  readonly handoff: number;
  /** (1 + |expected hops|) / (1 + |hops made|) when the handoff gate passes, else 0: shorter valid routes earn more. */
  readonly route: number;
}

/** What a trainer gets for one episode. */
export interface EpisodeReward {
  /** combined pass (state AND tools AND handoff) × route; 0 for a FAIL and for anything not scored. */
  readonly reward: number;
  readonly reward_components: RewardComponents;
  /** The scorer's status: PASS, FAIL, or VOID / UNMAPPED when the conversation could not be judged. */
  readonly status: Status;
  /** False when the verdict is not the policy's (VOID, UNMAPPED): drop these from training, do not learn 0. */
  readonly valid: boolean;
  /** Why: the failing gates' diff lines, or the void reason and its detail. */
  readonly reasons: readonly string[];
  readonly reward_version: string;
}

const ZERO: RewardComponents = { state: 0, tools: 0, handoff: 0, route: 0 };

/**
 * The reward of one scored conversation, read off the deterministic scorer's verdict alone
 * (scoring.md §7): the scalar is the verdict's own `reward`, so `mivas score` and the RL routes
 * can never disagree; the components are its three gates and the route factor.
 */
export function rewardOf(verdict: ConversationVerdict): EpisodeReward {
  const scored = verdict.status === 'PASS' || verdict.status === 'FAIL';
  if (!scored || !verdict.state || !verdict.tools || !verdict.handoff) {
    const reasons = verdict.void_reason ? [`void: ${verdict.void_reason}`, ...verdict.void_detail] : verdict.unmapped_reason ? [`unmapped: ${verdict.unmapped_reason}`] : [];
    return { reward: 0, reward_components: ZERO, status: verdict.status, valid: false, reasons, reward_version: REWARD_VERSION };
  }
  const handoff = verdict.handoff;
  const route = handoff.pass ? (1 + handoff.expected_path.length) / (1 + handoff.actual_path.length) : 0;
  return {
    reward: verdict.reward ?? 0,
    reward_components: { state: verdict.state.pass ? 1 : 0, tools: verdict.tools.pass ? 1 : 0, handoff: handoff.pass ? 1 : 0, route },
    status: verdict.status,
    valid: true,
    reasons: verdict.fail_reasons,
    reward_version: REWARD_VERSION,
  };
}
