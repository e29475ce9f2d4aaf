import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpProblem } from '../core/index.ts';
import { sendProblem } from './problem.ts';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Constant-time check of an `Authorization: Basic` header against the configured pair. */
export function basicAuthMatches(header: string | undefined, user: string, pass: string): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
  // Compare digests of equal length, always both halves, so timing says nothing about the secret.
  const userOk = timingSafeEqual(digest(decoded.slice(0, Math.max(0, decoded.indexOf(':')))), digest(user));
  const passOk = timingSafeEqual(digest(decoded.slice(decoded.indexOf(':') + 1)), digest(pass));
  return m !== null && decoded.includes(':') && userOk && passOk;
}

/** An onRequest hook that answers 401 with a Basic challenge, before any upgrade (architecture.md §2). */
export function basicAuthHook(credentials: { user: string; pass: string } | null) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!credentials) return;
    if (basicAuthMatches(request.headers.authorization, credentials.user, credentials.pass)) return;
    // Connection: close, so a client that keeps sending a body after its 401 is cut off at once.
    await sendProblem(reply.header('WWW-Authenticate', 'Basic realm="mivas"').header('Connection', 'close'), httpProblem('UNAUTHORIZED', 'valid Basic credentials are required'));
  };
}
