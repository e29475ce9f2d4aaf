import { z } from 'zod';
import { readCallSession } from './session-and-holds.ts';
import { normalizeCode, normalizeFields } from './input-normalizers.ts';
import { oncePerCallRow } from './prepared.ts';
import type { HumanTransferConfig } from './schema.ts';
import { escalations } from './session-tables.ts';
import { defineTool, ok, type ToolDefinition } from './tool-kit.ts';

/**
 * The runtime's human transfer (architecture.md §7): declared here once, like end_call, and offered to
 * every agent whose blueprint entry lists `{ "name": "transfer_to_human", "session": true }`. The
 * pack supplies only its vocabulary (blueprint.json `human_transfer.reasons`: code → when and
 * script). Unlike end_call it is dispatched: the executor runs it, it writes the call's one
 * `escalations` row, and the runtime then hangs up.
 */

/** The human transfer's name on every pack. */
export const HUMAN_TRANSFER = 'transfer_to_human';
/** The id of the call's one escalation row. */
export const ESCALATION_ROW_ID = 'esc_call';
/** Longest summary, in characters. */
export const HUMAN_TRANSFER_SUMMARY_MAX = 300;

const recordEscalation = oncePerCallRow(escalations, ESCALATION_ROW_ID);

/** The tool description, built from the pack's reasons in their declared order. */
export function humanTransferDescription(config: HumanTransferConfig): string {
  const when = Object.entries(config.reasons).map(([code, r]) => `${r.when.trim().replace(/[.;]+$/, '')} (${code})`);
  return [
    `Use when: ${when.join('; ')}. Works in every state, before identification and after a lock.`,
    'Returns: the script to read before the call is handed to a person; the call then ends here.',
    'Do not use for: questions a desk tool answers.',
    'Errors: none.',
  ].join(' ');
}

const output = z.object({ transferred: z.literal(true), reason: z.string(), idempotent: z.boolean(), script: z.string() });

/** The human-transfer tool for one pack's vocabulary; the catalog builds it once per pack. */
export function humanTransferDefinition(config: HumanTransferConfig): ToolDefinition {
  const codes = Object.keys(config.reasons) as [string, ...string[]];
  const input = z.object({
    reason: z.enum(codes).describe('Why the caller goes to a person.'),
    summary: z.string().min(1).max(HUMAN_TRANSFER_SUMMARY_MAX).optional().describe('One or two sentences for the staff member.'),
  });
  return defineTool({
    name: HUMAN_TRANSFER,
    description: humanTransferDescription(config),
    input,
    output,
    effect: 'write',
    writes: ['escalations', 'call_session'],
    normalize: (raw) => normalizeFields(raw, { reason: normalizeCode }),
    run(args, ctx) {
      const idempotent = recordEscalation(ctx.db, () => {
        const session = readCallSession(ctx.db);
        return {
          reason: args.reason,
          subject_kind: session.subjectId ? session.subjectKind : null,
          subject_id: session.subjectId,
          agent: ctx.call.agent,
          summary: args.summary ?? null,
          created_at: ctx.clock.now(),
        };
      });
      return ok({ transferred: true as const, reason: args.reason, idempotent, script: config.reasons[args.reason]?.script ?? '' });
    },
  });
}
