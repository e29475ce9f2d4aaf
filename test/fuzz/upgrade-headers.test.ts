import { expectNoUnhandledRejections } from './no-unhandled-rejections.ts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, tryUpgrade } from '../support/chirp-client.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { silentHarness } from './silent-harness.ts';

/** Fixed seed and bounded runs (issue 7, acceptance 3). */
const SEED = 4_0126;
const RUNS = 150;
const USER = 'fuzz-user';
const PASS = 'fuzz-pass';
const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TASK_ID = /^[A-Za-z0-9-]{1,32}$/;

/** Header text a client can send (printable ASCII; Node refuses control characters itself). */
const headerText = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
const callId = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.stringMatching(/^[A-Za-z0-9_-]{65,80}$/), headerText(80), fc.constantFrom('', ' ', '../x', 'a/b', 'a b', '%2e%2e', 'null'));
const taskId = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,32}$/), headerText(40)), { nil: undefined });
const runId = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), headerText(70)), { nil: undefined });
const auth = fc.oneof(
  { weight: 3, arbitrary: fc.constant(basicAuth(USER, PASS)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.tuple(headerText(20), headerText(20)).map(([u, p]) => basicAuth(u, p)) },
  { weight: 1, arbitrary: headerText(60) },
);

/** The documented answer to an upgrade (wire.md §1.2), given the ids already used. */
function expectedStatus(h: { id: string; task?: string; run?: string; auth?: string }, used: ReadonlySet<string>): number {
  if (h.auth !== basicAuth(USER, PASS)) return 401;
  const id = h.id.trim();
  if (id !== '' && !CALL_ID.test(id)) return 400;
  const task = h.task?.trim();
  if (task && !TASK_ID.test(task)) return 400;
  const run = h.run?.trim();
  if (run && !CALL_ID.test(run)) return 400;
  return id !== '' && used.has(id) ? 409 : 101;
}

describe('fuzz: upgrade headers against the real server', () => {
  let server: TestServer;
  expectNoUnhandledRejections();

  beforeAll(async () => {
    server = await startTestServer({ CHIRP_USER: USER, CHIRP_PASS: PASS, MIVAS_HOST: '127.0.0.1', MIVAS_MAX_CALLS: '1000' }, { harness: silentHarness() });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('random call ids, task and run ids and credentials get 101, 400, 401 or 409 as documented', async () => {
    const used = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.record({ id: callId, task: taskId, run: runId, auth }, { requiredKeys: ['id'] }), async (h) => {
        const headers: Record<string, string> = { 'X-Simulation-Result-Id': h.id };
        if (h.task !== undefined) headers['X-Mivas-Task-Id'] = h.task;
        if (h.run !== undefined) headers['X-Mivas-Run-Id'] = h.run;
        if (h.auth !== undefined) headers.Authorization = h.auth;
        const want = expectedStatus(h, used);
        const answer = await tryUpgrade(server.wsUrl, headers);
        expect(answer.status, JSON.stringify(h)).toBe(want);
        expect(answer.upgraded).toBe(want === 101);
        if (want === 401) expect(answer.headers['www-authenticate']).toMatch(/^Basic realm=/);
        if (want === 101 && h.id.trim() !== '') used.add(h.id.trim());
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Every accepted call hung up at once; the server ends them all and stays healthy.
    for (const s of server.ctx.registry.sessions()) await s.finished();
    const health = await server.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
  });

  it('a plain GET on a CHIRP path is 426 with credentials and 401 without', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^\/x-[a-z0-9/_-]{0,30}$/), fc.boolean(), async (path, withAuth) => {
        const res = await server.app.inject({ method: 'GET', url: path, headers: withAuth ? { authorization: basicAuth(USER, PASS) } : {} });
        expect(res.statusCode).toBe(withAuth ? 426 : 401);
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});
