import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { runCli } from '../../src/cli/index.ts';
import { planRoute } from '../../src/conversation/index.ts';
import { scriptedPolicy, type EpisodeAction, type PlayableEpisode } from '../../src/episodes/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';
import { routedTask } from '../support/episode-rig.ts';
import { PACKS_DIR } from '../support/scoring-fixtures.ts';
import { request } from '../support/rl-clients.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The MCP server at /rl/<pack>/mcp driven by the official MCP TypeScript SDK client
 * (`@modelcontextprotocol/sdk` 1.32: `Client` + `StreamableHTTPClientTransport`), unchanged:
 * initialize opens the episode named in the URL's query, tools/list and tools/call play it, the
 * `mivas://episode` resource gives the reward, DELETE (terminateSession) ends the session.
 */

const TOKEN = 'rl-secret';
let server: TestServer;
let pack: Pack;

beforeAll(async () => {
  server = await startTestServer({ MIVAS_PACK: 'healthcare', MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN });
  pack = server.ctx.pack;
}, 120_000);

afterAll(async () => {
  await server.close();
});

/** An MCP session as a scripted policy plays it: each action one tools/call, done read from the result's `_meta`. */
class McpEpisode implements PlayableEpisode {
  ended = false;
  listChanged = 0;

  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly pack: Pack;
  readonly task: Task;

  constructor(url: URL, packOfEpisode: Pack, task: Task) {
    this.pack = packOfEpisode;
    this.task = task;
    this.transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    this.client = new Client({ name: 'mivas-test', version: '1.0.0' });
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.listChanged++;
    });
  }

  isDone(): boolean {
    return this.ended;
  }

  async step(action: EpisodeAction): Promise<{ output: Record<string, unknown>; done: boolean }> {
    const result = (await this.client.callTool({ name: action.name, arguments: action.arguments as Record<string, unknown> })) as CallToolResult;
    this.ended = result._meta?.['mivas/done'] === true;
    return { output: result.structuredContent as Record<string, unknown>, done: this.ended };
  }

  async episode(): Promise<Record<string, unknown>> {
    const read = await this.client.readResource({ uri: 'mivas://episode' });
    const content = read.contents[0] as { text: string };
    return JSON.parse(content.text) as Record<string, unknown>;
  }
}

function mcpUrl(task: Task, extra: Record<string, string> = {}): URL {
  const url = new URL(`${server.httpUrl}/rl/healthcare/mcp`);
  url.searchParams.set('task_id', task.task_id);
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url;
}

