import type { AddressInfo } from 'node:net';
import {
  ActivityHandling,
  Behavior,
  EndSensitivity,
  MediaModality,
  Modality,
  StartSensitivity,
  Type,
  type AudioTranscriptionConfig,
  type AutomaticActivityDetection,
  type Blob as GeminiBlob,
  type Content,
  type ContextWindowCompressionConfig,
  type FunctionDeclaration,
  type FunctionResponse,
  type GenerationConfig,
  type LiveClientContent,
  type LiveClientMessage,
  type LiveClientRealtimeInput,
  type LiveClientSetup,
  type LiveClientToolResponse,
  type LiveServerMessage,
  type Part,
  type PrebuiltVoiceConfig,
  type RealtimeInputConfig,
  type Schema,
  type SessionResumptionConfig,
  type SlidingWindow,
  type SpeechConfig,
  type Tool,
  type UsageMetadata,
  type VoiceConfig,
} from '@google/genai';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeStandInServer, ConnectionQueue } from './connection-queue.ts';
import { z } from 'zod';
import { isAudible } from './realtime-server.ts';

/**
 * A strict local Gemini Live stand-in, spoken to by Google's own SDK (`@google/genai`, `ai.live.connect`)
 * over ws:// loopback. Every client message is checked against the SDK's wire types before it
 * is taken: each object below is a strict zod object whose every key must be a field of the SDK
 * interface named beside it (a key the SDK lacks does not compile), fields the API needs are
 * required, and a Schema of type OBJECT must have non-empty `properties`, as the Gemini API demands
 * ("should be non-empty for OBJECT type"). A message that fails is recorded in `violations` and
 * the socket is closed with 1007, as the API closes on an invalid argument. Server messages are
 * typed as the SDK's `LiveServerMessage`. One connection per stream; the test drives each.
 */

/** A strict object whose keys are fields of the SDK type `T`: a key `T` does not have is a type error. */
function sdk<T>() {
  return <S extends { [K in keyof S]: K extends keyof T ? z.ZodType : never }>(shape: S) => z.strictObject(shape);
}

const schemaSchema: z.ZodType<Schema> = z.lazy(() =>
  sdk<Schema>()({
    type: z.enum(Type),
    description: z.string().optional(),
    enum: z.array(z.string()).min(1).optional(),
    format: z.string().optional(),
    nullable: z.boolean().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minItems: z.string().optional(),
    maxItems: z.string().optional(),
    minLength: z.string().optional(),
    maxLength: z.string().optional(),
    pattern: z.string().optional(),
    title: z.string().optional(),
    properties: z.record(z.string(), schemaSchema).optional(),
    required: z.array(z.string()).optional(),
    items: schemaSchema.optional(),
    anyOf: z.array(schemaSchema).optional(),
  }).superRefine((s, ctx) => {
    if (s.type === Type.OBJECT && Object.keys(s.properties ?? {}).length === 0) ctx.addIssue({ code: 'custom', message: 'properties: should be non-empty for OBJECT type' });
    for (const name of s.required ?? []) if (!s.properties?.[name]) ctx.addIssue({ code: 'custom', message: `required names an undeclared property: ${name}` });
  }),
);

const declarationSchema = sdk<FunctionDeclaration>()({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/),
  description: z.string().optional(),
  behavior: z.enum(Behavior).optional(),
  parameters: schemaSchema.optional(),
});

const toolSchema = sdk<Tool>()({ functionDeclarations: z.array(declarationSchema).min(1) });
const partSchema = sdk<Part>()({ text: z.string().min(1) });
const contentSchema = sdk<Content>()({ role: z.enum(['user', 'model']).optional(), parts: z.array(partSchema).min(1) });
const transcriptionSchema = sdk<AudioTranscriptionConfig>()({});

const setupSchema = sdk<LiveClientSetup>()({
  model: z.string().regex(/^models\/[a-z0-9.-]+$/),
  generationConfig: sdk<GenerationConfig>()({
    responseModalities: z.array(z.enum(Modality)).min(1),
    speechConfig: sdk<SpeechConfig>()({ voiceConfig: sdk<VoiceConfig>()({ prebuiltVoiceConfig: sdk<PrebuiltVoiceConfig>()({ voiceName: z.string().min(1) }) }) }).optional(),
  }),
  systemInstruction: contentSchema.optional(),
  tools: z.array(toolSchema).optional(),
  realtimeInputConfig: sdk<RealtimeInputConfig>()({
    automaticActivityDetection: sdk<AutomaticActivityDetection>()({
      disabled: z.boolean().optional(),
      startOfSpeechSensitivity: z.enum(StartSensitivity).optional(),
      endOfSpeechSensitivity: z.enum(EndSensitivity).optional(),
      prefixPaddingMs: z.number().int().nonnegative().optional(),
      silenceDurationMs: z.number().int().nonnegative().optional(),
    }).optional(),
    activityHandling: z.enum(ActivityHandling).optional(),
  }).optional(),
  inputAudioTranscription: transcriptionSchema.optional(),
  outputAudioTranscription: transcriptionSchema.optional(),
  sessionResumption: sdk<SessionResumptionConfig>()({ handle: z.string().min(1).optional() }).optional(),
  contextWindowCompression: sdk<ContextWindowCompressionConfig>()({ slidingWindow: sdk<SlidingWindow>()({ targetTokens: z.string().optional() }).optional(), triggerTokens: z.string().optional() }).optional(),
});

