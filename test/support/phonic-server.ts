import { z } from 'zod';
import { isAudible } from './realtime-server.ts';
import { LoopbackStandIn, StrictJsonConnection } from './strict-json-socket.ts';

/**
 * A strict local Phonic stand-in: `/v1/sts/ws` over ws:// loopback. Client messages are checked
 * against the payload types of Phonic's Node SDK (github.com/Phonic-Co/phonic-node 8dd7d9d,
 * `src/api/types/*Payload.ts`, `ConfigOptions.ts`, `InlineWebSocketTool.ts`, `OpenAiFunction.ts`):
 * an unknown type, an unknown field, a missing required one, audio before `config`, an
 * `audio_chunk` over 40 ms, a first chunk without `iso_date_time` or a `tool_call_output` for no
 * open call is refused with an `error` and recorded in `violations`. `config` is answered with
 * `conversation_created` and `ready_to_start_conversation`; the test drives the rest.
 */

const inlineTool = z.strictObject({
  type: z.literal('custom_websocket'),
  tool_schema: z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().min(1), description: z.string(), parameters: z.record(z.string(), z.unknown()), strict: z.literal(true) }) }),
  execution_mode: z.enum(['sync', 'async']).optional(),
  tool_call_output_timeout_ms: z.number().optional(),
  require_speech_before_tool_call: z.boolean().optional(),
  wait_for_speech_before_tool_call: z.boolean().optional(),
  forbid_speech_after_tool_call: z.boolean().optional(),
  forbid_tool_call_after_speech: z.boolean().optional(),
  allow_tool_chaining: z.boolean().optional(),
  wait_for_response: z.boolean().optional(),
});
const format = z.enum(['pcm_44100', 'pcm_24000', 'pcm_16000', 'pcm_8000', 'mulaw_8000']);
const anything = z.unknown().optional();
/** `ConfigOptions`: every field optional; the ones mivas sends are typed, the rest accepted as documented names. */
const configOptions = {
  agent: z.string().optional(),
  project: z.string().optional(),
  model: z.literal('merritt').optional(),
  system_prompt: z.string().optional(),
  audio_speed: z.number().optional(),
  background_noise_level: z.number().optional(),
  background_noise: anything,
  generate_welcome_message: z.boolean().optional(),
  is_welcome_message_interruptible: z.boolean().optional(),
  websocket_timeout_sec: z.number().optional(),
  welcome_message: z.string().nullish(),
  voice_id: z.string().optional(),
  input_format: format.optional(),
  output_format: format.optional(),
  vad_prebuffer_duration_ms: z.number().optional(),
  vad_min_speech_duration_ms: z.number().optional(),
  vad_min_silence_duration_ms: z.number().optional(),
  vad_threshold: z.number().optional(),
  min_words_to_interrupt: z.number().optional(),
  generate_no_input_poke_text: z.boolean().optional(),
  no_input_poke_sec: z.number().nullish(),
  no_input_poke_text: z.string().optional(),
  no_input_end_conversation_sec: z.number().optional(),
  default_language: z.string().optional(),
  additional_languages: z.array(z.string()).optional(),
  multilingual_mode: z.enum(['auto', 'request', 'initial']).optional(),
  push_to_talk: z.boolean().optional(),
  stream_ahead_of_real_time: z.boolean().optional(),
  intelligence_level: z.enum(['standard', 'high']).optional(),
  boosted_keywords: z.array(z.string()).optional(),
  pronunciation_dictionary: anything,
  tools: z.array(z.union([z.string(), inlineTool, z.record(z.string(), z.unknown())])).optional(),
  template_variables: z.record(z.string(), z.string()).optional(),
  enable_redaction: z.boolean().optional(),
  mcp_servers: z.array(z.string()).optional(),
  observability_integrations: z.array(z.literal('braintrust')).optional(),
  external_storage_policy: z.string().nullish(),
  tasks: anything,
  outbound_number_pool: anything,
  enable_assistant_backchannel: z.boolean().optional(),
  assistant_backchannel_aggressiveness: z.number().optional(),
  configuration_endpoint: anything,
  additional_params: z.record(z.string(), z.unknown()).optional(),
  data_retention_policy: anything,
};

const clientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('config'), ...configOptions }),
  z.strictObject({ type: z.literal('audio_chunk'), audio: z.string(), iso_date_time: z.iso.datetime().optional() }),
  z.strictObject({ type: z.literal('tool_call_output'), tool_call_id: z.string().min(1), output: z.unknown().optional() }),
  z.strictObject({ type: z.literal('reset'), config: z.strictObject(configOptions) }),
  z.strictObject({ type: z.literal('generate_reply'), system_message: z.string().nullish(), user_message: z.string().nullish() }),
  z.strictObject({ type: z.literal('update_system_prompt'), system_prompt: z.string() }),
  z.strictObject({ type: z.literal('add_system_message'), system_message: z.string() }),
]);
export type PhonicClientMessage = z.infer<typeof clientMessageSchema>;

