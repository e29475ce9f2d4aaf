import { createServer, type Http2Server, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec, type Message } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { z } from 'zod';
import { isAudible } from './realtime-server.ts';

/**
 * A local stand-in for Bedrock's InvokeModelWithBidirectionalStream, spoken to by the real AWS SDK
 * (`@aws-sdk/client-bedrock-runtime`) over cleartext HTTP/2: `POST /model/<id>/invoke-with-bidirectional-stream`,
 * both directions framed by the AWS event-stream codec (`@smithy/core/event-streams`). The SDK signs
 * each input message, so an input frame is an envelope (`:date`, `:chunk-signature`) around the
 * real one: a `chunk` event whose JSON payload is `{"bytes": "<base64 of the Nova event JSON>"}`.
 * Output frames are `chunk` events of the same shape. One stream per session; tests drive each.
 */

export type NovaClientEvent = { readonly name: string; readonly body: Readonly<Record<string, unknown>> };

/*
 * The input events a Nova 2 Sonic stream takes, strictly: the fields of
 * docs.aws.amazon.com/nova/latest/nova2-userguide/sonic-input-events.html as the aws-samples
 * client sends them (amazon-nova-samples `speech-to-speech/sample-codes/websocket-nodejs/src/client.ts`
 * and `consts.ts`, 74d0deb), plus Nova 2's `turnDetectionConfiguration`. An unknown or missing
 * field, or an event out of order, is a violation: Bedrock answers one with a ValidationException
 * and ends the stream, and so does this stand-in.
 */
const nameField = z.string().min(1);
const audioConfig = { mediaType: z.literal('audio/lpcm'), sampleSizeBits: z.literal(16), channelCount: z.literal(1), audioType: z.literal('SPEECH'), encoding: z.literal('base64') };
const textConfig = z.strictObject({ mediaType: z.literal('text/plain') });
const toolSpec = z.strictObject({ toolSpec: z.strictObject({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), description: z.string().min(1), inputSchema: z.strictObject({ json: z.string().refine((j) => typeof JSON.parse(j) === 'object', 'a JSON object as a string') }) }) });
const inputEvents = {
  sessionStart: z.strictObject({
    inferenceConfiguration: z.strictObject({ maxTokens: z.number().int().positive(), topP: z.number().min(0).max(1), temperature: z.number().min(0).max(1) }),
    turnDetectionConfiguration: z.strictObject({ endpointingSensitivity: z.enum(['HIGH', 'MEDIUM', 'LOW']) }).optional(),
  }),
  promptStart: z.strictObject({
    promptName: nameField,
    textOutputConfiguration: textConfig,
    audioOutputConfiguration: z.strictObject({ ...audioConfig, sampleRateHertz: z.union([z.literal(8000), z.literal(16000), z.literal(24000)]), voiceId: nameField }),
    toolUseOutputConfiguration: z.strictObject({ mediaType: z.literal('application/json') }),
    toolConfiguration: z.strictObject({ tools: z.array(toolSpec) }),
  }),
  contentStart: z.union([
    z.strictObject({ promptName: nameField, contentName: nameField, type: z.literal('TEXT'), interactive: z.boolean(), role: z.enum(['SYSTEM', 'USER', 'ASSISTANT']), textInputConfiguration: textConfig }),
    z.strictObject({ promptName: nameField, contentName: nameField, type: z.literal('AUDIO'), interactive: z.literal(true), role: z.literal('USER'), audioInputConfiguration: z.strictObject({ ...audioConfig, sampleRateHertz: z.literal(16000) }) }),
    z.strictObject({ promptName: nameField, contentName: nameField, type: z.literal('TOOL'), interactive: z.literal(false), role: z.literal('TOOL'), toolResultInputConfiguration: z.strictObject({ toolUseId: nameField, type: z.literal('TEXT'), textInputConfiguration: textConfig }) }),
  ]),
  textInput: z.strictObject({ promptName: nameField, contentName: nameField, content: z.string().refine((t) => Buffer.byteLength(t) <= 1024, 'at most 1 KB per textInput') }),
  audioInput: z.strictObject({ promptName: nameField, contentName: nameField, content: z.base64().min(1) }),
  toolResult: z.strictObject({ promptName: nameField, contentName: nameField, content: z.string().min(1) }),
  contentEnd: z.strictObject({ promptName: nameField, contentName: nameField }),
  promptEnd: z.strictObject({ promptName: nameField }),
  sessionEnd: z.strictObject({}),
} as const;

