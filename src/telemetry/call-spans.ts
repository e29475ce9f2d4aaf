import type { CallRecord, TimelineEvent } from '../snapshot/index.ts';

/** Attribute values a span carries. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** One span to emit, on the call's media clock (ms since the socket was accepted). */
export interface SpanPlan {
  readonly name: string;
  readonly kind: 'server' | 'client' | 'internal';
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  /** `root` (the voice.call span) or the index of the turn span in the plan's `turns`. */
  readonly parent: 'root' | number;
  readonly error: string | null;
}

/** The spans of one call: the root, its turns, and everything under them (wire.md §5.2). */
export interface CallSpanPlan {
  readonly root: SpanPlan;
  readonly turns: readonly SpanPlan[];
  readonly children: readonly SpanPlan[];
}

/** Tool arguments and results are clipped to this many characters (wire.md §5.2). */
const CLIP_CHARS = 4000;

/** Clips a JSON rendering to 4000 characters with a trailing `...`. */
export function clipJson(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length <= CLIP_CHARS ? text : `${text.slice(0, CLIP_CHARS - 3)}...`;
}

/** The `gen_ai.system` of a harness name (`openai/realtime` → `openai`, `scripted` → `scripted`). */
export function genAiSystem(harness: string): string {
  return harness.split('/')[0] ?? harness;
}

type Tool = Extract<TimelineEvent, { type: 'tool' }>;

function toolSpan(e: Tool): Omit<SpanPlan, 'parent'> {
  const startMs = Math.max(0, e.at_ms - e.duration_ms);
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': e.name,
    'mivas.tool.kind': e.kind,
    'mivas.tool.agent': e.agent,
    'gen_ai.tool.call.arguments': clipJson(e.arguments),
    'gen_ai.tool.call.result': clipJson(e.output),
    'bluejay.speech.start_offset_ms': Math.round(startMs),
  };
  if (e.tool_call_id) attributes['mivas.tool.call_id'] = e.tool_call_id;
  const to = e.output.assistant;
  if (e.kind === 'handoff' && e.executed && typeof to === 'string') {
    attributes['gen_ai.handoff.from_agent'] = e.agent;
    attributes['gen_ai.handoff.to_agent'] = to;
  }
  const error = e.refusal ?? e.internal_fault;
  return { name: `execute_tool ${e.name}`, kind: 'internal', startMs, endMs: e.at_ms, attributes, error };
}

function speechSpans(events: readonly TimelineEvent[], endMs: number): Omit<SpanPlan, 'parent'>[] {
  const open = new Map<string, number>();
  const out: Omit<SpanPlan, 'parent'>[] = [];
  const emit = (side: 'caller' | 'agent', utteranceId: string, startMs: number, stopMs: number, interrupted: boolean): void => {
    const agent = side === 'agent';
    out.push({
      name: agent ? 'agent.speech' : 'customer.speech',
      kind: 'internal',
      startMs,
      endMs: stopMs,
      attributes: {
        'gen_ai.operation.name': agent ? 'text_to_speech' : 'speech_to_text',
        'mivas.utterance_id': utteranceId,
        'mivas.speech.speaker': agent ? 'agent' : 'customer',
        'bluejay.speech.start_offset_ms': Math.round(startMs),
        'bluejay.speech.end_offset_ms': Math.round(stopMs),
        'mivas.interrupted': interrupted,
      },
      error: null,
    });
  };
  for (const e of events) {
    if (e.type === 'speech.started') open.set(`${e.side}:${e.utterance_id}`, e.at_ms);
    if (e.type !== 'speech.completed') continue;
    const key = `${e.side}:${e.utterance_id}`;
    const start = open.get(key);
    open.delete(key);
    if (start !== undefined) emit(e.side, e.utterance_id, start, e.at_ms, e.interrupted);
  }
  for (const [key, start] of open) {
    const [side, utteranceId] = key.split(':') as ['caller' | 'agent', string];
    emit(side, utteranceId, start, endMs, true);
  }
  return out;
}

