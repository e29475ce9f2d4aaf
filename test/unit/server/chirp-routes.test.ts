// Request-level tests of src/server/chirp-routes.ts: the CHIRP path behind the callers' Basic
// gate, its refusals before any 101, and the probe's 101 (architecture.md §2-§4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, tryUpgrade } from '../../support/chirp-client.ts';
import { bearer, expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const USER = 'dialer';
const PASS = 'chirp-routes-pass';
const AUTH = { authorization: basicAuth(USER, PASS) };
/** The same pair as a WebSocket client sends it. */
const AUTH_HEADER = { Authorization: basicAuth(USER, PASS) };

describe('chirp-routes.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', CHIRP_USER: USER, CHIRP_PASS: PASS, MIVAS_TOOLS_TOKEN: 'chirp-tools' });
  });
  afterAll(async () => server.close());

  it('refuses a request without the Basic pair with 401, a Basic challenge and Connection: close, before the route', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/', headers: { authorization: basicAuth(USER, 'wrong') } });
    expectProblem(res, 'UNAUTHORIZED');
    expect(res.headers['www-authenticate']).toBe('Basic realm="mivas"');
  });

  it('answers a plain GET with the right pair 426 UPGRADE_REQUIRED and an Upgrade header, on / and any other path', async () => {
    for (const url of ['/', '/any/path']) {
      const res = await server.app.inject({ method: 'GET', url, headers: AUTH });
      expectProblem(res, 'UPGRADE_REQUIRED');
      expect(res.headers.upgrade).toBe('websocket');
    }
  });

  it('refuses an upgrade without credentials with 401, never a 101', async () => {
    const answer = await tryUpgrade(server.wsUrl, { 'X-Simulation-Result-Id': 'chirp_noauth' });
    expect([answer.status, answer.upgraded, answer.headers['www-authenticate']]).toEqual([401, false, 'Basic realm="mivas"']);
  });

  it.each([
    ['a call id that could name no file', 'a/b', 'CALL_ID_INVALID'],
    ["an RL episode's id", 'ep_0123456789abcdef01234567', 'CALL_ID_INVALID'],
  ])('refuses %s with 400 before the upgrade', async (_what, id, code) => {
    const answer = await tryUpgrade(server.wsUrl, { ...AUTH_HEADER, 'X-Simulation-Result-Id': id });
    expect(answer.upgraded).toBe(false);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code } });
  });

  it("refuses an id a tool route's scratch conversation holds with 409 CALL_ID_USED (one owner of ids for both routes)", async () => {
    const tool = await server.app.inject({ method: 'POST', url: '/tools/transfer_to_scheduler', headers: { ...bearer('chirp-tools'), 'x-mivas-call-id': 'chirp_scratch' }, payload: {} });
    expect(tool.statusCode).toBe(200);
    const answer = await tryUpgrade(server.wsUrl, { ...AUTH_HEADER, 'X-Simulation-Result-Id': 'chirp_scratch' });
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'CALL_ID_USED' } });
    // The refusal is counted under its reason.
    const metrics = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^mivas_upgrade_rejections_total\{reason="duplicate"\} 1$/m);
  });

  it('answers an authenticated probe with 101, taking no slot', async () => {
    const answer = await tryUpgrade(`${server.wsUrl}probe`, AUTH_HEADER);
    expect(answer.upgraded).toBe(true);
    expect(server.ctx.registry.count()).toBe(0);
  });
});


