import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG, isErrorCode } from '../../src/core/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The body of a refusal, with its code checked against the catalog. */
function problemOf(res: { statusCode: number; json(): unknown }): { status: number; code: string; message: string } {
  const body = res.json() as { error?: { code?: unknown; message?: unknown } };
  expect(Object.keys(body)).toEqual(['error']);
  const code = String(body.error?.code);
  expect(isErrorCode(code), code).toBe(true);
  expect(typeof body.error?.message).toBe('string');
  return { status: res.statusCode, code, message: String(body.error?.message) };
}

describe('HTTP refusals are catalogued problems, Fastify errors included', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MIVAS_PACK: 'control-industry', MIVAS_TOOLS_TOKEN: 'problems-token' });
  });
  afterAll(async () => server.close());

  it('answers a body that does not match its Content-Length with BAD_REQUEST, not an FST_ERR code', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/tools/check_date', headers: { 'content-type': 'application/json', 'content-length': '3', authorization: 'Bearer problems-token' }, payload: '{}' });
    expect(problemOf(res)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('answers a malformed URL with BAD_REQUEST in our shape', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/tools/%E0%A4%A', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(problemOf(res)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('answers a method and path no route takes with ROUTE_NOT_FOUND', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/nowhere?x=1', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(problemOf(res)).toEqual({ status: 404, code: 'ROUTE_NOT_FOUND', message: 'no route for POST /nowhere' });
  });

  it.each([
    ['a body that is not JSON', { method: 'POST', url: '/tools/check_date', headers: { 'content-type': 'application/json', 'x-mivas-call-id': 'c1', authorization: 'Bearer problems-token' }, payload: '{"a":' }, 'BODY_NOT_OBJECT'],
    ['a body that is not application/json', { method: 'POST', url: '/tools/check_date', headers: { 'content-type': 'application/xml', 'x-mivas-call-id': 'c1', authorization: 'Bearer problems-token' }, payload: '<a/>' }, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body over 1 MiB', { method: 'POST', url: '/tools/check_date', headers: { 'content-type': 'application/json', 'x-mivas-call-id': 'c1', authorization: 'Bearer problems-token' }, payload: `{"a":"${'x'.repeat(1024 * 1024)}"}` }, 'BODY_TOO_LARGE'],
    ['a plain GET on a CHIRP path', { method: 'GET', url: '/' }, 'UPGRADE_REQUIRED'],
    ['a scratch conversation named like an RL episode (ep_…)', { method: 'POST', url: '/tools/check_date', headers: { 'content-type': 'application/json', 'x-mivas-call-id': 'ep_0123456789abcdef01234567', authorization: 'Bearer problems-token' }, payload: '{}' }, 'CALL_ID_INVALID'],
  ] as const)('answers %s with the status the catalog declares', async (_what, request, code) => {
    const res = await server.app.inject(request);
    expect(problemOf(res)).toMatchObject({ status: ERROR_CATALOG[code].status, code });
  });
});
