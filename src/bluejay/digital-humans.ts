import { createHash } from 'node:crypto';
import type { Pack, Task } from '../packs/index.ts';

/**
 * Voices a digital human may get; one is chosen per task from a hash of its id, so the same task
 * always sounds the same. TODO(issue 6): read a per-pack voice list once packs declare one.
 */
const VOICES = [
  { accent: 'american', gender: 'female' },
  { accent: 'american', gender: 'male' },
  { accent: 'british', gender: 'female' },
  { accent: 'british', gender: 'male' },
  { accent: 'indian', gender: 'female' },
  { accent: 'indian', gender: 'male' },
] as const;

/** Moderate noise volume at which a person could still take down a phone number (packs.md §3.7). */
const MODERATE_NOISE_VOLUME = 0.3;
/** Categories whose background-noise variant uses cafe noise; the others use office noise. */
const CAFE_CATEGORIES = new Set(['C1', 'C3', 'C5']);

type Trait = { trait_name: string; trait_data_type: 'BOOLEAN' | 'STRING' | 'NUMBER' | 'DATE'; value: string | number | boolean; is_sip_header: false };

function trait(name: string, value: string | number | boolean): Trait {
  const type = typeof value === 'boolean' ? 'BOOLEAN' : typeof value === 'number' ? 'NUMBER' : /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'DATE' : 'STRING';
  return { trait_name: name, trait_data_type: type, value, is_sip_header: false };
}

function voiceOf(taskId: string): (typeof VOICES)[number] {
  const n = createHash('sha256').update(taskId).digest().readUInt32BE(0);
  return VOICES[n % VOICES.length] ?? VOICES[0];
}

function audioOf(task: Task): { background_noise: string; background_noise_volume: number; audio_quality: string } {
  const condition = task.metadata.audio_condition;
  const category = task.task_id.split('-')[0] ?? '';
  if (condition === 'background_noise') return { background_noise: CAFE_CATEGORIES.has(category) ? 'cafe' : 'office', background_noise_volume: MODERATE_NOISE_VOLUME, audio_quality: 'high' };
  if (condition === 'bad_signal') return { background_noise: 'none', background_noise_volume: 0, audio_quality: 'medium' };
  return { background_noise: 'none', background_noise_volume: 0, audio_quality: 'high' };
}

/** Literal expected parameters only: `$any_of` / `$present` matchers are the scorer's, not Bluejay's. */
function literalParameters(parameters: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | undefined {
  if (!parameters) return undefined;
  const out = Object.fromEntries(Object.entries(parameters).filter(([, v]) => typeof v !== 'object' || v === null));
  return Object.keys(out).length ? out : undefined;
}

/** The expected calls: the handoff path first, then the task's tool calls (wire.md §4.4). */
function expectedToolCalls(task: Task): Record<string, unknown>[] {
  const handoffs = task.exp_handoff_path.map((name) => ({ name }));
  const calls = task.exp_tool_calls.map((c) => {
    const parameters = literalParameters(c.parameters);
    return { name: c.name, ...(parameters ? { parameters } : {}), ...(c.output ? { output: { ok: c.output.ok, ...(c.output.error_code ? { error_code: c.output.error_code } : {}) } } : {}) };
  });
  return [...handoffs, ...calls];
}

/** A success statement from the task: the tools that must run and the outcome the caller must hear. */
export function successCriteriaOf(task: Task): string {
  const tools = task.exp_tool_calls.map((c) => c.name);
  const route = task.exp_handoff_path.length ? ` The call is routed via ${task.exp_handoff_path.map((h) => h.replace(/^transfer_to_/, '')).join(', then ')}.` : '';
  const work = tools.length ? ` The agent runs ${tools.join(', ')} and tells the caller the outcome plainly.` : ' The agent makes no changes and tells the caller plainly what it can and cannot do.';
  return `${task.task_name.replace(/^[^:]+:\s*/, '')}.${route}${work}`;
}

/** True when the task expects a session tool other than end_call (a human transfer): an escalation. */
function isEscalation(pack: Pack, task: Task): boolean {
  return task.exp_tool_calls.some((c) => c.name !== 'end_call' && pack.catalog.get(c.name)?.kind === 'session');
}

/** The digital human for one task (wire.md §4.4): never the expected database state or metadata. */
export function digitalHumanOf(pack: Pack, task: Task, phoneNumber: string): Record<string, unknown> {
  const voice = voiceOf(task.task_id);
  const traits = [
    ...task.traits.map((t) => trait(t.trait_name, t.value)),
    trait('case_key', task.task_id),
    trait('call_area', task.metadata.category_slug),
    trait('difficulty', task.metadata.difficulty),
    trait('audio_condition', task.metadata.audio_condition),
    trait('expected_handoff_path', task.exp_handoff_path.join(' > ')),
  ];
  return {
    name: task.customer_name,
    tag: pack.id,
    test_name: task.task_name,
    tags: [pack.id, task.metadata.category_slug, task.metadata.difficulty],
    intent: task.intent,
    success_criteria: successCriteriaOf(task),
    language: 'en',
    accent: voice.accent,
    gender: voice.gender,
    voice_speed: 'normal',
    fluency: 'native',
    verbosity: 'medium',
    ...audioOf(task),
    expected_tool_calls: expectedToolCalls(task),
    traits,
    scripted_responses: task.scripted_responses.map((r) => ({ ...r, occurrence_mode: 'always' })),
    speaks_first_config: { speaks_first: false },
    interruptions: { type: 'none' },
    creativity: 0,
    allow_end_call_tool: true,
    allow_silence_tool: true,
    ...(isEscalation(pack, task) ? { silence_timeout: 30 } : {}),
    phone_number: phoneNumber,
  };
}
