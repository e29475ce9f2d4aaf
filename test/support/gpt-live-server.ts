import type { SessionUsageUpdatedEvent } from 'openai/resources/live/live';
import { z } from 'zod';
import { isAudible } from './realtime-server.ts';
import { LoopbackStandIn, StrictJsonConnection } from './strict-json-socket.ts';

/**
 * A strict local GPT-Live stand-in: `/v1/live/sessions` over ws:// loopback. Every client event
 * is checked against the shapes of the `openai` SDK's `resources/live/live.d.ts` (openai@7.59.0):
 * an unknown event type, an unknown field or a missing required one is refused with an `error`
 * event and recorded in `violations`, and so is any command before `session.start`. It answers
 * `session.start` with `session.started` and `session.close` with `session.closed`; the test
 * drives the rest (audio, transcripts, the delegated backend's function calls).
 */

const eventId = z.string().nullish();
const text = z.string();
const functionTool = z.strictObject({ type: z.literal('function'), name: z.string().min(1), description: z.string().nullish(), parameters: z.record(z.string(), z.unknown()).nullish(), strict: z.boolean().nullish() });
const responsesConfig = z.strictObject({
  model: z.string().min(1),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z.strictObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  service_tier: z.string().nullish(),
  text: z.strictObject({ verbosity: z.string().nullish() }).nullish(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })]).optional(),
  tools: z.array(functionTool).optional(),
});
const delegation = z.union([
  z.null(),
  z.strictObject({ type: z.literal('client'), acknowledgement_delay_ms: z.number().optional() }),
  z.strictObject({ type: z.literal('responses'), responses: responsesConfig, acknowledgement_delay_ms: z.number().optional() }),
]);
const onePart = <T extends z.ZodType>(part: T) => z.array(part).length(1);
const itemMeta = { id: z.string().nullish(), status: z.enum(['incomplete', 'completed']).nullish(), type: z.literal('message').optional() };
const initialItem = z.union([
  z.strictObject({ role: z.literal('developer'), content: onePart(z.strictObject({ text, type: z.literal('input_text').optional() })), ...itemMeta }),
  z.strictObject({ role: z.literal('user'), content: onePart(z.strictObject({ text, type: z.literal('input_text').optional() })), ...itemMeta }),
  z.strictObject({ role: z.literal('assistant'), content: onePart(z.union([z.strictObject({ text, type: z.literal('text').optional() }), z.strictObject({ text, type: z.literal('output_text') })])), ...itemMeta }),
]);
const audioFormat = z.union([z.strictObject({ type: z.literal('audio/pcm'), rate: z.union([z.literal(16_000), z.literal(24_000)]) }), z.strictObject({ type: z.enum(['audio/pcmu', 'audio/pcma']), rate: z.number() })]);
const sessionConfig = z.strictObject({
  model: z.string().min(1),
  audio: z.strictObject({ format: audioFormat.optional(), output: z.strictObject({ voice: z.union([z.string(), z.strictObject({ id: z.string() })]).optional() }).optional() }).optional(),
  client: z.unknown().optional(),
  delegation: delegation.optional(),
  input: z.array(initialItem).max(128).optional(),
  instructions: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  store: z.boolean().optional(),
  triggers: z.array(z.unknown()).optional(),
});
const appendText = <T extends string>(type: T) => z.strictObject({ type: z.literal(type), content: z.string(), delegation_id: z.string().nullable(), event_id: eventId });
const bare = <T extends string>(type: T) => z.strictObject({ type: z.literal(type), event_id: eventId });
const functionCallOutput = z.strictObject({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.string(), id: z.string().nullish(), status: z.string().nullish() });

/** Every client event of `ClientEvent` that mivas may send, strictly (the Decisions events are left out: mivas never sends them). */
const clientEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('session.start'), session: sessionConfig, event_id: eventId }),
  z.strictObject({ type: z.literal('session.input_audio.append'), audio: z.string(), event_id: eventId }),
  appendText('session.instructions.append'),
  appendText('session.thinking.append'),
  appendText('session.commentary.append'),
  z.strictObject({ type: z.literal('response.item.create'), item: functionCallOutput, event_id: eventId }),
  bare('response.create'),
  bare('session.input_audio.mute'),
  bare('session.input_audio.unmute'),
  bare('session.close'),
]);
export type LiveClientEvent = z.infer<typeof clientEventSchema>;

/** The session mivas started (`session.start`'s `session`). */
export type LiveSessionConfig = z.infer<typeof sessionConfig>;

export class GptLiveConnection extends StrictJsonConnection<LiveClientEvent> {
  /** Call ids are unique across every connection, as the Responses backend's are. */
  private static calls = 0;
  private sent = 0;

  /** The `session` of the `session.start` this connection received. */
  get session(): LiveSessionConfig {
    const start = this.of('session.start')[0];
    if (!start) throw new Error('no session.start yet');
    return start.session;
  }

