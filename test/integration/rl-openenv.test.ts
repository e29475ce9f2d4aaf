import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../../src/episodes/index.ts';
import type { Pack } from '../../src/packs/index.ts';
import { routedTask } from '../support/episode-rig.ts';
import { OpenEnvClient, request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'rl-secret';
const AUTH = { authorization: `Bearer ${TOKEN}` };
let server: TestServer;
let pack: Pack;
const http = (): string => `${server.httpUrl}/rl/healthcare/openenv`;
const wsUrl = (): string => `${server.wsUrl}rl/healthcare/openenv/ws`;
const connect = (): Promise<OpenEnvClient> => OpenEnvClient.connect(wsUrl(), pack, routedTask(pack), AUTH);

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN });
  pack = server.ctx.pack;
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe('OpenEnv HTTP routes', () => {
  it('answers /health, /schema, /metadata and the stateless /state', async () => {
    expect((await request(`${http()}/health`, undefined, AUTH)).body).toEqual({ status: 'healthy' });
    const schema = (await request(`${http()}/schema`, undefined, AUTH)).body as { action: { oneOf?: { properties: { type: { const: string } } }[] }; observation: { properties: Record<string, unknown> }; state: { properties: Record<string, unknown> } };
    expect(schema.action.oneOf?.map((s) => s.properties.type.const)).toEqual(['list_tools', 'call_tool']);
    expect(Object.keys(schema.observation.properties)).toEqual(['tool_name', 'result', 'error', 'tools', 'metadata']);
    expect(Object.keys(schema.state.properties)).toEqual(expect.arrayContaining(['episode_id', 'step_count']));
    expect((await request(`${http()}/metadata`, undefined, AUTH)).body).toMatchObject({ name: 'mivas-healthcare', author: 'mivas', description: expect.stringContaining('Straus Dermatology') });
    expect((await request(`${http()}/state`, undefined, AUTH)).body).toMatchObject({ episode_id: null, step_count: 0 });
  });

  it('previews a reset statelessly and lists tools on /step; a call_tool needs a session', async () => {
    const task = routedTask(pack);
    const reset = await request(`${http()}/reset`, { task_id: task.task_id }, AUTH);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ observation: { metadata: { episode_id: null, task_id: task.task_id, agent: 'reception', caller_said: expect.stringContaining('Aetna') } }, reward: null, done: false });
    const listed = await request(`${http()}/step`, { action: { type: 'list_tools' } }, AUTH);
    const listedNames = (listed.body.observation as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(listedNames).toContain('transfer_to_coverage');
    expect(listedNames).not.toContain('check_plan_accepted');
    const call = await request(`${http()}/step`, { action: { type: 'call_tool', tool_name: 'list_locations', arguments: {} } }, AUTH);
    expect(call.status).toBe(404);
    expect(call.body).toMatchObject({ error: { code: 'EPISODE_NOT_FOUND' } });
    const invalid = await request(`${http()}/step`, { action: { type: 'dance' } }, AUTH);
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('needs the bearer token on every route and on the WebSocket upgrade', async () => {
    const res = await request(`${http()}/health`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'RL_UNAUTHORIZED' } });
    await expect(OpenEnvClient.connect(wsUrl(), pack, routedTask(pack))).rejects.toThrow('401');
  });

  it('runs MCP sessions over POST /mcp: create, tools/list, tools/call, close with the reward', async () => {
    const task = routedTask(pack);
    const rpc = (method: string, params: Record<string, unknown>, id = 1) => request(`${http()}/mcp`, { jsonrpc: '2.0', method, params, id }, AUTH);
    const created = await rpc('openenv/session/create', { task_id: task.task_id });
    const sessionId = (created.body.result as { session_id: string }).session_id;
    expect(sessionId).toMatch(/^ses_/);
    const listed = await rpc('tools/list', { session_id: sessionId }, 2);
    expect(listed.body).toMatchObject({ jsonrpc: '2.0', id: 2, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'transfer_to_coverage', inputSchema: expect.any(Object) })]) } });
    const hop = await rpc('tools/call', { session_id: sessionId, name: 'transfer_to_coverage', arguments: {} }, 3);
    expect(hop.body.result).toMatchObject({ isError: false, data: { assistant: 'coverage' }, content: [{ type: 'text', text: '{"assistant":"coverage"}' }] });
    const refused = await rpc('tools/call', { session_id: sessionId, name: 'get_balance', arguments: {} }, 4);
    expect(refused.body.result).toMatchObject({ isError: true, data: { error_code: 'TOOL_NOT_AVAILABLE' } });
    const closed = await rpc('openenv/session/close', { session_id: sessionId }, 5);
    expect(closed.body.result).toMatchObject({ session_id: sessionId, closed: true, done: true, status: 'FAIL', reward: 0, end_reason: 'max_duration', truncated: 'client_closed' });
    expect((await rpc('tools/call', { session_id: sessionId, name: 'list_locations' })).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc('tools/call', { session_id: 'ep_unknown', name: 'list_locations' })).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc('tools/call', { name: 'list_locations' })).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc('resources/list', {})).body).toMatchObject({ error: { code: -32601 } });
    expect((await rpc('openenv/session/close', {})).body).toMatchObject({ error: { code: -32602 } });
  });
});

