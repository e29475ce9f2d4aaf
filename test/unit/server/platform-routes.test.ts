// Request-level tests of src/server/platform-routes.ts (and the MCP route of call-mcp.ts it mounts):
// the routes a platform under test calls back on, behind MIVAS_PLATFORM_TOKEN (docs/platforms.md).
// They reach live calls a relay dialed only; their success paths, on calls a relay holds, are in
// test/integration/relay-platform-routes.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const TOKEN = 'platform-routes-token';

describe('platform-routes.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_PLATFORM_TOKEN: TOKEN });
  });
  afterAll(async () => server.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = bearer(TOKEN)) => server.app.inject({ method: 'POST', url, headers, payload: payload as object });

  it('refuses a wrong or missing token with 401, a Bearer challenge and Connection: close', async () => {
    for (const headers of [{}, bearer('nope')]) {
      const res = await post('/platform/calls/pl_x/tools/check_date', {}, headers);
      expectProblem(res, 'PLATFORM_UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="mivas-platform"');
    }
  });

  it('refuses a call no relay dialed, opening nothing (unlike the tool routes, no scratch conversation)', async () => {
    expect(expectProblem(await post('/platform/calls/pl_nobody/tools/check_date', { date: '2026-10-07' }), 'CALL_NOT_BOUND')).toContain('pl_nobody');
    const mcp = await post('/platform/calls/pl_nobody/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, { ...bearer(TOKEN), accept: 'application/json, text/event-stream' });
    expect(mcp.statusCode).toBe(404);
    expect(mcp.json()).toMatchObject({ error: { data: { code: 'CALL_NOT_BOUND' } } });
    expect(server.ctx.harnessSessions.count()).toBe(0);
    expect(server.ctx.callIds.useOf('pl_nobody')).toBeNull();
  });

  it("refuses a body that is not Vapi's tool-calls message, and a Vapi call no relay bound", async () => {
    expectProblem(await post('/platform/vapi/tool-calls', { message: { type: 'status-update' } }), 'PLATFORM_BODY_INVALID');
    const unbound = { message: { type: 'tool-calls', call: { id: 'vapi_call_1' }, toolCallList: [{ id: 'tc_1', function: { name: 'check_date', arguments: '{"date":"2026-10-07"}' } }] } };
    expect(expectProblem(await post('/platform/vapi/tool-calls', unbound), 'CALL_NOT_BOUND')).toContain('vapi_call_1');
  });
});

describe('platform-routes.ts without MIVAS_PLATFORM_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry' });
  });
  afterAll(async () => server.close());

  it('answers PLATFORM_ROUTES_OFF with no challenge', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/platform/vapi/tool-calls', headers: bearer('anything'), payload: {} });
    expectProblem(res, 'PLATFORM_ROUTES_OFF');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