/** Bytes per millisecond of PCM16 mono at a `pcm_<rate>` format. */
function bytesPerMs(f: string | undefined): number {
  const rate = Number((f ?? 'pcm_44100').split('_')[1]);
  return f?.startsWith('mulaw') ? rate / 1000 : (rate / 1000) * 2;
}

export class PhonicConnection extends StrictJsonConnection<PhonicClientMessage> {
  private static calls = 0;
  private readonly openCalls = new Set<string>();

  waitForCallerSpeech(): Promise<void> {
    return this.waitFor(() => this.of('audio_chunk').some((m) => isAudible(Buffer.from(m.audio, 'base64'))), 'caller speech');
  }

  /** The assistant speaks: started, audio chunks (the text on the first), then (unless told not to) finished. */
  speak(pcm: Buffer, text: string, options: { finished?: boolean; chunkBytes?: number } = {}): void {
    const chunkBytes = options.chunkBytes ?? 6_400;
    this.send({ type: 'assistant_started_speaking' });
    for (let i = 0; i < pcm.length; i += chunkBytes) this.send({ type: 'audio_chunk', audio: pcm.subarray(i, i + chunkBytes).toString('base64'), text: i === 0 ? text : '' });
    if (options.finished ?? true) this.finished();
  }

  finished(): void {
    this.send({ type: 'assistant_finished_speaking' });
  }

  callerSaid(text: string): void {
    this.send({ type: 'user_started_speaking' });
    this.send({ type: 'input_text', language: 'en', text });
    this.send({ type: 'user_finished_speaking' });
  }

  /** A `tool_call`; returns its id. */
  callTool(name: string, parameters: Record<string, unknown>): string {
    const id = `tc_${++PhonicConnection.calls}`;
    this.openCalls.add(id);
    this.send({ type: 'tool_call', tool_call_id: id, tool_name: name, parameters });
    return id;
  }

  /** The output the harness sent for a call. */
  async toolOutput(id: string): Promise<unknown> {
    await this.waitFor(() => this.of('tool_call_output').some((m) => m.tool_call_id === id), `the output of ${id}`);
    return this.of('tool_call_output').find((m) => m.tool_call_id === id)?.output;
  }

  protected accept(json: unknown): PhonicClientMessage | string {
    const parsed = clientMessageSchema.safeParse(json);
    if (!parsed.success) return `${(json as { type?: unknown } | null)?.type}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`;
    return this.orderProblem(parsed.data) ?? parsed.data;
  }

  protected answer(message: PhonicClientMessage): void {
    if (message.type === 'config') {
      this.send({ type: 'conversation_created', conversation_id: 'conv_standin' });
      this.send({ type: 'ready_to_start_conversation' });
    }
    if (message.type === 'tool_call_output') this.openCalls.delete(message.tool_call_id);
    if (message.type === 'reset') this.openCalls.clear();
  }

  protected errorFrame(reason: string): unknown {
    return { type: 'error', error: { message: reason, code: 'invalid_message' } };
  }

  /** What the message breaks of the protocol's order and limits, or null. */
  private orderProblem(m: PhonicClientMessage): string | null {
    const config = this.of('config')[0];
    if (m.type === 'config') return config ? 'a second config' : null;
    if (!config) return `${m.type} before config`;
    if (m.type === 'audio_chunk') {
      const ms = Buffer.from(m.audio, 'base64').length / bytesPerMs(config.input_format);
      if (ms > 40) return `audio_chunk of ${ms} ms (at most 40)`;
      if (this.of('audio_chunk').length === 0 && !m.iso_date_time) return 'the first audio_chunk has no iso_date_time';
    }
    if (m.type === 'tool_call_output' && !this.openCalls.has(m.tool_call_id)) return `tool_call_output for ${m.tool_call_id}, which is not an open call`;
    return null;
  }
}

/** The stand-in server: `/v1/sts/ws` on loopback. */
export class PhonicStandIn extends LoopbackStandIn<PhonicConnection> {
  static async start(): Promise<PhonicStandIn> {
    const { server, port } = await LoopbackStandIn.listen('/v1/sts/ws');
    return new PhonicStandIn(server, port, (ws, headers) => new PhonicConnection(ws, headers));
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'phonic/sts', PHONIC_API_KEY: 'ph-test-key', MIVAS_PHONIC_BASE_URL: `ws://127.0.0.1:${this.port}`, ...extra };
  }
}
