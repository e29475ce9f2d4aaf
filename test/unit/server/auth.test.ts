import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { basicAuthHook, basicAuthMatches } from '../../../src/server/auth.ts';

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
