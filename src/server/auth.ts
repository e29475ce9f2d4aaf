import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpProblem, type HttpProblem } from '../core/index.ts';
import { sendProblem } from './problem.ts';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Constant-time comparison of a presented secret with the configured one: digests of equal length
 * are compared even when nothing was presented, so timing says nothing about the secret.
 */
export function secretMatches(presented: string | undefined, secret: string): boolean {
  return timingSafeEqual(digest(presented ?? ''), digest(secret)) && presented !== undefined;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** Constant-time check of an `Authorization: Basic` header against the configured pair. */
export function basicAuthMatches(header: string | undefined, user: string, pass: string): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
  // Always both halves, so timing says nothing about which one was wrong.
  const userOk = secretMatches(decoded.slice(0, Math.max(0, decoded.indexOf(':'))), user);
  const passOk = secretMatches(decoded.slice(decoded.indexOf(':') + 1), pass);
  return m !== null && decoded.includes(':') && userOk && passOk;
}

/** Why a gate refuses a request: the catalogued problem, and the challenge sent with it. */
export interface GateRefusal {
  readonly problem: HttpProblem;
  /** The `WWW-Authenticate` value, when the client can answer with credentials. */
  readonly challenge?: string;
}

/**
 * The one credential gate (architecture.md convention 14): an `onRequest` hook, so it answers
 * before any body is read and before any upgrade, with the refusal's problem, its challenge and
 * `Connection: close` (a client that keeps sending after its refusal is cut off at once).
 */
export function credentialGate(refusalOf: (request: FastifyRequest) => GateRefusal | null) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const refusal = refusalOf(request);
    if (!refusal) return;
    if (refusal.challenge) reply.header('WWW-Authenticate', refusal.challenge);
    await sendProblem(reply.header('Connection', 'close'), refusal.problem);
  };
}

/** A route group's own bearer token: its `off` refusal when no token is configured, else the token or 401 with a Bearer challenge. */
export function bearerGate(token: string | undefined, refusals: { readonly off: HttpProblem; readonly unauthorized: HttpProblem; readonly realm: string }) {
  return credentialGate((request) => {
    if (token === undefined) return { problem: refusals.off };
    if (secretMatches(bearerToken(request.headers.authorization), token)) return null;
    return { problem: refusals.unauthorized, challenge: `Bearer realm="${refusals.realm}"` };
  });
}

/** The callers' gate: HTTP Basic with CHIRP_USER/CHIRP_PASS, off when they are unset (architecture.md §2). */
export function basicAuthHook(credentials: { user: string; pass: string } | null) {
  return credentialGate((request) =>
    !credentials || basicAuthMatches(request.headers.authorization, credentials.user, credentials.pass)
      ? null
      : { problem: httpProblem('UNAUTHORIZED', 'valid Basic credentials are required'), challenge: 'Basic realm="mivas"' },
  );
}
