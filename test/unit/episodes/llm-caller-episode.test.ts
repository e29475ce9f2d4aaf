import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredCallers, scriptedPolicy } from '../../../src/episodes/index.ts';
import { episodePack, playEpisode, routedTask, type EpisodePack } from '../../support/episode-rig.ts';
import { OpenAICompatibleStandIn } from '../../support/openai-compatible.ts';

describe('a text episode with the llm caller (issues 16 and 17 together)', () => {
  let rig: EpisodePack;
  let standIn: OpenAICompatibleStandIn;
  beforeAll(async () => {
    rig = await episodePack('healthcare');
    standIn = await OpenAICompatibleStandIn.start();
  }, 120_000);
  afterAll(async () => {
    rig?.close();
    await standIn?.close();
  });

  it('opens with the task line, asks the caller model for each reply, and still scores the agent alone', async () => {
    const task = routedTask(rig.pack);
    const callers = configuredCallers({ chat: { baseUrl: standIn.baseUrl, apiKey: 'sk-caller-test', model: 'caller-model-standin' }, seedBase: 0, maxTurns: 20 });
    const caller = callers({ pack: rig.pack, task, kind: 'llm', seed: 1, episodeId: 'ep_llm_caller' });
    expect(caller?.kind).toBe('llm');
    const result = await playEpisode(rig, scriptedPolicy(), task, { caller: caller ?? undefined });
    expect(result.status, result.reasons.join('\n')).toBe('PASS');
    const asked = standIn.chatRequests();
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.model === 'caller-model-standin' && r.temperature === 0)).toBe(true);
    expect(callers({ pack: rig.pack, task, kind: 'nobody', seed: 1, episodeId: 'x' })).toBeNull();
  });
});