/** `mivas score --fast` on the snapshot folder the server writes to: the verdict of one episode. */
async function scoredReward(episodeId: string): Promise<{ status: string; reward: number | null }> {
  await server.ctx.outbox.flush();
  const out = mkdtempSync(join(tmpdir(), 'mivas-mcp-score-'));
  try {
    const sink = { write: () => true };
    await runCli(['score', '--snapshots', join(server.dataDir, 'snapshots'), '--pack', 'healthcare', '--out', out, '--packs-dir', PACKS_DIR, '--fast', '--bootstrap', '100'], { stdout: sink, stderr: sink, env: {}, cwd: out });
    const scores = JSON.parse(readFileSync(join(out, 'scores.json'), 'utf8')) as { conversations: { conversation_id: string; status: string; reward: number | null }[] };
    const verdict = scores.conversations.find((c) => c.conversation_id === episodeId);
    return { status: verdict?.status ?? 'missing', reward: verdict?.reward ?? null };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('MCP server at /rl/<pack>/mcp with the official SDK client', () => {
  it('plays the reference route to reward 1, equal to the scorer on the snapshot, and the episode ends with the session', async () => {
    const task = routedTask(pack);
    const episode = new McpEpisode(mcpUrl(task, { seed: '2' }), pack, task);
    await episode.client.connect(episode.transport);
    const sessionId = episode.transport.sessionId as string;
    expect(sessionId).toMatch(/^ep_/);
    expect(episode.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: {} });
    expect(episode.client.getInstructions()).toContain('# THIS CONVERSATION');
    expect(episode.client.getInstructions()).toContain('Aetna');

    const entryTools = (await episode.client.listTools()).tools.map((t) => t.name);
    expect(entryTools[0]).toBe('say_to_caller');
    expect(entryTools).toContain('transfer_to_coverage');
    expect(entryTools).not.toContain('check_plan_accepted');
    expect(await episode.episode()).toMatchObject({ episode_id: sessionId, task_id: task.task_id, agent: 'reception', instructions: episode.client.getInstructions()?.split('\n\nThe caller said')[0], done: false, reward: null });

    await scriptedPolicy().play(episode, null);
    expect(episode.isDone()).toBe(true);
    expect(episode.listChanged).toBe(task.exp_handoff_path.length);

    const report = await episode.episode();
    expect(report).toMatchObject({ episode_id: sessionId, done: true, status: 'PASS', reward: 1, reward_components: { state: 1, tools: 1, handoff: 1, route: 1 }, end_reason: 'agent_end_call' });
    expect(await scoredReward(sessionId)).toEqual({ status: 'PASS', reward: report.reward });

    await episode.transport.terminateSession();
    await episode.client.close();
    expect(server.ctx.outbox.isSpooled('healthcare', sessionId) || (await server.ctx.sink.exists(`healthcare/${sessionId}.summary.json`))).toBe(true);
  });

  it('a wrong route (the calls without the handoffs) scores 0, as the scorer does', async () => {
    const task = routedTask(pack);
    const episode = new McpEpisode(mcpUrl(task), pack, task);
    await episode.client.connect(episode.transport);
    const sessionId = episode.transport.sessionId as string;
    const withoutHops = planRoute(pack, task).steps.filter((s) => s.kind === 'call');
    const refusal = await episode.client.callTool({ name: 'check_plan_accepted', arguments: { carrier: 'aetna', location_id: 'loc_park_ave' } });
    expect(refusal).toMatchObject({ isError: true, structuredContent: { error_code: 'TOOL_NOT_AVAILABLE' } });
    await scriptedPolicy({ steps: withoutHops }).play(episode, null);
    expect(episode.listChanged).toBe(0);
    const report = await episode.episode();
    expect(report).toMatchObject({ done: true, status: 'FAIL', reward: 0 });
    expect(await scoredReward(sessionId)).toEqual({ status: 'FAIL', reward: 0 });
    await expect(episode.client.callTool({ name: 'end_call', arguments: {} })).rejects.toThrow(/has ended/);
    await episode.transport.terminateSession();
    await episode.client.close();
  });

  it('refuses an unknown or closed session, a request before initialize, a bad task and a missing token', async () => {
    const task = routedTask(pack);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const headers = { ...auth, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const unknown = await fetch(`${server.httpUrl}/rl/healthcare/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'ep_000000000000000000000000' }, body: list });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32001, data: { code: 'EPISODE_NOT_FOUND' } } });
    const noSession = await fetch(`${server.httpUrl}/rl/healthcare/mcp`, { method: 'POST', headers, body: list });
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toMatchObject({ error: { data: { code: 'MCP_SESSION_REQUIRED' } } });
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(1024 * 1024 + 1) } });
    const tooLarge = await fetch(`${server.httpUrl}/rl/healthcare/mcp`, { method: 'POST', headers, body: huge });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });

    const closed = new McpEpisode(mcpUrl(task), pack, task);
    await closed.client.connect(closed.transport);
    const closedId = closed.transport.sessionId as string;
    await closed.transport.terminateSession();
    const after = await fetch(`${server.httpUrl}/rl/healthcare/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': closedId }, body: list });
    expect(after.status).toBe(404);
    const summary = await scoredReward(closedId);
    expect(summary.status).not.toBe('missing');

    const bad = new McpEpisode(mcpUrl({ ...task, task_id: 'NOPE-1' }), pack, task);
    await expect(bad.client.connect(bad.transport)).rejects.toThrow(/NOPE-1/);
    expect((await request(`${server.httpUrl}/rl/healthcare/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401);
  });
});

describe('MCP sessions are episodes: capacity and idle', () => {
  let small: TestServer;
  const clock = new ManualClock();
  beforeAll(async () => {
    small = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_RL_MAX_EPISODES: '1', MIVAS_RL_IDLE_S: '60' }, { clock });
  }, 60_000);
  afterAll(async () => {
    await small.close();
  });

  const url = (): URL => new URL(`${small.httpUrl}/rl/control-industry/mcp`);
  /** An SDK client connected to a new session (no token: this server runs without one). */
  async function session(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'mivas-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(url());
    await client.connect(transport);
    return { client, transport };
  }

  it('counts a session against MIVAS_RL_MAX_EPISODES until it is closed', async () => {
    const first = await session();
    await expect(session()).rejects.toThrow(/503|MCP sessions are open|episodes are live/);
    await first.transport.terminateSession();
    await first.client.close();
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'plain', version: '1' } } };
    const refused = await fetch(url(), { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(initialize) });
    expect(refused.status).toBe(406); // the transport's answer: the episode it was opened for is closed again, its slot free
    const third = await session();
    expect((await third.client.listTools()).tools.length).toBeGreaterThan(1);
    await third.transport.terminateSession();
    await third.client.close();
  });

  it('reaps a session idle for MIVAS_RL_IDLE_S: its episode ends as idle and the session is gone', async () => {
    const { client, transport } = await session();
    const sessionId = transport.sessionId as string;
    expect((await client.listTools()).tools.length).toBeGreaterThan(1);
    // Both reapers (the desk's and the sessions') run every idle/4 and re-arm after each sweep.
    for (let i = 0; i < 6; i++) {
      clock.advance(15_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 404; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await fetch(url(), { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }) })).status;
    }
    expect(status).toBe(404);
    await small.ctx.outbox.flush();
    const summary = JSON.parse(String(await small.ctx.sink.get(`control-industry/${sessionId}.summary.json`))) as { harness: string; end_reason: string };
    expect(summary).toMatchObject({ harness: 'text/mcp', end_reason: 'max_duration' });
    await client.close();
  });
});

describe('MCP sessions at shutdown', () => {
  it('the server closing ends an open session (its SSE stream included) and its episode leaves a snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mivas-mcp-close-'));
    const small = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1' }, {}, dataDir);
    const client = new Client({ name: 'left-open', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${small.httpUrl}/rl/control-industry/mcp`));
    await client.connect(transport);
    const id = transport.sessionId as string;
    await client.listTools();
    await small.close(); // a stream left open would hold the close past the test's timeout
    const summary = JSON.parse(readFileSync(join(dataDir, 'snapshots', 'control-industry', `${id}.summary.json`), 'utf8')) as { harness: string; end_reason: string };
    expect(summary).toMatchObject({ harness: 'text/mcp', end_reason: 'max_duration' });
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
