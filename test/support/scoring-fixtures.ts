import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePolicySchema, loadPack, type Blueprint, type ComparePolicy, type Pack } from '../../src/packs/index.ts';
import { syntheticSummary, syntheticTimeline, type SyntheticCallOptions, type SyntheticStep, type ToolShape } from '../../src/scoring/index.ts';
import type { FinalState, Summary, TimelineEvent } from '../../src/snapshot/index.ts';

/** The repository's packs folder. */
export const PACKS_DIR = join(import.meta.dirname, '../../packs');

/** Loads the control-industry pack. */
export function loadControlPack(): Promise<Pack> {
  return loadPack(PACKS_DIR, 'control-industry');
}

/** A small healthcare-like graph for gate tests (scoring.md worked examples). */
export const CLINIC_BLUEPRINT: Blueprint = {
  company: 'Straus Dermatology',
  agents: [
    { name: 'reception', description: 'Front desk.', system_prompt: 'prompts/reception.md', tools: [{ name: 'transfer_to_identity', handoff: true, handoff_to: 'identity' }, { name: 'end_call', session: true }] },
    {
      name: 'identity',
      description: 'Verifies callers.',
      system_prompt: 'prompts/identity.md',
      tools: [{ name: 'verify_identity' }, { name: 'transfer_to_scheduling', handoff: true, handoff_to: 'scheduling' }, { name: 'transfer_to_coverage', handoff: true, handoff_to: 'coverage' }, { name: 'end_call', session: true }],
    },
    { name: 'coverage', description: 'Insurance.', system_prompt: 'prompts/coverage.md', tools: [{ name: 'check_plan_accepted' }, { name: 'transfer_to_scheduling', handoff: true, handoff_to: 'scheduling' }, { name: 'end_call', session: true }] },
    {
      name: 'scheduling',
      description: 'Books visits.',
      system_prompt: 'prompts/scheduling.md',
      tools: [{ name: 'find_openings' }, { name: 'book_visit' }, { name: 'send_visit_text' }, { name: 'quote_visit_change' }, { name: 'transfer_to_human', session: true }, { name: 'end_call', session: true }],
    },
  ],
};

const str = { type: 'string' };
/** Input schemas of the clinic tools, as zod would generate them. */
export const CLINIC_TOOLS: ReadonlyMap<string, ToolShape> = new Map<string, ToolShape>(
  [
    ['verify_identity', { full_name: str, date_of_birth: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } }, []],
    ['find_openings', { location_id: { type: 'string', enum: ['loc_cobble_hill', 'loc_park_ave'] }, visit_type: { type: 'string', enum: ['follow_up', 'new'] } }, []],
    ['book_visit', { opening_id: str, notes: str, starts_at: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$' } }, ['appointments']],
    ['send_visit_text', { phone: str }, []],
    ['quote_visit_change', { appointment_id: str, action: { type: 'string', enum: ['cancel', 'move'] } }, ['holds']],
    ['transfer_to_human', { reason: str }, []],
    ['check_plan_accepted', { carrier: str, location_id: str, tier: { type: 'integer' }, telehealth: { type: 'boolean' }, services: { type: 'array', items: { type: 'string' } } }, []],
  ].map(([name, properties, writes]) => [name as string, { name: name as string, inputSchema: { type: 'object', properties }, writes: writes as string[] }]),
);

/** A comparison policy parsed like compare.json. */
export function policy(raw: unknown): ComparePolicy {
  return comparePolicySchema.parse(raw);
}

/** The default clinic policy. */
export const CLINIC_POLICY = policy({
  defaults: { ignore: ['created_at', 'updated_at'], strings: 'text' },
  tables: {
    appointments: { scored: true, key: ['patient_id', 'starts_at'], ignore: ['id', 'notes'], normalise: { starts_at: 'datetime_minute' }, mode: 'exact' },
    holds: { scored: false, reason: 'per-call two-step tokens' },
  },
});

/** A tool timeline event with defaults (executed, ok) and the given fields. */
export function toolEvent(fields: Partial<Extract<TimelineEvent, { type: 'tool' }>> & { seq: number; name: string; agent: string }): Extract<TimelineEvent, { type: 'tool' }> {
  return {
    at_ms: fields.at_ms ?? 1000,
    type: 'tool',
    kind: fields.kind ?? 'industry',
    tool_call_id: null,
    arguments: fields.canonical_arguments ?? {},
    canonical_arguments: fields.canonical_arguments === undefined ? {} : fields.canonical_arguments,
    output: fields.output ?? { ok: true, data: {} },
    duration_ms: 5,
    executed: fields.executed ?? true,
    refusal: fields.refusal ?? null,
    internal_fault: fields.internal_fault ?? null,
    ...fields,
  };
}

/** A handoff event. */
export function handoffEvent(seq: number, from: string, to: string, atMs = 1000): TimelineEvent {
  return { seq, at_ms: atMs, type: 'handoff', from, to };
}

/** A synthetic call: timeline events and a matching summary. */
export function syntheticCall(pack: Pack, steps: readonly SyntheticStep[], options: Partial<SyntheticCallOptions> & { callId: string; taskId: string | null; startedAt?: string; model?: string | null }, summary: Partial<Summary> = {}): { summary: Summary; events: TimelineEvent[] } {
  const full: SyntheticCallOptions & { startedAt?: string; model?: string | null } = { pack: pack.id, ...options };
  return { summary: syntheticSummary(pack, full, summary), events: syntheticTimeline(steps, full) };
}

/** Writes a snapshot's parts to `<dir>/<pack>/<callId>.*` (parts given as null are left out). */
export function writeSnapshotFiles(dir: string, pack: string, callId: string, parts: { summary?: Summary | null; events?: TimelineEvent[] | null; final?: FinalState | null; finalText?: string; db?: Buffer; wav?: Buffer }): void {
  mkdirSync(join(dir, pack), { recursive: true });
  const base = join(dir, pack, callId);
  if (parts.events) writeFileSync(`${base}.timeline.json`, JSON.stringify({ events: parts.events }));
  if (parts.finalText !== undefined) writeFileSync(`${base}.final.json`, parts.finalText);
  else if (parts.final) writeFileSync(`${base}.final.json`, JSON.stringify(parts.final));
  if (parts.db) writeFileSync(`${base}.db`, parts.db);
  if (parts.wav) writeFileSync(`${base}.wav`, parts.wav);
  if (parts.summary) writeFileSync(`${base}.summary.json`, JSON.stringify(parts.summary));
}
