import { expect } from 'vitest';
import { ERROR_CATALOG, isErrorCode, type HttpErrorCode } from '../../src/core/index.ts';

/** What the route tests read of an `app.inject` answer. */
export interface InjectedAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  json(): unknown;
}

/**
 * Checks an answer is the catalogued problem for `code`: the catalog's status, the body
 * `{error: {code, message}}` and nothing else, and `Connection: close` (every refusal closes its
 * connection, src/server/app.ts). Returns the message.
 */
export function expectProblem(res: InjectedAnswer, code: HttpErrorCode): string {
  const body = res.json() as { error?: { code?: unknown; message?: unknown } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(isErrorCode(String(body.error?.code))).toBe(true);
  expect({ status: res.statusCode, code: body.error?.code }).toEqual({ status: ERROR_CATALOG[code].status, code });
  expect(typeof body.error?.message).toBe('string');
  expect(res.headers.connection).toBe('close');
  return String(body.error?.message);
}

/** A bearer `Authorization` header. */
export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
