import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRoute } from '../../src/conversation/index.ts';
import { episodeInfoSchema, observationSchema, scriptedPolicy, type EpisodeAction, type PlayableEpisode, type TextPolicy } from '../../src/episodes/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';
import { packOf, routedTask } from '../support/episode-rig.ts';
import { GenericEnvClient, MCPToolClient, openEnvJsonRpcResponse, openEnvWsObservation, openEnvWsState, type WireLog } from '../support/openenv-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Acceptance for the OpenEnv contract (issue 25): OpenEnv's own clients, re-told message for
 * message in test/support/openenv-clients.ts (huggingface/OpenEnv 385de5e: env_client.py,
 * generic_client.py, mcp_client.py), play a handoff task of two packs by its reference route
 * (reward 1) and by a wrong route (its calls without the handoffs: reward 0). Every observation
 * they receive is checked by the strict schemas of OpenEnv's pydantic models and by mivas's
 * documented observation schema, and the reward is asserted where each client reads it.
 * The OpenEnv clients send no Authorization header, so this server runs without MIVAS_RL_TOKEN.
 */

let server: TestServer;
const base = (packId: string): string => `${server.httpUrl}/rl/${packId}/openenv`;

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_PACKS: 'control-industry' });
}, 120_000);

afterAll(async () => {
  await server.close();
});

/** A client's step function as a scripted policy plays it. */
function playable(pack: Pack, task: Task, act: (action: EpisodeAction) => Promise<{ output: Record<string, unknown>; done: boolean }>): PlayableEpisode {
  let done = false;
  return {
    pack,
    task,
    isDone: () => done,
    async step(action) {
      const r = await act(action);
      done = r.done;
      return r;
    },
  };
}

const reference = (): TextPolicy => scriptedPolicy();
/** The task's calls without its handoffs: the engine refuses them at the entry desk, so the run fails. */
const wrongRoute = (pack: Pack, task: Task): TextPolicy => scriptedPolicy({ steps: planRoute(pack, task).steps.filter((s) => s.kind === 'call') });

/** Every WebSocket reply: OpenEnv's response models, mivas's strict observation schema, and MCPToolClient's parse of the same payload. */
function checkWire(wire: WireLog): void {
  expect(wire.length).toBeGreaterThan(0);
  for (const { type, message } of wire) {
    if (type === 'state') {
      openEnvWsState.parse(message);
      continue;
    }
    if (type.startsWith('rpc:')) {
      openEnvJsonRpcResponse.parse(message);
      continue;
    }
    const reply = openEnvWsObservation.parse(message);
    observationSchema.parse(reply.data.observation);
    new MCPToolClient('http://unused').parse(reply.data);
  }
}

/** The index of a task among the pack's tasks sorted by id: the seed that picks it. */
function seedOf(pack: Pack, task: Task): number {
  return [...pack.tasks.keys()].sort().indexOf(task.task_id);
}

