// Request-level tests of src/server/ui-routes.ts: the results UI under /ui, behind the callers'
// Basic gate (docs/ui.md). The pages themselves with scores are test/browser/; here, the routes'
// answers on a server that has scored nothing yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth } from '../../support/chirp-client.ts';
import { expectProblem } from '../../support/route-requests.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const AUTH = { authorization: basicAuth('viewer', 'ui-routes-pass') };

describe('ui-routes.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', CHIRP_USER: 'viewer', CHIRP_PASS: 'ui-routes-pass' });
  });
  afterAll(async () => server.close());

  const get = (url: string, headers: Record<string, string> = AUTH) => server.app.inject({ method: 'GET', url, headers });

  it('refuses every page without the Basic pair: 401, a Basic challenge and Connection: close', async () => {
    for (const url of ['/ui', '/ui/runs.html', '/ui/r/default/run_a/index.html']) {
      const res = await get(url, {});
      expectProblem(res, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Basic realm="mivas"');
    }
  });

  it('redirects /ui and /ui/ to the leaderboard page, and a run set to its index', async () => {
    for (const [url, to] of [['/ui', '/ui/index.html'], ['/ui/', '/ui/index.html'], ['/ui/r/default/run_a', '/ui/r/default/run_a/index.html']]) {
      const res = await get(url as string);
      expect([res.statusCode, res.headers.location]).toEqual([302, to]);
    }
  });

  it('lists the runs of the (empty) snapshot store as a page under the results CSP', async () => {
    const res = await get('/ui/runs.html');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('<!doctype html>');
  });

  it('answers pages and audio it cannot show: a 404 page, or a catalogued problem for audio', async () => {
    const page = await get('/ui/index.html');
    expect([page.statusCode, page.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    const badSet = await get('/ui/r/nonsense/run_a/index.html');
    expect(badSet.statusCode).toBe(404);
    expect(badSet.body).toContain('No such run set');
    expectProblem(await get('/ui/audio/loc_0123456789ab.wav'), 'SCORES_NOT_FOUND');
    expectProblem(await get('/ui/r/default/a..b/audio/x.wav'), 'AUDIO_NOT_FOUND');
  });
});