const blobSchema = sdk<GeminiBlob>()({ data: z.base64().min(1), mimeType: z.string().regex(/^audio\/pcm;rate=\d+$/) });
const realtimeInputSchema = sdk<LiveClientRealtimeInput>()({ audio: blobSchema.optional(), text: z.string().min(1).optional() }).refine((r) => Number(r.audio !== undefined) + Number(r.text !== undefined) === 1, 'exactly one of audio or text');
const clientContentSchema = sdk<LiveClientContent>()({ turns: z.array(contentSchema).optional(), turnComplete: z.boolean().optional() });
const functionResponseSchema = sdk<FunctionResponse>()({ id: z.string().min(1), name: z.string().min(1), response: z.record(z.string(), z.unknown()) });
const toolResponseSchema = sdk<LiveClientToolResponse>()({ functionResponses: z.array(functionResponseSchema).min(1) });

/** One client message: exactly one of the LiveClientMessage fields mivas may send. */
const clientMessageSchema = sdk<LiveClientMessage>()({
  setup: setupSchema.optional(),
  clientContent: clientContentSchema.optional(),
  realtimeInput: realtimeInputSchema.optional(),
  toolResponse: toolResponseSchema.optional(),
}).refine((m) => Object.keys(m).length === 1, 'exactly one message field');

/** Why a client message does not match the SDK's shapes (strictly), or null when it does. */
export function messageProblem(json: unknown): string | null {
  const parsed = clientMessageSchema.safeParse(json);
  return parsed.success ? null : z.prettifyError(parsed.error).replace(/\s+/g, ' ');
}

export type GeminiClientMessage = Readonly<Record<string, unknown>>;

/** The usage every scripted turn reports (the SDK's UsageMetadata), thinking and tool-use tokens included. */
export const GEMINI_USAGE: UsageMetadata = {
  promptTokenCount: 400,
  responseTokenCount: 100,
  toolUsePromptTokenCount: 20,
  thoughtsTokenCount: 30,
  totalTokenCount: 550,
  promptTokensDetails: [
    { modality: MediaModality.TEXT, tokenCount: 300 },
    { modality: MediaModality.AUDIO, tokenCount: 100 },
  ],
  toolUsePromptTokensDetails: [{ modality: MediaModality.TEXT, tokenCount: 20 }],
  responseTokensDetails: [{ modality: MediaModality.AUDIO, tokenCount: 100 }],
};

export class GeminiConnection {
  /** Call ids are unique across every connection, as the Live API's are. */
  private static calls = 0;
  readonly received: GeminiClientMessage[] = [];
  /** Why client messages were refused (the socket closes with 1007 at the first). */
  readonly violations: string[] = [];
  readonly closed: Promise<number>;
  /** Function call ids this stream issued and has not seen answered. */
  private readonly issued = new Set<string>();
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private isClosed = false;

  private readonly ws: WebSocket;
  readonly url: string;

