import { z } from 'zod';

/** The one response envelope every tool returns, end_call included (DESIGN.md §6). */
export const envelopeSchema = z
  .object({
    ok: z.boolean(),
    data: z.unknown().optional(),
    error_code: z.string().optional(),
    safe_message: z.string().optional(),
  })
  .strict();

export type Envelope = z.infer<typeof envelopeSchema>;

/** Refusal codes the runtime itself returns, with their fixed spoken sentences. */
export const RUNTIME_ERROR_CODES = {
  UNKNOWN_TOOL: { safe_message: 'That is not something I can do on this call.', recoverable: false },
  TOOL_NOT_AVAILABLE: { safe_message: 'That is handled by another desk, so I cannot do it from here.', recoverable: true },
  HANDOFF_NOT_ALLOWED: { safe_message: 'I cannot transfer the call to that desk from here.', recoverable: true },
  INVALID_ARGUMENTS: { safe_message: 'Some of the details were not in a form I can use. Let me check them again.', recoverable: true },
  NOT_VERIFIED: { safe_message: 'I need to verify who I am speaking with before I can help with that.', recoverable: true },
  INTERNAL_ERROR: { safe_message: 'Something went wrong on our side while doing that.', recoverable: false },
} as const;

export type RuntimeErrorCode = keyof typeof RUNTIME_ERROR_CODES;

/** Why the runtime refused to execute a call (recorded on the timeline). */
export type Refusal = 'UNKNOWN_TOOL' | 'TOOL_NOT_AVAILABLE' | 'HANDOFF_NOT_ALLOWED' | 'INVALID_ARGUMENTS';

/** Builds a runtime refusal envelope. */
export function runtimeRefusal(code: RuntimeErrorCode, data?: Record<string, unknown>): Envelope {
  const base = { ok: false, error_code: code, safe_message: RUNTIME_ERROR_CODES[code].safe_message };
  return data === undefined ? base : { ...base, data };
}