describe.each(['healthcare', 'control-industry'])('OpenEnv clients on %s', (packId) => {
  let pack: Pack;
  let task: Task;
  beforeAll(async () => {
    pack = await packOf(packId);
    task = routedTask(pack);
    expect(task.exp_handoff_path.length).toBeGreaterThan(0);
  });

  it('GenericEnvClient: reset honours task_id, seed and episode_id; reward 1 and 0 on the last step, in its metadata and in state', async () => {
    const env = new GenericEnvClient(base(packId));
    const episodeId = `ep_generic_${packId.replace('-', '_')}`;
    const opened = await env.reset({ task_id: task.task_id, seed: 3, episode_id: episodeId });
    expect(opened).toMatchObject({ reward: null, done: false, observation: { metadata: { episode_id: episodeId, task_id: task.task_id, agent: pack.entryAgent, caller_said: expect.any(String) } } });
    const act = async (a: EpisodeAction) => {
      const r = await env.step({ type: 'call_tool', tool_name: a.name, arguments: a.arguments });
      return { output: (r.observation.result as { data: Record<string, unknown> }).data, done: r.done, reward: r.reward, metadata: r.observation.metadata as Record<string, unknown> };
    };
    const steps: Awaited<ReturnType<typeof act>>[] = [];
    await reference().play(
      playable(pack, task, async (a) => {
        const r = await act(a);
        steps.push(r);
        return r;
      }),
      null,
    );
    const last = steps.at(-1);
    expect(last).toMatchObject({ done: true, reward: 1, metadata: { reward: 1, status: 'PASS', end_reason: 'agent_end_call' } });
    expect(steps.slice(0, -1).every((s) => s.reward === null && s.done === false)).toBe(true);
    expect(await env.state()).toMatchObject({ episode_id: episodeId, done: true, reward: 1 });

    const again = await env.reset({ seed: seedOf(pack, task) });
    expect((again.observation.metadata as { task_id: string }).task_id).toBe(task.task_id);
    steps.length = 0;
    await wrongRoute(pack, task).play(
      playable(pack, task, async (a) => {
        const r = await act(a);
        steps.push(r);
        return r;
      }),
      null,
    );
    expect(steps.at(-1)).toMatchObject({ done: true, reward: 0, metadata: { reward: 0, status: 'FAIL' } });
    expect(await env.state()).toMatchObject({ done: true, reward: 0 });
    checkWire(env.wire);
    await env.close();
  });

  it('MCPToolClient over the WebSocket: reset parses, the handoff brings the new desk in metadata, reward 1 and 0 on the step result', async () => {
    const env = new MCPToolClient(base(packId));
    const episodeId = `ep_mcpws_${packId.replace('-', '_')}`;
    const opened = await env.reset({ task_id: task.task_id, seed: 1, episode_id: episodeId });
    expect(opened.observation.kind).toBe('observation');
    const info = episodeInfoSchema.parse(opened.observation.metadata);
    expect(info).toMatchObject({ episode_id: episodeId, task_id: task.task_id, agent: pack.entryAgent, instructions: expect.stringContaining('# THIS CONVERSATION'), caller_said: expect.any(String) });
    const entryTools = (await env.listTools()).map((t) => t.name);
    expect(entryTools).toEqual(info.available_tools.map((t) => t.name));
    const said = (await env.callTool('say_to_caller', { text: 'Sure, let me take care of that.' })) as { ok: boolean; data: { caller_said: string | null } };
    expect(said.ok).toBe(true);

    const results: Awaited<ReturnType<MCPToolClient['step']>>[] = [];
    const act = async (a: EpisodeAction) => {
      const r = await env.step({ type: 'call_tool', tool_name: a.name, arguments: a.arguments as Record<string, unknown> });
      results.push(r);
      if (r.observation.kind !== 'call_tool') throw new Error('a call_tool step must parse as a CallToolObservation');
      return { output: (r.observation.result as { data: Record<string, unknown> }).data, done: r.done };
    };
    await reference().play(playable(pack, task, act), null);
    const firstHop = results.find((r) => (r.observation.metadata as { handoff: unknown }).handoff !== null);
    const hop = episodeInfoSchema.parse(firstHop?.observation.metadata);
    expect(hop.agent).toBe(task.exp_handoff_path[0]?.replace(/^transfer_to_/, '') ?? hop.agent);
    expect(hop.agent).not.toBe(pack.entryAgent);
    expect(hop.instructions).toEqual(expect.stringContaining('# THIS CONVERSATION'));
    expect(hop.available_tools.map((t) => t.name)).not.toEqual(entryTools);
    expect((await env.listTools()).map((t) => t.name)).toEqual(entryTools); // the client's cache: call list_tools(use_cache=False)
    const last = results.at(-1);
    expect(last).toMatchObject({ reward: 1, done: true, observation: { kind: 'call_tool', reward: 1, done: true, error: null, metadata: { reward: 1, status: 'PASS' } } });
    expect(await env.state()).toEqual({ episode_id: episodeId, step_count: results.length + 1 });

    await env.reset({ task_id: task.task_id });
    results.length = 0;
    await wrongRoute(pack, task).play(playable(pack, task, act), null);
    expect(results.at(-1)).toMatchObject({ reward: 0, done: true, observation: { reward: 0, metadata: { reward: 0, status: 'FAIL' } } });
    checkWire(env.wire);
    await env.close();
  });

  it('MCPToolClient over HTTP: start_episode picks the task on the session it creates empty; get_reward gives 1 and 0', async () => {
    const play = async (policy: TextPolicy, episodeId: string): Promise<Record<string, unknown>> => {
      const env = new MCPToolClient(base(packId));
      env.useProductionMode = true;
      const entry = (await env.listTools()).map((t) => t.name);
      expect(entry).toContain('say_to_caller');
      expect(entry).not.toContain('start_episode');
      const opened = (await env.callTool('start_episode', { task_id: task.task_id, seed: 2, episode_id: episodeId, handoff_mode: 'native' })) as { metadata: unknown };
      expect(episodeInfoSchema.parse(opened.metadata)).toMatchObject({ episode_id: episodeId, task_id: task.task_id, agent: pack.entryAgent, available_tools: expect.any(Array) });
      let done = false;
      await policy.play(
        playable(pack, task, async (a) => {
          const output = (await env.callTool(a.name, a.arguments as Record<string, unknown>)) as Record<string, unknown>;
          done = ((await env.callTool('get_reward')) as { done: boolean }).done;
          return { output, done };
        }),
        null,
      );
      expect(done).toBe(true);
      const reward = (await env.callTool('get_reward')) as Record<string, unknown>;
      await expect(env.callTool('end_call', {})).rejects.toThrow(/has ended/);
      checkWire(env.wire);
      await env.close();
      const closeAnswer = env.wire.at(-1);
      expect(closeAnswer?.type).toBe('rpc:openenv/session/close');
      expect(closeAnswer?.message).toMatchObject({ result: { closed: true, reward: reward.reward } });
      return reward;
    };
    const tag = packId.replace('-', '_');
    expect(await play(reference(), `ep_mcphttp_ok_${tag}`)).toMatchObject({ episode_id: `ep_mcphttp_ok_${tag}`, task_id: task.task_id, done: true, reward: 1, status: 'PASS', reward_components: { state: 1, tools: 1, handoff: 1, route: 1 } });
    expect(await play(wrongRoute(pack, task), `ep_mcphttp_bad_${tag}`)).toMatchObject({ done: true, reward: 0, status: 'FAIL' });
  });
});

