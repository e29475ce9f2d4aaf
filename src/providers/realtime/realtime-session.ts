import WebSocket from 'ws';
import { TypedEmitter } from '../../core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents, RateLimitReading } from '../model-session.ts';
import type { OutboundEvent, RealtimeDialect } from './dialect.ts';
import { parseServerEvent, type RateLimit, type ServerEvent } from './server-events.ts';
import { usageFromProvider } from './usage.ts';

/** How long the WebSocket handshake may take before the call ends with provider_error. */
const HANDSHAKE_TIMEOUT_MS = 15_000;

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

  constructor(private readonly dialect: RealtimeDialect) {
    this.provider = dialect.provider;
    this.model = dialect.model;
    this.inputRateHz = dialect.inputRateHz;
    this.outputRateHz = dialect.outputRateHz;
  }

  /** Opens the socket and sends the entry agent's session.update as soon as it opens (wire.md §2.2). */
  connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new Error('the call ended before the provider connected'));
    signal.addEventListener('abort', () => void this.close(), { once: true });
    return new Promise((resolve, reject) => {
      const fail = (err: Error): void => {
        if (this.isOpen || this.isClosing) return;
        this.isClosing = true;
        // Recorded as a fatal failure so the timeline shows why the call ended (provider_error).
        this.events.emit('failure', { code: 'connect_failed', message: err.message, fatal: true });
        reject(err);
      };
      const ws = new WebSocket(this.dialect.url, { headers: { ...this.dialect.headers }, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
      this.socket = ws;
      ws.once('open', () => {
        this.isOpen = true;
        this.send(this.dialect.sessionUpdate(agent));
        resolve();
      });
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        fail(new Error(`the provider refused the upgrade: HTTP ${res.statusCode ?? 0}`));
        ws.terminate();
      });
      ws.on('error', (err) => {
        // Before open this is a failed connect; after it, 'close' follows and reports the loss.
        fail(err);
      });
      ws.on('message', (data, isBinary) => {
        if (!isBinary) this.onText(data.toString());
      });
      ws.on('close', (code, reason) => this.onClose(code, reason.toString()));
    });
  }

  sendAudio(pcm: Buffer): void {
    if (pcm.length > 0) this.send({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') });
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

  /** Tells the model what the caller heard of an item (wire.md §2.7). */
  truncate(itemId: string, audioEndMs: number): void {
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
    const ws = this.socket;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    // A failed send means the socket is going away; its close event reports the loss.
    ws.send(JSON.stringify(event));
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
      case 'error':
        // Recorded, never fatal by itself: "active response" errors during nudges are expected (§1.6).
        return this.events.emit('failure', { code: event.error.code ?? event.error.type ?? 'error', message: event.error.message, fatal: false });
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