/** Model responses: each ends at its `response.done`; it starts at the latest preceding turn boundary. */
function modelSpans(events: readonly TimelineEvent[], model: string): Omit<SpanPlan, 'parent'>[] {
  const out: Omit<SpanPlan, 'parent'>[] = [];
  let boundaryMs = 0;
  let transcript: string[] = [];
  for (const e of events) {
    if ((e.type === 'speech.completed' && e.side === 'caller') || e.type === 'tool') boundaryMs = Math.max(boundaryMs, e.at_ms);
    if (e.type === 'transcript' && e.side === 'agent') transcript.push(e.text);
    if (e.type !== 'response.done') continue;
    const attributes: SpanAttributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.response.model': model, 'mivas.interrupted': e.status === 'cancelled' };
    if (e.response_id) attributes['gen_ai.response.id'] = e.response_id;
    for (const [key, n] of Object.entries(e.usage ?? {})) attributes[`gen_ai.usage.${key}`] = n;
    if (transcript.length) attributes['mivas.transcript'] = clipJson(transcript.join(' '));
    out.push({ name: 'model', kind: 'client', startMs: boundaryMs, endMs: e.at_ms, attributes, error: e.status === 'failed' ? 'response failed' : null });
    boundaryMs = e.at_ms;
    transcript = [];
  }
  return out;
}

function pointSpans(events: readonly TimelineEvent[]): Omit<SpanPlan, 'parent'>[] {
  const out: Omit<SpanPlan, 'parent'>[] = [];
  for (const e of events) {
    if (e.type === 'transcript' && e.side === 'caller') {
      // Never deduplicated by text (wire.md §5.2: upstream dropped a repeated "yes").
      const attributes = { 'mivas.role': 'user', 'mivas.transcript': clipJson(e.text), 'gen_ai.input.messages': clipJson([{ role: 'user', content: e.text }]) };
      out.push({ name: 'user_message', kind: 'internal', startMs: e.at_ms, endMs: e.at_ms, attributes, error: null });
    }
    if (e.type === 'barge_in') out.push({ name: 'audio_interrupted', kind: 'internal', startMs: e.at_ms, endMs: e.at_ms, attributes: { 'mivas.event': 'audio_interrupted' }, error: null });
  }
  return out;
}

function turnSpans(events: readonly TimelineEvent[], endMs: number): SpanPlan[] {
  const starts = events.filter((e) => e.type === 'speech.started' && e.side === 'caller').map((e) => e.at_ms);
  return starts.map((startMs, index) => ({
    name: 'turn',
    kind: 'internal' as const,
    startMs,
    endMs: Math.max(startMs, starts[index + 1] ?? endMs),
    attributes: { 'mivas.turn.index': index },
    parent: 'root' as const,
    error: null,
  }));
}

/** The turn a span starting at `startMs` belongs to, else the root. */
function parentOf(turns: readonly SpanPlan[], startMs: number): 'root' | number {
  for (let i = turns.length - 1; i >= 0; i--) if ((turns[i]?.startMs ?? Infinity) <= startMs) return i;
  return 'root';
}

/** Plans every span of a finished call from its record; times come from the timeline only. */
export function planCallSpans(record: CallRecord): CallSpanPlan {
  const endMs = record.durationMs;
  const model = record.model ?? record.harness;
  const failed = record.endReason === 'provider_error' || record.endReason === 'internal_error' || record.endReason === 'drain_deadline' || record.endReason === 'caller_flood';
  const root: SpanPlan = {
    name: 'voice.call',
    kind: 'server',
    startMs: 0,
    endMs,
    attributes: {
      'bluejay.simulation_result_id': record.callId,
      'gen_ai.system': genAiSystem(record.harness),
      'gen_ai.request.model': model,
      'gen_ai.operation.name': 'realtime',
      'mivas.pack': record.pack.id,
      'mivas.harness': record.harness,
      'mivas.call_id': record.callId,
      'mivas.end_reason': record.endReason,
      'gen_ai.usage.input_tokens': record.usage.input_tokens,
      'gen_ai.usage.output_tokens': record.usage.output_tokens,
      'gen_ai.usage.total_tokens': record.usage.total_tokens,
      'mivas.response.count': record.events.filter((e) => e.type === 'response.done').length,
      ...(failed ? { 'mivas.error': record.endReason } : {}),
    },
    parent: 'root',
    error: failed ? record.endReason : null,
  };
  const turns = turnSpans(record.events, endMs);
  const tools = record.events.filter((e): e is Tool => e.type === 'tool').map(toolSpan);
  const flat = [...modelSpans(record.events, model), ...tools, ...speechSpans(record.events, endMs), ...pointSpans(record.events)];
  const children = flat.map((span) => ({ ...span, parent: parentOf(turns, span.startMs) }));
  return { root, turns, children };
}
