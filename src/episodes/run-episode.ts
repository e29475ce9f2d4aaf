import type { EpisodeResult, EpisodeSpec } from './text-episode.ts';
import { TextEpisode } from './text-episode.ts';
import type { TextPolicy } from './policies.ts';

/**
 * Runs one whole text episode in-process with a policy harness: open, let the policy play, then
 * finish (a policy that stops before the end is truncated as `policy_stopped`; one that throws,
 * a failing model endpoint, ends the episode as `provider_error`, which the scorer voids).
 */
export async function runTextEpisode(policy: TextPolicy, spec: Omit<EpisodeSpec, 'policy' | 'model'>): Promise<EpisodeResult> {
  const { episode, callerSaid } = await TextEpisode.start({ ...spec, policy: policy.name, model: policy.model });
  if (!episode.isDone()) {
    try {
      await policy.play(episode, callerSaid);
    } catch (err) {
      return episode.abort('provider_error', `the policy failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return episode.finish('policy_stopped');
}
