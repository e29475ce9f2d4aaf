// Request-level tests of the routes src/server/app.ts registers itself: /health, /metrics, the
// not-found answer, and the refusal of a WebSocket upgrade on an HTTP route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tryUpgrade } from '../../support/chirp-client.ts';
import { expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('app.ts routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_MAX_CALLS: '3' });
  });
  afterAll(async () => server.close());

  it('GET /health answers 200 with the pack, the harness and the capacity, no credentials needed', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', pack: 'control-industry', harness: 'scripted', live_calls: 0, capacity: 3, harness_sessions: 0 });
  });

  it('GET /metrics answers the Prometheus text of this app, build info included', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/^mivas_build_info\{[^}]*pack="control-industry"[^}]*\} 1$/m);
  });

  it('answers a path no route takes with ROUTE_NOT_FOUND, naming the method and path but not the query, and closes the connection', async () => {
    const res = await server.app.inject({ method: 'DELETE', url: '/health/x?secret=1' });
    expect(expectProblem(res, 'ROUTE_NOT_FOUND')).toBe('no route for DELETE /health/x');
  });

  it('refuses a WebSocket upgrade on an HTTP route with 400 NOT_A_CHIRP_PATH, never a 101', async () => {
    const answer = await tryUpgrade(`${server.wsUrl}health`);
    expect(answer.upgraded).toBe(false);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'NOT_A_CHIRP_PATH' } });
    expect(answer.headers.connection).toBe('close');
  });

  it('answers /health 503 "draining" once the server drains', async () => {
    server.ctx.registry.startDraining();
    const res = await server.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'draining' });
  });
});
