// Request-level tests of src/server/rl-mcp.ts: the MCP route of a pack (Streamable HTTP on the
// official SDK), whose session is an RL episode (docs/rl.md "MCP").
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const TOKEN = 'rl-mcp-token';
const MCP = '/rl/control-industry/mcp';
/** The headers a Streamable HTTP client sends with every POST. */
const HEADERS = { ...bearer(TOKEN), accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'rl-mcp-test', version: '1' } } };

describe('rl-mcp.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_RL_TOKEN: TOKEN });
  }, 120_000);
  afterAll(async () => server.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = HEADERS) => server.app.inject({ method: 'POST', url, headers, payload: payload as object });
  /** The JSON-RPC error of a refusal answered before any transport: its HTTP status, RPC code and catalogued code. */
  const rpcRefusal = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
    const body = res.json() as { jsonrpc: string; id: null; error: { code: number; data: { code: string } } };
    expect(res.headers.connection).toBe('close');
    return { status: res.statusCode, rpc: body.error.code, code: body.error.data.code };
  };

  it('is behind the RL gate: no token, 401 and the connection closed', async () => {
    expectProblem(await post(MCP, INITIALIZE, { ...HEADERS, authorization: 'Bearer nope' }), 'RL_UNAUTHORIZED');
  });

  it('refuses a request that is not initialize without a session, and a session it does not hold', async () => {
    expect(rpcRefusal(await post(MCP, { jsonrpc: '2.0', id: 2, method: 'tools/list' }))).toEqual({ status: 400, rpc: -32000, code: 'MCP_SESSION_REQUIRED' });
    expect(rpcRefusal(await post(MCP, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...HEADERS, 'mcp-session-id': 'ep_nobody' }))).toEqual({ status: 404, rpc: -32001, code: 'EPISODE_NOT_FOUND' });
  });

  it('opens an episode on initialize with the id the client chose, lists its tools, and refuses that id a second time', async () => {
    const url = `${MCP}?task_id=S-E1&episode_id=ep_mcp_chosen`;
    const init = await post(url, INITIALIZE);
    expect(init.statusCode).toBe(200);
    expect(init.headers['mcp-session-id']).toBe('ep_mcp_chosen');
    expect(init.body).toContain('"protocolVersion"');
    const session = { ...HEADERS, 'mcp-session-id': 'ep_mcp_chosen', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    expect((await post(MCP, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).statusCode).toBe(202);
    const tools = await post(MCP, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, session);
    expect(tools.statusCode).toBe(200);
    expect(tools.body).toContain('transfer_to_scheduler');
    // The id is held now (one owner of ids): an MCP client, and a caller or tool route, cannot take it again.
    expect(rpcRefusal(await post(url, INITIALIZE))).toMatchObject({ code: 'EPISODE_INVALID' });
    expect(server.ctx.callIds.useOf('ep_mcp_chosen')).toBe('used');
  });

  it("refuses a chosen id outside the episodes' namespace (a call's id)", async () => {
    expect(rpcRefusal(await post(`${MCP}?episode_id=call_0123456789ab`, INITIALIZE))).toMatchObject({ code: 'EPISODE_INVALID' });
  });
});