/** Why an input event does not fit the stream so far, or null: its shape, then its place (sessionStart first, names that refer to an open prompt and content). */
export function novaEventProblem(event: NovaClientEvent, before: readonly NovaClientEvent[]): string | null {
  const schema = (inputEvents as Record<string, z.ZodType>)[event.name];
  if (!schema) return `unknown input event ${event.name}`;
  const parsed = schema.safeParse(event.body);
  if (!parsed.success) return `${event.name}: ${z.prettifyError(parsed.error).replace(/\s+/g, ' ')}`;
  if ((before.length === 0) !== (event.name === 'sessionStart')) return 'sessionStart must be the first event, and only the first';
  if (event.name === 'sessionStart') return null;
  const prompt = before.find((e) => e.name === 'promptStart')?.body.promptName;
  if (event.name === 'promptStart') return prompt === undefined ? null : 'a second promptStart';
  if (event.name === 'sessionEnd') return null;
  if (event.body.promptName !== prompt) return `${event.name} names prompt ${String(event.body.promptName)}, not the open one`;
  if (event.name === 'contentStart' || event.name === 'promptEnd') return null;
  const content = event.body.contentName;
  const started = before.some((e) => e.name === 'contentStart' && e.body.contentName === content);
  const ended = before.some((e) => e.name === 'contentEnd' && e.body.contentName === content);
  return started && !ended ? null : `${event.name} for content ${String(content)}, which is not open`;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The Nova event names of every input chunk in a decoded frame (envelopes unwrapped). */
function unwrap(message: Message): Message[] {
  if (message.headers[':chunk-signature']) return message.body.length ? unwrap(codec.decode(message.body)) : [];
  return [message];
}

export class NovaStreamConnection {
  readonly received: NovaClientEvent[] = [];
  /** Why input events were refused (the stream ends at the first). */
  readonly violations: string[] = [];
  readonly ended: Promise<void>;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  private readonly cursors = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void; reject: (e: Error) => void; what: string }[] = [];
  private isEnded = false;
  private counter = 0;

  private readonly stream: ServerHttp2Stream;

  constructor(
    stream: ServerHttp2Stream,
    path: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ) {
    this.stream = stream;
    this.path = path;
    this.headers = headers;
    stream.respond({ ':status': 200, 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'standin-request' });
    // HTTP/2 data frames do not line up with event-stream messages: each message starts with its
    // total length (a big-endian uint32 prelude), so bytes are gathered until a whole one is in.
    let pending = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const frames: Message[] = [];
      while (pending.length >= 4 && pending.length >= pending.readUInt32BE(0)) {
        const length = pending.readUInt32BE(0);
        frames.push(codec.decode(pending.subarray(0, length)));
        pending = pending.subarray(length);
      }
      for (const frame of frames) {
        for (const m of unwrap(frame)) {
          if (m.headers[':event-type']?.value !== 'chunk') continue;
          const payload = JSON.parse(toUtf8(m.body)) as { bytes: string };
          const event = JSON.parse(Buffer.from(payload.bytes, 'base64').toString('utf8')) as { event: Record<string, Record<string, unknown>> };
          for (const [name, body] of Object.entries(event.event)) this.take({ name, body });
        }
      }
      this.settle();
    });
    this.ended = new Promise((resolve) => {
      const done = (): void => {
        this.isEnded = true;
        resolve();
        this.settle();
      };
      // The client ended its side (after sessionEnd): the stream's output side ends too.
      stream.on('end', () => {
        if (!stream.closed && !stream.writableEnded) stream.end();
        done();
      });
      stream.on('close', done);
    });
  }

  /** Checks one input event; a violation is recorded and ends the stream with a ValidationException. */
  private take(event: NovaClientEvent): void {
    if (this.violations.length) return;
    const problem = novaEventProblem(event, this.received);
    if (!problem) {
      this.received.push(event);
      return;
    }
    this.violations.push(problem);
    if (this.isEnded) return;
    this.stream.end(
      codec.encode({
        headers: { ':message-type': { type: 'string', value: 'exception' }, ':exception-type': { type: 'string', value: 'validationException' }, ':content-type': { type: 'string', value: 'application/json' } },
        body: fromUtf8(JSON.stringify({ message: problem })),
      }),
    );
  }

  of(name: string): NovaClientEvent[] {
    return this.received.filter((e) => e.name === name);
  }

  async next(name: string, predicate: (e: NovaClientEvent) => boolean = () => true): Promise<NovaClientEvent> {
    const taken = this.cursors.get(name) ?? 0;
    const find = (): number => this.of(name).findIndex((e, i) => i >= taken && predicate(e));
    await this.waitFor(() => find() >= 0, `a ${name}`);
    const index = find();
    this.cursors.set(name, index + 1);
    return this.of(name)[index] ?? { name, body: {} };
  }

  waitFor(check: () => boolean, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.isEnded) return Promise.reject(new Error(`nova stand-in stream ended before ${what}`));
    return new Promise((resolve, reject) => this.waiters.push({ check, resolve, reject, what }));
  }

  /** Resolves at the first audible caller audio. */
  waitForCallerSpeech(): Promise<void> {
    return this.waitFor(() => this.of('audioInput').some((e) => isAudible(Buffer.from(String(e.body.content), 'base64'))), 'caller speech');
  }

  /** The text of the TEXT blocks of a role, in order, joined per block. */
  textBlocks(role: string): string[] {
    const open = new Map<string, string>();
    const out: { name: string; text: string }[] = [];
    for (const e of this.received) {
      if (e.name === 'contentStart' && e.body.type === 'TEXT' && e.body.role === role) {
        open.set(String(e.body.contentName), '');
        out.push({ name: String(e.body.contentName), text: '' });
      } else if (e.name === 'textInput' && open.has(String(e.body.contentName))) {
        const entry = out.find((o) => o.name === e.body.contentName);
        if (entry) entry.text += String(e.body.content);
      }
    }
    return out.map((o) => o.text);
  }

  send(name: string, body: Record<string, unknown>): void {
    if (this.isEnded) return;
    const payload = JSON.stringify({ bytes: Buffer.from(JSON.stringify({ event: { [name]: body } })).toString('base64') });
    this.stream.write(
      codec.encode({
        headers: { ':event-type': { type: 'string', value: 'chunk' }, ':message-type': { type: 'string', value: 'event' }, ':content-type': { type: 'string', value: 'application/json' } },
        body: fromUtf8(payload),
      }),
    );
  }

  /** A FINAL USER transcript block (what the model's ASR heard the caller say). */
  callerSaid(text: string): void {
    this.send('contentStart', { type: 'TEXT', role: 'USER', contentId: `c${++this.counter}`, additionalModelFields: '{"generationStage":"FINAL"}' });
    this.send('textOutput', { role: 'USER', content: text });
    this.send('contentEnd', { type: 'TEXT', stopReason: 'END_TURN' });
  }

  /** The model speaks: SPECULATIVE text, the AUDIO block in chunks, the FINAL text, usage. */
  speak(pcm: Buffer, text: string): void {
    this.speakInParts([{ pcm, text }]);
  }

  /**
   * One answer in parts, as Nova 2 sends a longer one: per part a SPECULATIVE text, its AUDIO
   * block and its FINAL text; every block but the last part's ends with PARTIAL_TURN, the last
   * part's audio and FINAL text with END_TURN.
   */
  speakInParts(parts: readonly { readonly pcm: Buffer; readonly text: string }[]): void {
    this.send('completionStart', { sessionId: 's', promptName: 'p', completionId: `cmp${++this.counter}` });
    parts.forEach(({ pcm, text }, i) => {
      const stopReason = i === parts.length - 1 ? 'END_TURN' : 'PARTIAL_TURN';
      this.send('contentStart', { type: 'TEXT', role: 'ASSISTANT', additionalModelFields: '{"generationStage":"SPECULATIVE"}' });
      this.send('textOutput', { role: 'ASSISTANT', content: text });
      this.send('contentEnd', { type: 'TEXT', stopReason: 'PARTIAL_TURN' });
      this.send('contentStart', { type: 'AUDIO', role: 'ASSISTANT', contentId: `a${this.counter}_${i}` });
      for (let at = 0; at < pcm.length; at += 9_600) this.send('audioOutput', { content: pcm.subarray(at, at + 9_600).toString('base64') });
      if (stopReason === 'END_TURN') this.usage();
      this.send('contentEnd', { type: 'AUDIO', stopReason });
      this.send('contentStart', { type: 'TEXT', role: 'ASSISTANT', additionalModelFields: '{"generationStage":"FINAL"}' });
      this.send('textOutput', { role: 'ASSISTANT', content: text });
      this.send('contentEnd', { type: 'TEXT', stopReason });
    });
  }

  /** A TOOL block with one toolUse. */
  useTool(toolUseId: string, toolName: string, args: unknown): void {
    this.send('contentStart', { type: 'TOOL', role: 'TOOL', contentId: `t${++this.counter}` });
    this.send('toolUse', { toolUseId, toolName, content: JSON.stringify(args) });
    this.send('contentEnd', { type: 'TOOL', stopReason: 'TOOL_USE' });
  }

  usage(): void {
    this.send('usageEvent', { totalInputTokens: 100, totalOutputTokens: 50, details: { delta: { input: { speechTokens: 60, textTokens: 40 }, output: { speechTokens: 45, textTokens: 5 } } } });
  }

  /** The toolResult the harness sent for a toolUseId. */
  async toolResult(toolUseId: string): Promise<string> {
    const start = await this.next('contentStart', (e) => e.body.type === 'TOOL' && (e.body.toolResultInputConfiguration as { toolUseId?: string } | undefined)?.toolUseId === toolUseId);
    const result = await this.next('toolResult', (e) => e.body.contentName === start.body.contentName);
    return String(result.body.content);
  }

  private settle(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      } else if (this.isEnded) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.reject(new Error(`nova stand-in stream ended before ${w.what}`));
      }
    }
  }
}

