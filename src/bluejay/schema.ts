import { z } from 'zod';

/**
 * Bluejay REST shapes (wire.md §4). Request bodies are typed; responses are parsed with zod and
 * keep unknown fields (`.passthrough()`), since Bluejay adds fields without notice.
 */

/** One tool call on the `tool_calls` path (used only when OTLP export is off). */
export interface LinkToolCall {
  readonly name: string;
  readonly start_offset_ms: number;
  readonly description?: string;
  readonly parameters?: unknown;
  readonly output?: unknown;
}

/** One event: a handoff, a barge-in or a void reason. */
export interface LinkEvent {
  readonly title: string;
  readonly start_offset_ms: number;
  readonly end_offset_ms?: number;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** One utterance of the recorded transcript. */
export interface TranscriptLine {
  readonly start_offset_ms: number;
  readonly end_offset_ms: number;
  readonly speaker: 'AGENT' | 'USER';
  readonly utterance: string;
}

/** Body of POST /update-simulation-result: tool calls travel as `trace_ids` or `tool_calls`, never both. */
export type UpdateSimulationResultBody = {
  readonly simulation_result_id: string;
  readonly events: readonly LinkEvent[];
  readonly recorded_transcript: readonly TranscriptLine[];
  readonly tags: readonly string[];
  readonly metadata: Readonly<Record<string, unknown>>;
} & ({ readonly trace_ids: readonly string[]; readonly tool_calls?: never } | { readonly tool_calls: readonly LinkToolCall[]; readonly trace_ids?: never });

/** POST /queue-simulation-run */
export const queueRunResponseSchema = z
  .object({ simulation_run_id: z.union([z.string(), z.number()]).transform(String), simulation_result_ids: z.array(z.union([z.string(), z.number()]).transform(String)).default([]), status: z.string().optional() })
  .passthrough();
export type QueueRunResponse = z.infer<typeof queueRunResponseSchema>;

/** One entry of `simulation_results`. */
export const simulationResultSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    digital_human_id: z.union([z.string(), z.number()]).transform(String).nullable().optional(),
    status: z.string().nullable().optional(),
    test_name: z.string().nullable().optional(),
    traits: z.array(z.object({ trait_name: z.string(), value: z.unknown() }).passthrough()).nullable().optional(),
  })
  .passthrough();
export type SimulationResult = z.infer<typeof simulationResultSchema>;

/** GET /retrieve-simulation-results/{simulation_run_id} */
export const runResultsResponseSchema = z
  .object({
    simulation_run: z.object({ id: z.union([z.string(), z.number()]).transform(String), status: z.string().nullable().optional() }).passthrough().optional(),
    simulation_results: z.array(simulationResultSchema).default([]),
  })
  .passthrough();
export type RunResultsResponse = z.infer<typeof runResultsResponseSchema>;

/** GET /digital-human/{id}: the fields the mapping needs. */
export const digitalHumanResponseSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String).optional(),
    name: z.string().optional(),
    test_name: z.string().nullable().optional(),
    traits: z.array(z.object({ trait_name: z.string(), value: z.unknown() }).passthrough()).nullable().optional(),
  })
  .passthrough();

/** POST /create-digital-human: the id, wherever this API version puts it. */
export const createDigitalHumanResponseSchema = z
  .object({ id: z.union([z.string(), z.number()]).optional(), digital_human_id: z.union([z.string(), z.number()]).optional(), digital_human: z.object({ id: z.union([z.string(), z.number()]) }).passthrough().optional() })
  .passthrough()
  .transform((r) => ({ id: String(r.digital_human_id ?? r.id ?? r.digital_human?.id ?? '') }));

/** Statuses after which a result will not change (wire.md §4.3). */
export const FINAL_STATUSES = ['COMPLETED', 'FAILED', 'SYSTEM_ERROR', 'NO_ANSWER', 'CANCELLED', 'NO_CONNECTION'] as const;

/** True when a result status is final. */
export function isFinalStatus(status: string | null | undefined): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status ?? '');
}