  constructor(
    ws: WebSocket,
    url: string,
  ) {
    this.ws = ws;
    this.url = url;
    ws.on('message', (data: Buffer) => this.take(data));
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.isClosed = true;
        resolve(code);
        this.settle();
      }),
    );
  }

  /** Validates one client message; a valid one is recorded (and a setup answered), an invalid one closes the stream. */
  private take(data: Buffer): void {
    const problem = this.check(data.toString('utf8'));
    if (problem) {
      this.violations.push(problem);
      // A close reason holds at most 123 bytes.
      this.ws.close(1007, Buffer.from(problem).subarray(0, 120).toString('utf8').replace(/\uFFFD+$/, ''));
      return;
    }
    const message = JSON.parse(data.toString('utf8')) as GeminiClientMessage;
    this.received.push(message);
    if ('setup' in message) this.send({ setupComplete: {} });
    this.settle();
  }

  /** Why a frame is not a message the Live API takes here, or null. */
  private check(text: string): string | null {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    const parsed = clientMessageSchema.safeParse(json);
    if (!parsed.success) return messageProblem(json);
    const m = parsed.data;
    if ((this.received.length === 0) !== Boolean(m.setup)) return 'setup must be the first message, and only the first';
    for (const r of m.toolResponse?.functionResponses ?? []) {
      if (!this.issued.delete(r.id)) return `functionResponses: id ${r.id} answers no open function call`;
    }
    return null;
  }

  /** The kind of a client message: `setup`, `clientContent`, `toolResponse`, `text` or `audio` (realtimeInput). */
  static kindOf(m: GeminiClientMessage): string {
    if ('realtimeInput' in m) {
      const input = m.realtimeInput as Record<string, unknown>;
      return 'text' in input ? 'text' : 'audio' in input ? 'audio' : 'realtimeInput';
    }
    return Object.keys(m)[0] ?? '';
  }

  of(kind: string): GeminiClientMessage[] {
    return this.received.filter((m) => GeminiConnection.kindOf(m) === kind);
  }

  /** The next not-yet-taken message of a kind. */
  async next(kind: string): Promise<GeminiClientMessage> {
    const taken = this.cursors.get(kind) ?? 0;
    await this.waitFor(() => this.of(kind).length > taken, `a ${kind}`);
    this.cursors.set(kind, taken + 1);
    return this.of(kind)[taken] ?? {};
  }

  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isClosed) return Promise.reject(new Error(`gemini stand-in socket closed before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  /** Resolves at the first audible caller audio after `from` audio messages. */
  waitForCallerSpeech(from = 0): Promise<void> {
    return this.waitFor(() => this.of('audio').slice(from).some((m) => isAudible(Buffer.from(String(((m.realtimeInput as Record<string, unknown>).audio as Record<string, unknown>).data), 'base64'))), 'caller speech');
  }

  send(message: Omit<LiveServerMessage, 'text' | 'data'>): void {
    if (!this.isClosed) this.ws.send(JSON.stringify(message));
  }

  /** The model speaks: audio in parts of `chunkBytes`, its transcript, then (unless told not to) turnComplete with usage. */
  speak(pcm: Buffer, transcript: string, options: { turnComplete?: boolean; chunkBytes?: number } = {}): void {
    const chunk = options.chunkBytes ?? 9_600;
    for (let i = 0; i < pcm.length; i += chunk) this.send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: 'audio/pcm;rate=24000', data: pcm.subarray(i, i + chunk).toString('base64') } }] } } });
    this.send({ serverContent: { outputTranscription: { text: transcript } } });
    if (options.turnComplete ?? true) this.turnComplete();
  }

  turnComplete(): void {
    this.send({ serverContent: { generationComplete: true } });
    this.send({ serverContent: { turnComplete: true }, usageMetadata: GEMINI_USAGE });
  }

  /** What the server's transcription heard the caller say. */
  callerSaid(text: string): void {
    this.send({ serverContent: { inputTranscription: { text } } });
  }

  /** A toolCall; `id: null` leaves the id out, as the Live API has been seen to. */
  callTools(calls: readonly { readonly name: string; readonly args?: Record<string, unknown>; readonly id?: string | null }[]): void {
    const functionCalls = calls.map((c) => ({ ...(c.id === null ? {} : { id: c.id ?? `fc_${++GeminiConnection.calls}` }), name: c.name, args: c.args ?? {} }));
    for (const fc of functionCalls) if (fc.id) this.issued.add(fc.id);
    this.send({ toolCall: { functionCalls } });
  }

  /** The model withdraws calls (LiveServerToolCallCancellation). */
  cancelTools(ids: readonly string[]): void {
    for (const id of ids) this.issued.delete(id);
    this.send({ toolCallCancellation: { ids: [...ids] } });
  }

  /** The functionResponses of the next toolResponse. */
  async toolResponses(): Promise<{ id?: string; name: string; response: Record<string, unknown> }[]> {
    const m = await this.next('toolResponse');
    return (m.toolResponse as { functionResponses: { id?: string; name: string; response: Record<string, unknown> }[] }).functionResponses;
  }

  drop(): void {
    this.ws.terminate();
  }

  private settle(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      } else if (this.isClosed) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.reject(new Error(`gemini stand-in socket closed before ${w.what}`));
      }
    }
  }
}

export class GeminiLiveStandIn {
  private readonly queue = new ConnectionQueue<GeminiConnection>();
  readonly connections: readonly GeminiConnection[] = this.queue.all;
  /** Connection numbers (1-based) whose upgrade is refused with 503. */
  readonly refuse = new Set<number>();

  private readonly server: WebSocketServer;
  readonly port: number;

  private constructor(
    server: WebSocketServer,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  static async start(): Promise<GeminiLiveStandIn> {
    const holder: { s: GeminiLiveStandIn | null; attempts: number } = { s: null, attempts: 0 };
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      perMessageDeflate: false,
      verifyClient: (_info: unknown, done: (ok: boolean, status?: number) => void) => {
        holder.attempts++;
        if (holder.s?.refuse.has(holder.attempts)) done(false, 503);
        else done(true);
      },
    });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const standIn = new GeminiLiveStandIn(server, (server.address() as AddressInfo).port);
    holder.s = standIn;
    server.on('connection', (ws, req) => {
      standIn.queue.arrive(new GeminiConnection(ws, req.url ?? '/'));
    });
    return standIn;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'google/gemini-live', GEMINI_API_KEY: 'gm-test-key', MIVAS_GEMINI_BASE_URL: `http://127.0.0.1:${this.port}`, ...extra };
  }

  nextConnection(): Promise<GeminiConnection> {
    return this.queue.next();
  }

  async close(): Promise<void> {
    await closeStandInServer(this.server);
  }
}