describe('OpenEnv WebSocket /ws', () => {
  it('resets, steps the scripted route to done with reward 1, reports state, and closes', async () => {
    const task = routedTask(pack);
    const client = await connect();
    const reset = await client.send({ type: 'reset', data: { task_id: task.task_id, seed: 3 } });
    expect(reset).toMatchObject({ type: 'observation', data: { reward: null, done: false, observation: { metadata: { episode_id: expect.stringMatching(/^ep_/), agent: 'reception', caller_said: expect.stringContaining('Aetna'), handoff_mode: 'native' } } } });
    const observation = (reset.data as { observation: { metadata: { available_tools: { name: string; input_schema: unknown }[]; instructions: string } } }).observation.metadata;
    expect(observation.available_tools[0]).toMatchObject({ name: 'say_to_caller', input_schema: expect.any(Object) });
    expect(observation.instructions).toContain('# THIS CONVERSATION');
    const listed = await client.send({ type: 'step', data: { type: 'list_tools' } });
    expect((listed.data as { observation: { tools: { name: string }[] } }).observation.tools.map((t) => t.name)).toContain('transfer_to_coverage');
    const hop = await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'transfer_to_coverage', arguments: {} } });
    expect(hop).toMatchObject({ type: 'observation', data: { reward: null, done: false, observation: { tool_name: 'transfer_to_coverage', metadata: { agent: 'coverage', handoff: { from: 'reception', to: 'coverage' } }, result: { data: { assistant: 'coverage' } } } } });
    expect((hop.data as { observation: { metadata: { available_tools: { name: string }[] } } }).observation.metadata.available_tools.map((t) => t.name)).toContain('check_plan_accepted');
    const refused = await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'get_balance', arguments: {} } });
    expect(refused).toMatchObject({ data: { observation: { result: { isError: true, data: { error_code: 'TOOL_NOT_AVAILABLE' } } } } });
    const owned = await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'check_plan_accepted', arguments: { carrier: 'aetna', location_id: 'loc_park_ave' } } });
    expect(owned).toMatchObject({ data: { observation: { result: { isError: false } } } });
    const end = await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'end_call', arguments: { reason: 'caller_done' } } });
    expect(end).toMatchObject({ data: { reward: 1, done: true, observation: { metadata: { end_reason: 'agent_end_call', status: 'PASS', reward: 1, reward_components: { state: 1, tools: 1, handoff: 1, route: 1 } } } } });
    const state = await client.send({ type: 'state' });
    expect(state).toMatchObject({ type: 'state', data: { episode_id: (reset.data as { observation: { metadata: { episode_id: string } } }).observation.metadata.episode_id, step_count: 4, done: true, reward: 1, task_id: task.task_id } });
    const after = await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'end_call', arguments: {} } });
    expect(after).toMatchObject({ type: 'error', data: { code: 'EPISODE_ENDED' } });
    client.sendOnly({ type: 'close' });
    expect(await client.closed).toBe(1000);
  });

  it('plays a whole episode with the scripted policy through the client', async () => {
    const task = routedTask(pack);
    const client = await connect();
    await client.send({ type: 'reset', data: { task_id: task.task_id, handoff_mode: 'soft' } });
    await scriptedPolicy().play(client, null);
    expect(client.isDone()).toBe(true);
    const state = await client.send({ type: 'state' });
    expect(state.data).toMatchObject({ done: true, reward: 1 });
    client.close();
  });

  it('answers protocol errors and keeps the socket open', async () => {
    const client = await connect();
    expect(await client.send('{not json')).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
    expect(await client.send({ type: 'dance' })).toMatchObject({ type: 'error', data: { code: 'UNKNOWN_TYPE', message: 'Unknown message type: dance' } });
    expect(await client.send({ type: 'step', data: { type: 'call_tool', tool_name: 'list_locations' } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_NOT_FOUND' } });
    expect(await client.send({ type: 'step', data: { type: 'call_tool' } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', errors: expect.any(Array) } });
    expect(await client.send({ type: 'reset', data: { task_id: 'NOPE-1' } })).toMatchObject({ type: 'error', data: { code: 'EPISODE_INVALID' } });
    expect(await client.send({ type: 'reset', data: { colour: 'blue' } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await client.send({ type: 'state', extra: 1 })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await client.send({ type: 'state' })).toMatchObject({ type: 'state', data: { episode_id: null, step_count: 0, done: false } });
    client.close();
  });

  it('speaks MCP JSON-RPC in mcp messages on the session\'s episode', async () => {
    const client = await connect();
    const before = await client.send({ type: 'mcp', data: { jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 } });
    expect(before).toMatchObject({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } } });
    await client.send({ type: 'reset', data: { task_id: routedTask(pack).task_id } });
    const call = await client.send({ type: 'mcp', data: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'say_to_caller', arguments: { text: 'How can I help?' } }, id: 'a' } });
    expect(call).toMatchObject({ type: 'mcp', data: { id: 'a', result: { isError: false, data: { ok: true, data: { caller_said: null, caller_hung_up: false } }, _meta: { 'mivas/done': false } } } });
    expect(await client.send({ type: 'mcp', data: { jsonrpc: '2.0', method: 'prompts/list', id: 2 } })).toMatchObject({ data: { error: { code: -32601 } } });
    expect(await client.send({ type: 'mcp', data: { jsonrpc: '2.0', method: 'tools/call', params: {}, id: 3 } })).toMatchObject({ data: { error: { code: -32602 } } });
    expect(await client.send({ type: 'state' })).toMatchObject({ data: { step_count: 1 } });
    client.close();
  });

  it('finishes the episode of a socket that goes away, writing its snapshot as truncated', async () => {
    const client = await connect();
    const reset = await client.send({ type: 'reset', data: { task_id: routedTask(pack).task_id } });
    const id = (reset.data as { observation: { metadata: { episode_id: string } } }).observation.metadata.episode_id;
    client.close();
    await client.closed;
    for (let i = 0; i < 100 && !server.ctx.outbox.isSpooled('healthcare', id) && !(await server.ctx.sink.exists(`healthcare/${id}.summary.json`)); i++) await new Promise((r) => setTimeout(r, 20));
    await server.ctx.outbox.flush();
    const summary = JSON.parse(String(await server.ctx.sink.get(`healthcare/${id}.summary.json`))) as { harness: string; end_reason: string };
    expect(summary).toMatchObject({ harness: 'text/openenv', end_reason: 'max_duration' });
  });
});

describe('OpenEnv at capacity', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_RL_MAX_EPISODES: '1' });
  }, 60_000);
  afterAll(async () => {
    await small.close();
  });

  it('sends CAPACITY_REACHED and closes when every episode slot is taken', async () => {
    const control = small.ctx.pack;
    const task = [...control.tasks.values()][0] as NonNullable<ReturnType<typeof control.tasks.get>>;
    const first = await OpenEnvClient.connect(`${small.wsUrl}rl/control-industry/openenv/ws`, control, task);
    expect(await first.send({ type: 'reset', data: {} })).toMatchObject({ type: 'observation' });
    const second = await OpenEnvClient.connect(`${small.wsUrl}rl/control-industry/openenv/ws`, control, task);
    expect(await second.next()).toMatchObject({ type: 'error', data: { code: 'CAPACITY_REACHED', max_sessions: 1 } });
    expect(await second.closed).toBe(1013);
    const seeded = await request(`${small.httpUrl}/rl/control-industry/seed_session`, {});
    expect(seeded.status).toBe(503);
    expect(seeded.headers.get('retry-after')).toBe('5');
    expect(seeded.body).toMatchObject({ error: { code: 'EPISODES_FULL' } });
    first.close();
    await first.closed;
  });
});
