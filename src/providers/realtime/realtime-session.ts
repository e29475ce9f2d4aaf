import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { TypedEmitter } from '../../core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents, RateLimitReading } from '../model-session.ts';
import { bindToCall } from '../harness-kit.ts';
import type { OutboundEvent, RealtimeDialect } from './dialect.ts';
import { parseServerEvent, type RateLimit, type ServerEvent } from './server-events.ts';
import { usageFromProvider } from './usage.ts';

/** How long the WebSocket handshake may take before the call ends with provider_error. */
const HANDSHAKE_TIMEOUT_MS = 15_000;
/**
 * Largest provider message taken (ws closes 1009 past it, and the call ends provider_error): far
 * above any real event (an audio delta, a session echo with every tool), far below ws's 100 MiB
 * default, since a rollout's endpoint is named by a request (docs/reliability.md).
 */
export const MAX_PROVIDER_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How much of a refused upgrade's body is kept, and how long reading it may take. */
const REFUSAL_BODY_CHARS = 500;
const REFUSAL_READ_MS = 2_000;

/** Why a provider connection could not be opened: `provider_auth_rejected` (401/403), `upgrade_refused` (other statuses), `connect_failed` (network), `auth_unavailable` (no token). */
export type ConnectFailureCode = 'provider_auth_rejected' | 'upgrade_refused' | 'connect_failed' | 'auth_unavailable';

/** A failed connect: the code, and for a refused upgrade the HTTP status and the start of the body (credentials blanked). */
export class ProviderConnectError extends Error {
  readonly code: ConnectFailureCode;
  readonly status: number | null;
  readonly body: string | null;

  constructor(
    code: ConnectFailureCode,
    message: string,
    status: number | null,
    body: string | null,
  ) {
    super(message);
    this.code = code;
    this.status = status;
    this.body = body;
    this.name = 'ProviderConnectError';
  }
}

/** The credential values among upgrade headers: every header value, and the token of a bearer one. */
function secretsOf(headers: Readonly<Record<string, string>>): string[] {
  return Object.values(headers)
    .flatMap((v) => [v, v.replace(/^Bearer\s+/i, '')])
    .filter((v) => v.length >= 6);
}

/** The text with every secret replaced, whitespace collapsed and cut to a readable length. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > REFUSAL_BODY_CHARS ? `${out.slice(0, REFUSAL_BODY_CHARS)}...` : out;
}

/** Reads a refused upgrade's body, up to a few KB and a short wait; never rejects. */
function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, REFUSAL_READ_MS);
    res.on('data', (chunk: Buffer) => {
      if (size < 4 * REFUSAL_BODY_CHARS) chunks.push(chunk);
      size += chunk.length;
    });
    res.once('end', done);
    res.once('error', done);
    res.once('close', done);
  });
}

function refusal(status: number, statusText: string, body: string): ProviderConnectError {
  const code = status === 401 || status === 403 ? 'provider_auth_rejected' : 'upgrade_refused';
  const message = `the provider refused the upgrade: HTTP ${status}${statusText ? ` ${statusText}` : ''}${body ? `: ${body}` : ' (empty body)'}`;
  return new ProviderConnectError(code, message, status, body);
}

/** Events about the session and the caller, as opposed to a response's output. */
type SessionEventType = 'session.created' | 'session.updated' | 'input_audio_buffer.speech_started' | 'input_audio_buffer.speech_stopped' | 'error' | 'rate_limits.updated';

/** Events that carry a function call: both report it, and it is dispatched once (wire.md §2.5). */
type CallEvent = Extract<ServerEvent, { type: 'response.function_call_arguments.done' | 'response.output_item.done' }>;

/**
 * One realtime model session over plain `ws` (wire.md §2.1): GA events, and the variants' session
 * shapes through a dialect. It carries audio and events and holds no policy: the call's turn
 * driver decides when to request responses, answers calls and applies handoffs.
 */