export class NovaBedrockStandIn {
  readonly connections: NovaStreamConnection[] = [];
  private readonly arrivals: ((c: NovaStreamConnection) => void)[] = [];
  private taken = 0;
  /** Stream numbers (1-based) answered with HTTP 503 instead of a stream. */
  readonly refuse = new Set<number>();
  private attempts = 0;
  private readonly sessions = new Set<ServerHttp2Session>();

  private readonly server: Http2Server;
  readonly port: number;

  private constructor(
    server: Http2Server,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  static async start(): Promise<NovaBedrockStandIn> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const standIn = new NovaBedrockStandIn(server, (server.address() as AddressInfo).port);
    server.on('session', (session) => {
      standIn.sessions.add(session);
      session.on('close', () => standIn.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => {
      const path = String(headers[':path'] ?? '');
      if (!/^\/model\/[^/]+\/invoke-with-bidirectional-stream$/.test(path)) {
        stream.respond({ ':status': 404 });
        return void stream.end();
      }
      if (standIn.refuse.has(++standIn.attempts)) {
        stream.respond({ ':status': 503, 'content-type': 'application/json', 'x-amzn-errortype': 'ServiceUnavailableException' });
        return void stream.end(JSON.stringify({ message: 'stand-in refused the stream' }));
      }
      const conn = new NovaStreamConnection(stream, path, headers);
      standIn.connections.push(conn);
      standIn.arrivals.shift()?.(conn);
    });
    return standIn;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { MIVAS_HARNESS: 'aws/nova-sonic', MIVAS_NOVA_ENDPOINT: `http://127.0.0.1:${this.port}`, MIVAS_NOVA_REGION: 'us-east-1', ...extra };
  }

  nextConnection(): Promise<NovaStreamConnection> {
    const ready = this.connections[this.taken];
    this.taken++;
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
