import { diagnosticsOf, type ConversationVerdict, type Status } from '../../src/scoring/index.ts';
import type { VoidReason } from '../../src/snapshot/index.ts';

/** A minimal conversation verdict for aggregate tests. */
export function verdict(fields: { id: string; task: string; status: Status; pack?: string; harness?: string; model?: string | null; category?: string; difficulty?: string; audio?: string; voidReason?: VoidReason; reward?: number; version?: string }): ConversationVerdict {
  const scored = fields.status === 'PASS' || fields.status === 'FAIL';
  return {
    conversation_id: fields.id,
    run_id: null,
    task_id: fields.task,
    pack: fields.pack ?? 'healthcare',
    pack_version: fields.version ?? 'v1',
    harness: fields.harness ?? 'openai',
    model: fields.model ?? 'gpt-realtime',
    category: fields.category ?? 'C1',
    difficulty: fields.difficulty ?? 'easy',
    audio_condition: fields.audio ?? 'perfect',
    trial_index: null,
    started_at: null,
    duration_s: 60,
    end_reason: 'agent_end_call',
    status: fields.status,
    unmapped_reason: null,
    void_reason: fields.status === 'VOID' ? (fields.voidReason ?? 'no_agent_audio') : null,
    void_detail: [],
    pack_drift: false,
    combined_pass: scored ? fields.status === 'PASS' : null,
    reward: scored ? (fields.reward ?? (fields.status === 'PASS' ? 1 : 0)) : null,
    fail_reasons: [],
    state: null,
    tools: null,
    handoff: null,
    quality: { smoke_pass: true, smoke_failed: [], first_agent_audio_ms: 500, dead_air_max_s: 1, outbound_dropouts: 0, clipping_events: 0, latency_p50_ms: 700, latency_p95_ms: 900 },
    cost: { input_tokens: 0, output_tokens: 0, cost_usd_est: 0.01, cost_note: null, price_table_version: null },
    evidence: { trace_id: null, trace: '', transcript: '', snapshot_uri: null, audio_uri: null },
    diagnostics: diagnosticsOf(null, null, undefined, undefined),
  };
}

/** Trials of one task from a pass/fail/void pattern such as "PPFVP". */
export function trials(task: string, pattern: string, extra: Partial<Parameters<typeof verdict>[0]> = {}): ConversationVerdict[] {
  return [...pattern].map((ch, i) =>
    verdict({ id: `${extra.harness ?? 'h'}_${task}_${i}`, task, status: ch === 'P' ? 'PASS' : ch === 'F' ? 'FAIL' : 'VOID', ...extra }),
  );
}