export class RealtimeSession implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  readonly provider: string;
  readonly model: string;
  readonly inputRateHz: number;
  readonly outputRateHz: number;
  private socket: WebSocket | null = null;
  private isOpen = false;
  private isReady = false;
  private isClosing = false;
  private isSeeded = false;
  private isResponseActive = false;
  private readonly dispatched = new Set<string>();
  /** Function names by call id, from output_item.added, for variants whose arguments.done omits the name. */
  private readonly callNames = new Map<string, string>();

  private readonly dialect: RealtimeDialect;

  constructor(dialect: RealtimeDialect) {
    this.dialect = dialect;
    this.provider = dialect.provider;
    this.model = dialect.model;
    this.inputRateHz = dialect.inputRateHz;
    this.outputRateHz = dialect.outputRateHz;
  }

  /**
   * Opens the socket and sends the entry agent's session.update as soon as it opens (wire.md §2.2).
   * A refused upgrade rejects with a ProviderConnectError carrying the HTTP status and the start of
   * the provider's answer, with the credentials blanked out.
   */
  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    bindToCall(signal, () => this.close());
    let headers: Readonly<Record<string, string>>;
    try {
      headers = await this.dialect.authHeaders();
    } catch (err) {
      const message = `no credentials for the provider: ${err instanceof Error ? err.message : String(err)}`;
      this.isClosing = true;
      this.events.emit('failure', { code: 'auth_unavailable', message, fatal: true });
      throw new ProviderConnectError('auth_unavailable', message, null, null);
    }
    if (this.isClosing) throw new Error('the call ended before the provider connected');
    const secrets = secretsOf(headers);
    await new Promise<void>((resolve, reject) => {
      const fail = (err: ProviderConnectError): void => {
        if (this.isOpen || this.isClosing) return;
        this.isClosing = true;
        // Recorded as a fatal failure so the timeline shows why the call ended (provider_error).
        this.events.emit('failure', { code: err.code, message: err.message, fatal: true });
        reject(err);
      };
      const ws = new WebSocket(this.dialect.url, { headers: { ...headers }, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS, maxPayload: MAX_PROVIDER_MESSAGE_BYTES });
      this.socket = ws;
      ws.once('open', () => {
        this.isOpen = true;
        this.send(this.dialect.sessionUpdate(agent));
        resolve();
      });
      ws.once('unexpected-response', (_req, res) => {
        void readBody(res).then((raw) => {
          fail(refusal(res.statusCode ?? 0, res.statusMessage ?? '', redact(raw, secrets)));
          ws.terminate();
        });
      });
      ws.on('error', (err) => {
        // Before open this is a failed connect; after it, 'close' follows and reports the loss.
        fail(new ProviderConnectError('connect_failed', redact(err.message, secrets), null, null));
      });
      ws.on('message', (data, isBinary) => {
        if (!isBinary) this.onText(data.toString());
      });
      ws.on('close', (code, reason) => this.onClose(code, reason.toString()));
    });
  }

  /**
   * Adds a user text message to the conversation (the capability preflight's request); calls never
   * use it, since the caller speaks.
   */
  sendUserText(text: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  }

  sendAudio(pcm: Buffer): void {
    // Sent 50 times a second per call, so its JSON is written out directly: the same text
    // JSON.stringify gives (base64 needs no escaping) without walking an object and copying the audio again.
    if (pcm.length > 0) this.sendText(`{"type":"input_audio_buffer.append","audio":"${pcm.toString('base64')}"}`);
  }

  applyAgent(agent: AgentSetup): void {
    this.send(this.dialect.agentUpdate(agent));
  }

  sendToolOutput(callId: string, output: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
  }

  /** Sends a response request, preceded once by the dialect's seeded user item when it has one. */
  requestResponse(): void {
    const seed = this.dialect.seedText;
    if (seed !== null && !this.isSeeded && this.isOpen) {
      this.isSeeded = true;
      this.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: seed }] } });
      this.events.emit('itemInjected', 'user', seed);
    }
    this.send(this.dialect.responseCreate());
  }

  /** Sends `response.cancel` while a response is in progress (never when none is: the server would answer with an error). */
  cancelResponse(): void {
    if (this.isResponseActive) this.send({ type: 'response.cancel' });
  }

  /** Tells the model what the caller heard of an item (wire.md §2.7); not sent where the provider has no truncate. */
  truncate(itemId: string, audioEndMs: number): void {
    if (!this.dialect.truncates) return;
    this.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: Math.max(0, Math.floor(audioEndMs)) });
  }

  callerSpeech(_kind: 'started' | 'completed'): void {
    /* the provider's own VAD takes turns; CHIRP speech events also fire on echo (wire.md §1.4) */
  }

  /** Cancels a live response and closes the socket normally; a close we started is not a failure. */
  async close(): Promise<void> {
    if (this.isClosing) return;
    this.isClosing = true;
    const ws = this.socket;
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) {
      if (this.isResponseActive) this.cancelResponse();
      ws.close(1000, 'call ended');
    } else if (ws.readyState === WebSocket.CONNECTING) {
      ws.terminate();
    }
  }

  private send(event: OutboundEvent): void {
    this.sendText(JSON.stringify(event));
  }

  private sendText(text: string): void {
    const ws = this.socket;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    // A failed send means the socket is going away; its close event reports the loss.
    ws.send(text);
  }

  private onText(text: string): void {
    const parsed = parseServerEvent(text);
    if (parsed.kind === 'known') return this.handle(parsed.event);
    if (parsed.kind === 'invalid') this.events.emit('failure', { code: 'invalid_event', message: `${parsed.type ?? 'event'}: ${parsed.reason}`, fatal: false });
  }

  private handle(event: ServerEvent): void {
    switch (event.type) {
      case 'session.created':
      case 'session.updated':
      case 'input_audio_buffer.speech_started':
      case 'input_audio_buffer.speech_stopped':
      case 'error':
      case 'rate_limits.updated':
        return this.handleSessionEvent(event);
      default:
        return this.handleResponseEvent(event);
    }
  }

  private handleSessionEvent(event: Extract<ServerEvent, { type: SessionEventType }>): void {
    switch (event.type) {
      case 'session.created':
        return;
      case 'session.updated':
        // The first one means the session is configured; later ones confirm a handoff.
        if (this.isReady) return;
        this.isReady = true;
        return this.events.emit('ready');
      case 'input_audio_buffer.speech_started':
        return this.events.emit('callerSpeechStarted');
      case 'input_audio_buffer.speech_stopped':
        return this.events.emit('callerSpeechStopped');
      case 'error': {
        const code = event.error.code ?? event.error.type ?? 'error';
        // Before the session is ready the only event sent is the setup's session.update: an error
        // then refuses the setup, and a session with no instructions or tools cannot run the call.
        if (!this.isReady) return this.events.emit('failure', { code: 'session_refused', message: `the provider refused the session setup (${code}): ${event.error.message}`, fatal: true });
        // Recorded, never fatal by itself: "active response" errors during nudges are expected (§1.6).
        return this.events.emit('failure', { code, message: event.error.message, fatal: false });
      }
      case 'rate_limits.updated':
        // Reported for metrics only; the session takes no action on it (wire.md §2.5).
        return this.events.emit('rateLimits', remainingOf(event.rate_limits));
    }
  }

  private handleResponseEvent(event: Exclude<ServerEvent, { type: SessionEventType }>): void {
    switch (event.type) {
      case 'response.created':
        this.isResponseActive = true;
        return this.events.emit('responseStarted', event.response.id ?? null);
      case 'response.output_audio.delta':
        return this.events.emit('audio', event.item_id, Buffer.from(event.delta, 'base64'));
      case 'response.output_audio.done':
        return this.events.emit('audioDone', event.item_id);
      case 'response.output_audio_transcript.done':
        return this.events.emit('transcript', 'agent', event.transcript, event.item_id ?? null);
      case 'conversation.item.input_audio_transcription.completed':
        return this.events.emit('transcript', 'caller', event.transcript, event.item_id ?? null);
      case 'response.output_item.added':
        if ('call_id' in event.item && event.item.name) this.callNames.set(event.item.call_id, event.item.name);
        return;
      case 'response.function_call_arguments.done':
      case 'response.output_item.done':
        return this.onCallEvent(event);
      case 'response.done':
        this.isResponseActive = false;
        return this.events.emit('responseDone', {
          responseId: event.response.id ?? null,
          status: event.response.status,
          usage: event.response.usage ? usageFromProvider(event.response.usage) : null,
        });
    }
  }

  private onCallEvent(event: CallEvent): void {
    const call =
      event.type === 'response.function_call_arguments.done'
        ? { callId: event.call_id, name: event.name ?? this.callNames.get(event.call_id), arguments: event.arguments }
        : 'call_id' in event.item
          ? { callId: event.item.call_id, name: event.item.name, arguments: event.item.arguments }
          : null;
    if (!call?.name || this.dispatched.has(call.callId)) return;
    this.dispatched.add(call.callId);
    this.events.emit('functionCall', { callId: call.callId, name: call.name, arguments: call.arguments });
  }

  private onClose(code: number, reason: string): void {
    const wasOpen = this.isOpen;
    this.isOpen = false;
    this.socket = null;
    if (this.isClosing || !wasOpen) return;
    this.events.emit('failure', { code: 'provider_disconnected', message: `the provider closed the socket (${code}${reason ? ` ${reason}` : ''})`, fatal: true });
  }
}

/** The limits that report a remainder. */
function remainingOf(limits: readonly RateLimit[]): RateLimitReading[] {
  return limits.flatMap((l) => (l.remaining === undefined ? [] : [{ name: l.name, remaining: l.remaining }]));
}