  /** Resolves at the first audible caller audio. */
  waitForCallerSpeech(): Promise<void> {
    return this.waitFor(() => this.of('session.input_audio.append').some((e) => isAudible(Buffer.from(e.audio, 'base64'))), 'caller speech');
  }

  /** The model speaks: audio deltas of `chunkBytes`, then its transcript. No turn end follows: GPT-Live sends none. */
  speak(pcm: Buffer, transcript: string, chunkBytes = 9_600): void {
    for (let i = 0; i < pcm.length; i += chunkBytes) this.send({ type: 'session.output_audio.delta', delta: pcm.subarray(i, i + chunkBytes).toString('base64') });
    this.send({ type: 'session.output_transcript.delta', delta: transcript, ...this.stamp() });
  }

  /** GPT-Live's running usage: the session's cumulative audio seconds so far (the SDK's `SessionUsageUpdatedEvent`). */
  reportUsage(seconds: number): void {
    this.send({ type: 'session.usage.updated', event_id: this.nextEventId(), usage: { seconds } } satisfies SessionUsageUpdatedEvent);
  }

  /** What the model's transcription heard the caller say. */
  callerSaid(said: string): void {
    this.send({ type: 'session.input_transcript.delta', delta: said, ...this.stamp() });
  }

  /** The delegated backend calls functions: a delegation, then per call a nested `response.output_item.done`. */
  callTools(calls: readonly { readonly name: string; readonly args?: unknown }[]): string[] {
    const delegationId = `dlg_${++GptLiveConnection.calls}`;
    this.send({ type: 'session.delegation.created', event_id: this.nextEventId(), offset_ms: 0, delegation: { id: delegationId, target: 'responses', type: 'delegation', response_id: `resp_${delegationId}` } });
    return calls.map((c, i) => {
      const callId = `call_${++GptLiveConnection.calls}`;
      const item = { id: `fc_${callId}`, type: 'function_call', call_id: callId, name: c.name, arguments: JSON.stringify(c.args ?? {}), status: 'completed' };
      this.send({ type: 'response.event', event_id: this.nextEventId(), delegation_id: delegationId, event: { type: 'response.output_item.done', output_index: i, sequence_number: i + 1, item } });
      return callId;
    });
  }

  /** The function outputs the harness sent, once it asked the backend to continue (`response.create`). */
  async toolOutputs(): Promise<{ callId: string; output: string }[]> {
    const before = this.taken('response.item.create');
    await this.next('response.create');
    const items = this.of('response.item.create').slice(before);
    this.take('response.item.create', before + items.length);
    return items.map((e) => ({ callId: e.item.call_id, output: e.item.output }));
  }

  protected accept(json: unknown): LiveClientEvent | string {
    const parsed = clientEventSchema.safeParse(json);
    if (!parsed.success) return `invalid_request_error: ${(json as { type?: unknown } | null)?.type}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
    const event = parsed.data;
    const started = this.of('session.start').length > 0;
    if (event.type !== 'session.start' && !started) return `session_not_started: ${event.type} before session.start`;
    if (event.type === 'session.start' && started) return 'session_already_started: a second session.start';
    if ((event.type === 'response.item.create' || event.type === 'response.create') && this.session.delegation?.type !== 'responses') return `invalid_request_error: ${event.type} needs Responses delegation`;
    return event;
  }

  protected answer(event: LiveClientEvent): void {
    if (event.type === 'session.start') this.send({ type: 'session.started', event_id: this.nextEventId(), session: this.resource() });
    if (event.type === 'session.close') this.send({ type: 'session.closed', event_id: this.nextEventId(), reason: 'close_requested', session: this.resource(), usage: { seconds: 1 } });
  }

  protected errorFrame(reason: string): unknown {
    const code = reason.split(':')[0] ?? 'invalid_request_error';
    return { type: 'error', event_id: this.nextEventId(), error: { type: 'invalid_request_error', code, message: reason } };
  }

  private resource(): Record<string, unknown> {
    return { id: 'live_standin', expires_at: 4_000_000_000, status: 'active', ...this.session };
  }

  private stamp(): { event_id: string; start_ms: number; end_ms: number } {
    return { event_id: this.nextEventId(), start_ms: 0, end_ms: 0 };
  }

  private nextEventId(): string {
    return `evt_${++this.sent}`;
  }
}

/** The stand-in server: `/v1/live/sessions` on loopback. */
export class GptLiveStandIn extends LoopbackStandIn<GptLiveConnection> {
  static async start(): Promise<GptLiveStandIn> {
    const { server, port } = await LoopbackStandIn.listen('/v1/live/sessions');
    return new GptLiveStandIn(server, port, (ws, headers) => new GptLiveConnection(ws, headers));
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'openai/gpt-live', OPENAI_API_KEY: 'sk-live-test', MIVAS_GPT_LIVE_BASE_URL: `ws://127.0.0.1:${this.port}/v1`, ...extra };
  }
}
