/**
 * A load-grade realtime provider stand-in for the live-call bench and the soak. It speaks the same
 * GA event sequence as test/support/realtime-server.ts (session.created, session.updated per
 * session.update, response.created → output_item.added → output_audio.delta… → output_audio.done →
 * transcript → output_item.done → response.done with usage; function calls reported by both
 * arguments.done and output_item.done, wire.md §2.5–2.6), but keeps no wire log, so hundreds of
 * sessions can stream audio for minutes on one core. Its turn taking is a stand-in for server VAD:
 * caller audio that turns audible and then quiet again is a caller turn.
 * Loopback only.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_USAGE, tone } from '../test/support/realtime-server.ts';

/** Output rate of the GA provider (wire.md §2.3). */
const OUTPUT_RATE_HZ = 24_000;
/** One output_audio.delta: 100 ms at 24 kHz. */
const DELTA_BYTES = 4_800;
/** Quiet appends (≈20 ms each) that end a caller turn. */
const QUIET_APPENDS_TO_END_TURN = 10;
/** A sample louder than this is speech (the local caller's hold audio is digital silence). */
const AUDIBLE = 1_000;

/** How the stand-in behaves. */
export interface ProviderOptions {
  /** Length of every agent utterance. */
  readonly utteranceMs: number;
  /** The tool the model calls on every other caller turn (null: never). */
  readonly tool: { readonly name: string; readonly args: unknown } | null;
  /** Sessions (1-based arrival order) the provider drops right after the greeting. */
  readonly dropSession?: (index: number) => boolean;
  /** Function calls a session makes, one per caller turn, instead of `tool`; then it only speaks. */
  readonly script?: (index: number) => readonly { readonly name: string; readonly args: unknown }[];
}

/** What the stand-in tells its owner. */
export interface ProviderHooks {
  /** Caller audio turned audible on connection `index` (arrival order, 0-based). */
  callerOnset(index: number, atMs: number): void;
  /** A function_call_output arrived; `ok` is the envelope's ok. */
  toolOutput(index: number, ok: boolean): void;
  /** A scripted session made its last call and is saying its last line. */
  scriptDone?(index: number): void;
}

function isAudible(pcm: Buffer): boolean {
  for (let i = 0; i + 1 < pcm.length; i += 16) {
    const v = pcm.readInt16LE(i);
    if (v > AUDIBLE || v < -AUDIBLE) return true;
  }
  return false;
}

/** Fast path for the hottest event: `{"type":"input_audio_buffer.append","audio":"…"}`. */
function appendAudio(text: string): Buffer | null {
  const prefix = '{"type":"input_audio_buffer.append","audio":"';
  if (!text.startsWith(prefix)) return null;
  return Buffer.from(text.slice(prefix.length, text.length - 2), 'base64');
}

class ProviderSession {
  private counter = 0;
  private speaking = false;
  private quietAppends = 0;
  private turns = 0;
  private greeted = false;
  private scriptStep = 0;

  private readonly ws: WebSocket;
  readonly index: number;
  private readonly chunks: readonly string[];
  private readonly options: ProviderOptions;
  private readonly hooks: ProviderHooks;