describe('OpenEnv HTTP sessions', () => {
  it('without start_episode the first tool opens the default task; start_episode after that and unknown sessions are refused', async () => {
    const env = new MCPToolClient(base('healthcare'));
    env.useProductionMode = true;
    const said = (await env.callTool('say_to_caller', { text: 'Hello, how can I help?' })) as { ok: boolean };
    expect(said.ok).toBe(true);
    const pack = await packOf('healthcare');
    expect(await env.callTool('get_reward')).toMatchObject({ task_id: [...pack.tasks.keys()].sort()[0], agent: pack.entryAgent, instructions: expect.stringContaining('# THIS CONVERSATION'), done: false, reward: null });
    await expect(env.callTool('start_episode', { task_id: routedTask(pack).task_id })).rejects.toThrow(/before a session's first call/);
    const unknown = await env.rpc('tools/call', { session_id: 'ses_nope', name: 'say_to_caller', arguments: { text: 'hi' } });
    expect(unknown).toMatchObject({ error: { code: -32602 } });
    await env.close();
  });
});

describe('the strict OpenEnv models refuse what pydantic refuses', () => {
  const parse = (observation: Record<string, unknown>, extra: Record<string, unknown> = {}) => () => new MCPToolClient('http://unused').parse({ observation, reward: null, done: false, ...extra });
  it('a reset with tool_name null (the outside check\'s failure), a foreign error, a non-dict metadata, an unknown Observation field', () => {
    expect(parse({ tool_name: null, result: null, error: null, metadata: {} })).toThrow();
    expect(parse({ tool_name: 'end_call', result: {}, error: { code: 'X', message: 'm' }, metadata: {} })).toThrow();
    expect(parse({ metadata: 'desk' })).toThrow();
    expect(parse({ tools: [{ name: 'a', description: 'b', input_schema: [] }] })).toThrow();
    expect(parse({ metadata: {} }, { reward: 'high' })).toThrow();
    expect(parse({ tool_name: 'end_call', result: {}, error: null, metadata: {} })()).toMatchObject({ observation: { kind: 'call_tool', tool_name: 'end_call', error: null } });
    expect(() => openEnvWsObservation.parse({ type: 'observation', data: { observation: {}, reward: null, done: false, info: {} } })).toThrow();
  });
});
