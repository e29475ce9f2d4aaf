import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { basicAuthHook, basicAuthMatches, bearerToken, credentialGate, secretMatches } from '../../../src/server/auth.ts';
import { httpProblem } from '../../../src/core/index.ts';

const basic = (pair: string): string => `Basic ${Buffer.from(pair).toString('base64')}`;

describe('basicAuthMatches', () => {
  it('accepts the exact pair, with any case of the scheme', () => {
    expect(basicAuthMatches(basic('user:pass'), 'user', 'pass')).toBe(true);
    expect(basicAuthMatches(basic('user:pass').replace('Basic', 'basic'), 'user', 'pass')).toBe(true);
  });

  it('keeps colons in the password', () => {
    expect(basicAuthMatches(basic('user:pa:ss'), 'user', 'pa:ss')).toBe(true);
    expect(basicAuthMatches(basic('user:pa'), 'user', 'pa:ss')).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['wrong password', basic('user:wrong')],
    ['wrong user', basic('other:pass')],
    ['password prefix', basic('user:pas')],
    ['password with a suffix', basic('user:passs')],
    ['swapped', basic('pass:user')],
    ['no colon', basic('userpass')],
    ['empty pair', basic(':')],
    ['bearer scheme', 'Bearer dXNlcjpwYXNz'],
    ['bad base64', 'Basic ***'],
    ['scheme only', 'Basic '],
  ])('refuses %s', (_name, header) => {
    expect(basicAuthMatches(header, 'user', 'pass')).toBe(false);
  });
});

describe('basicAuthHook', () => {
  async function app(credentials: { user: string; pass: string } | null) {
    const server = Fastify();
    server.addHook('onRequest', basicAuthHook(credentials));
    server.get('/x', async () => ({ reached: true }));
    await server.ready();
    return server;
  }

  it('answers 401 with a Basic challenge and never reaches the route', async () => {
    const server = await app({ user: 'user', pass: 'pass' });
    const res = await server.inject({ method: 'GET', url: '/x', headers: { authorization: basic('user:nope') } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="mivas"');
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    await server.close();
  });

  it('lets the right pair through', async () => {
    const server = await app({ user: 'user', pass: 'pass' });
    const res = await server.inject({ method: 'GET', url: '/x', headers: { authorization: basic('user:pass') } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ reached: true });
    await server.close();
  });

  it('is off when no credentials are configured', async () => {
    const server = await app(null);
    const res = await server.inject({ method: 'GET', url: '/x' });
    expect(res.statusCode).toBe(200);
    await server.close();
  });
});

describe('secretMatches and bearerToken', () => {
  it('matches only the exact secret, and nothing presented never matches (not even an empty secret)', () => {
    expect(secretMatches('s3cret', 's3cret')).toBe(true);
    expect(secretMatches('s3cre', 's3cret')).toBe(false);
    expect(secretMatches('s3crett', 's3cret')).toBe(false);
    expect(secretMatches(undefined, '')).toBe(false);
  });

  it('reads the token of a Bearer header, any case of the scheme, and nothing else', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('credentialGate', () => {
  it("answers the refusal's problem with its challenge and closes the connection; a refusal without a challenge sends none", async () => {
    const server = Fastify();
    server.addHook('onRequest', credentialGate((request) => {
      if (request.url === '/open') return null;
      if (request.url === '/off') return { problem: httpProblem('HTTP_TOOLS_OFF', 'off') };
      return { problem: httpProblem('TOOLS_UNAUTHORIZED', 'token'), challenge: 'Bearer realm="t"' };
    }));
    for (const url of ['/open', '/off', '/locked']) server.get(url, async () => ({ reached: true }));
    await server.ready();
    expect((await server.inject({ method: 'GET', url: '/open' })).json()).toEqual({ reached: true });
    const off = await server.inject({ method: 'GET', url: '/off' });
    expect(off.statusCode).toBe(404);
    expect(off.headers['www-authenticate']).toBeUndefined();
    expect(off.headers.connection).toBe('close');
    const locked = await server.inject({ method: 'GET', url: '/locked' });
    expect([locked.statusCode, locked.headers['www-authenticate'], locked.headers.connection]).toEqual([401, 'Bearer realm="t"', 'close']);
    expect(locked.json()).toEqual({ error: { code: 'TOOLS_UNAUTHORIZED', message: 'token' } });
    await server.close();
  });
});