  constructor(
    ws: WebSocket,
    index: number,
    chunks: readonly string[],
    options: ProviderOptions,
    hooks: ProviderHooks,
  ) {
    this.ws = ws;
    this.index = index;
    this.chunks = chunks;
    this.options = options;
    this.hooks = hooks;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onText(data.toString());
    });
    ws.on('error', () => undefined);
    this.send({ type: 'session.created', session: { id: `sess_${index}` } });
  }

  drop(): void {
    this.ws.terminate();
  }

  private send(event: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: `evt_${++this.counter}`, ...event }));
  }

  private onText(text: string): void {
    const audio = appendAudio(text);
    if (audio) return this.onAudio(audio);
    let event: { type?: unknown; item?: { type?: unknown; output?: unknown } };
    try {
      event = JSON.parse(text) as typeof event;
    } catch {
      return;
    }
    if (event.type === 'session.update') this.send({ type: 'session.updated', session: {} });
    else if (event.type === 'response.create') this.onResponseCreate();
    else if (event.type === 'conversation.item.create' && event.item?.type === 'function_call_output') {
      this.hooks.toolOutput(this.index, typeof event.item.output === 'string' && !event.item.output.startsWith('{"ok":false'));
    }
  }

  private onResponseCreate(): void {
    this.speak();
    if (!this.greeted) {
      this.greeted = true;
      if (this.options.dropSession?.(this.index + 1)) setTimeout(() => this.drop(), 200);
    }
  }

  private onAudio(pcm: Buffer): void {
    if (isAudible(pcm)) {
      this.quietAppends = 0;
      if (!this.speaking) {
        this.speaking = true;
        this.hooks.callerOnset(this.index, performance.now());
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: `item_in_${++this.counter}` });
      }
      return;
    }
    if (!this.speaking || ++this.quietAppends < QUIET_APPENDS_TO_END_TURN) return;
    this.speaking = false;
    this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 0 });
    this.turns++;
    if (this.options.script) return this.nextScriptStep(this.options.script(this.index));
    if (this.options.tool && this.turns % 2 === 1) this.callTool(this.options.tool);
    else this.speak();
  }

  private nextScriptStep(script: readonly { name: string; args: unknown }[]): void {
    const step = script[this.scriptStep++];
    if (step) return this.callTool(step);
    this.speak();
    if (this.scriptStep === script.length + 1) this.hooks.scriptDone?.(this.index);
  }

  /** One response carrying one agent utterance (the audio arrives faster than real time, as it does from the real service). */
  private speak(): void {
    const responseId = `resp_${++this.counter}`;
    const itemId = `item_${++this.counter}`;
    this.send({ type: 'response.created', response: { id: responseId, status: 'in_progress' } });
    this.send({ type: 'response.output_item.added', response_id: responseId, item: { id: itemId, type: 'message', role: 'assistant' } });
    for (const delta of this.chunks) this.send({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, content_index: 0, delta });
    this.send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, content_index: 0 });
    this.send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, transcript: 'One moment, let me help you with that.' });
    this.send({ type: 'response.output_item.done', response_id: responseId, item: { id: itemId, type: 'message', role: 'assistant' } });
    this.send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', usage: DEFAULT_USAGE } });
  }

  private callTool(tool: { name: string; args: unknown }): void {
    const responseId = `resp_${++this.counter}`;
    const itemId = `item_${++this.counter}`;
    const callId = `call_${this.index}_${++this.counter}`;
    const args = JSON.stringify(tool.args);
    this.send({ type: 'response.created', response: { id: responseId, status: 'in_progress' } });
    this.send({ type: 'response.output_item.added', response_id: responseId, item: { id: itemId, type: 'function_call', call_id: callId, name: tool.name, arguments: '' } });
    this.send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: itemId, call_id: callId, name: tool.name, arguments: args });
    this.send({ type: 'response.output_item.done', response_id: responseId, item: { id: itemId, type: 'function_call', call_id: callId, name: tool.name, arguments: args } });
    this.send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', usage: DEFAULT_USAGE } });
  }
}

/** The stand-in server: sessions in arrival order. */
export class LoadProvider {
  readonly sessions: ProviderSession[] = [];
  private readonly arrivals: ((s: ProviderSession) => void)[] = [];
  private taken = 0;

  private readonly server: WebSocketServer;
  readonly port: number;

  private constructor(
    server: WebSocketServer,
    port: number,
  ) {
    this.server = server;
    this.port = port;
  }

  /** Starts on an ephemeral loopback port. */
  static async start(options: ProviderOptions, hooks: ProviderHooks): Promise<LoadProvider> {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const provider = new LoadProvider(server, (server.address() as AddressInfo).port);
    const pcm = tone(options.utteranceMs, OUTPUT_RATE_HZ, 220);
    const chunks: string[] = [];
    for (let i = 0; i < pcm.length; i += DELTA_BYTES) chunks.push(pcm.subarray(i, i + DELTA_BYTES).toString('base64'));
    server.on('connection', (ws) => {
      const session = new ProviderSession(ws, provider.sessions.length, chunks, options, hooks);
      provider.sessions.push(session);
      provider.arrivals.shift()?.(session);
    });
    return provider;
  }

  /** ws://127.0.0.1:<port>/v1: the MIVAS_OPENAI_BASE_URL to give the server. */
  baseUrl(): string {
    return `ws://127.0.0.1:${this.port}/v1`;
  }

  /** The next session not yet taken (resolves when it connects). */
  nextSession(): Promise<ProviderSession> {
    const ready = this.sessions[this.taken++];
    return ready ? Promise.resolve(ready) : new Promise((resolve) => this.arrivals.push(resolve));
  }

  /** Closes every session and the server. */
  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
