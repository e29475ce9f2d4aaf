// Request-level tests of src/server/tool-routes.ts: the HTTP tool and state routes of an external
// harness, behind their own bearer token (docs/operations.md "HTTP tool routes").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const TOKEN = 'tool-routes-token';

describe('tool-routes.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_TOOLS_TOKEN: TOKEN });
  });
  afterAll(async () => server.close());

  const post = (url: string, headers: Record<string, string>, payload: unknown = {}) => server.app.inject({ method: 'POST', url, headers, payload: payload as object });

  it('refuses a wrong or missing token with 401, a Bearer challenge and Connection: close', async () => {
    for (const headers of [{}, bearer('nope'), { authorization: `Basic ${TOKEN}` }]) {
      const res = await post('/calls/tr_auth/tools/check_date', headers);
      expectProblem(res, 'TOOLS_UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="mivas-tools"');
    }
    // Nothing was opened for the refused requests.
    expect(server.ctx.harnessSessions.count()).toBe(0);
  });

  it('refuses a missing or malformed call id, an unknown tool and a body that is not an object', async () => {
    expectProblem(await post('/tools/check_date', bearer(TOKEN)), 'CALL_ID_MISSING');
    expectProblem(await post('/calls/a..b%2Fc/tools/check_date', bearer(TOKEN)), 'CALL_ID_INVALID');
    expect(expectProblem(await post('/calls/tr_x/tools/no_such_tool', bearer(TOKEN)), 'UNKNOWN_TOOL')).toContain('no_such_tool');
    expectProblem(await post('/calls/tr_x/tools/check_date', bearer(TOKEN), [1, 2]), 'BODY_NOT_OBJECT');
    expectProblem(await server.app.inject({ method: 'GET', url: '/calls/tr_never/state', headers: bearer(TOKEN) }), 'CALL_NOT_FOUND');
  });

  it("runs tools on a scratch conversation (a handoff, then the new agent's tool) and shows its state", async () => {
    const headers = { ...bearer(TOKEN), 'x-mivas-call-id': 'tr_scratch' };
    const handoff = await post('/tools/transfer_to_scheduler', headers);
    expect(handoff.statusCode).toBe(200);
    expect(handoff.json()).toEqual({ assistant: 'scheduler' });
    const check = await post('/calls/tr_scratch/tools/check_date', bearer(TOKEN), { date: '2026-10-07' });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ ok: true });
    const booked = await post('/calls/tr_scratch/tools/book_appointment', bearer(TOKEN), { date: '2026-10-07' });
    expect(booked.json()).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    const state = await server.app.inject({ method: 'GET', url: '/calls/tr_scratch/state', headers: bearer(TOKEN) });
    expect(state.statusCode).toBe(200);
    expect((state.json() as { appointments: { date: string }[] }).appointments.map((a) => a.date)).toEqual(['2026-10-07']);
    expect(server.ctx.callIds.useOf('tr_scratch')).toBe('scratch');
  });
});

describe('tool-routes.ts without MIVAS_TOOLS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry' });
  });
  afterAll(async () => server.close());

  it('answers every tool route 404 HTTP_TOOLS_OFF, whatever the token, with no challenge', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/calls/tr_off/tools/check_date', headers: bearer('anything'), payload: {} });
    expectProblem(res, 'HTTP_TOOLS_OFF');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
