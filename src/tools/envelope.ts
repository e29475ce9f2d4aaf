import { z } from 'zod';
import { ENVELOPE_ERROR_CODES, envelopeRefusal, type EnvelopeErrorCode } from '../core/index.ts';

/** The one response envelope every tool returns, end_call included (architecture.md §6). */
export const envelopeSchema = z
  .object({
    ok: z.boolean(),
    data: z.unknown().optional(),
    error_code: z.string().optional(),
    safe_message: z.string().optional(),
  })
  .strict();

export type Envelope = z.infer<typeof envelopeSchema>;

/** Refusal codes the runtime itself returns, with their fixed spoken sentences (declared in the error catalog). */
export const RUNTIME_ERROR_CODES = ENVELOPE_ERROR_CODES;

/** A code the runtime's own refusals carry. */
export type RuntimeErrorCode = EnvelopeErrorCode;

/** Why the runtime refused to execute a call (recorded on the timeline). */
export type Refusal = 'UNKNOWN_TOOL' | 'TOOL_NOT_AVAILABLE' | 'HANDOFF_NOT_ALLOWED' | 'INVALID_ARGUMENTS';

/** Builds a runtime refusal envelope (the catalog's `envelopeRefusal`, typed as an Envelope). */
export function runtimeRefusal(code: RuntimeErrorCode, data?: Record<string, unknown>): Envelope {
  return envelopeRefusal(code, data);
}
