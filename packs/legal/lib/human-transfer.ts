import { z } from 'zod';
import { defineTool, normalizeFields, ok, oncePerCallRow, readCallSession } from '../../../src/packs/index.ts';
import { escalations } from '../schema.ts';
import { proseField, readCode } from './fields.ts';
import { ESCALATION_REASONS, type EscalationReason } from './policy.ts';

/** The global human transfer: works in every state, before identification and after a lock. */

const recordEscalation = oncePerCallRow(escalations, 'esc_call');

const SCRIPTS: Readonly<Record<EscalationReason, string>> = {
  caller_request: 'I am connecting you with a member of our staff now.',
  conflict_review: 'An attorney needs to review a possible conflict before we can go further. I am connecting you with a member of our staff now.',
  represented_party: 'Because you have a lawyer in this matter, our staff can only communicate through your lawyer. I am connecting you with a member of our staff now.',
  deadline_review: 'An attorney needs to review the deadline on this claim. I am connecting you with a member of our staff now.',
  identity_failed: 'I am connecting you with a member of our staff, who can confirm who you are another way.',
  complaint: 'I am sorry about this. I am connecting you with a member of our staff who can look into it.',
  out_of_scope: 'I am connecting you with a member of our staff who can point you in the right direction.',
};

export const escalateToHuman = defineTool({
  name: 'escalate_to_human',
  description:
    'Use when: the caller asks for a person; a conflict check needs review; the caller has a lawyer in a matter against a firm client; a filing deadline has passed; client verification failed or locked; a complaint; or nothing on this line can help. Works before any verification. Returns: the script to read before the call is handed over; the call then ends here. Do not use for: questions a desk tool answers. Errors: none.',
  input: z.object({
    reason_code: z.enum(ESCALATION_REASONS).describe('Why the caller goes to a person.'),
    summary: proseField(300).optional().describe('One or two sentences for the staff member.'),
  }),
  output: z.object({ transferred: z.literal(true), reason_code: z.string(), idempotent: z.boolean(), script: z.string() }),
  effect: 'write',
  writes: ['escalations', 'call_session'],
  normalize: (raw) => normalizeFields(raw, { reason_code: readCode }),
  run(args, ctx) {
    const idempotent = recordEscalation(ctx.db, () => {
      const session = readCallSession(ctx.db);
      return {
        reason_code: args.reason_code,
        client_id: session.subjectKind === 'client' ? session.subjectId : null,
        intake_id: session.subjectKind === 'prospect' ? session.subjectId : null,
        agent: ctx.call.agent,
        summary: args.summary ?? null,
        created_at: ctx.clock.now(),
      };
    });
    return ok({ transferred: true as const, reason_code: args.reason_code, idempotent, script: SCRIPTS[args.reason_code] });
  },
});
