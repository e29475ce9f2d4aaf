import WebSocket from 'ws';
import { bytesToMs } from '../../audio/index.ts';
import { TypedEmitter } from '../../core/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents } from '../model-session.ts';
import { ResponseSlot, type OpenResponse } from '../response-slot.ts';
import { StreamHistory } from '../stream-history.ts';
import { GEMINI_INPUT_MIME, GEMINI_INPUT_RATE_HZ, GEMINI_OUTPUT_RATE_HZ, parseServerMessage, setupMessage, usageFromGemini, type ServerMessage } from './wire.ts';

/** How long opening a stream (upgrade and setupComplete) may take. */
const OPEN_TIMEOUT_MS = 15_000;

/** The realtime text that makes the entry agent speak first (the Live API waits for input otherwise). */
export const GEMINI_OPENING_CUE = '(The caller has just been connected. Open the call.)';
/** The realtime text that makes the next specialist speak once its stream is seeded. */
export function handoffCue(from: string, to: string): string {
  return `(The call has just been transferred from ${from} to you, ${to}. Continue the conversation with the caller now, without greeting again.)`;
}

/** What the Gemini harness is configured with. */
export interface GeminiOptions {
  /** The full BidiGenerateContent URL, key included. */
  readonly url: string;
  readonly apiKey: string;
  readonly model: string;
  readonly voice: string;
  readonly silenceMs: number;
}

/** One BidiGenerateContent WebSocket: one specialist's session with the model. */
class LiveStream {
  readonly ready: Promise<void>;
  handle: string | null = null;
  closedByUs = false;
  private readonly ws: WebSocket;

  private readonly onMessage: (stream: LiveStream, message: ServerMessage) => void;
  private readonly onLost: (stream: LiveStream, why: string) => void;

  constructor(
    url: string,
    first: Record<string, unknown>,
    onMessage: (stream: LiveStream, message: ServerMessage) => void,
    onLost: (stream: LiveStream, why: string) => void,
  ) {
    this.onMessage = onMessage;
    this.onLost = onLost;
    this.ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS });
    let settled = false;
    this.ready = new Promise((resolve, reject) => {
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(why));
      };
      const timer = setTimeout(() => fail('no setupComplete in time'), OPEN_TIMEOUT_MS);
      this.ws.once('open', () => this.send(first));
      this.ws.on('message', (data: Buffer) => {
        const message = parseServerMessage(data.toString('utf8'));
        if (!message) return;
        if (message.setupComplete && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve();
        }
        this.onMessage(this, message);
      });
      this.ws.once('unexpected-response', (_req, res) => {
        fail(`the Live API refused the upgrade: HTTP ${res.statusCode ?? 0}`);
        res.resume();
        this.ws.terminate();
      });
      this.ws.on('error', (err) => fail(err.message.replace(/key=[^&\s]+/g, 'key=[redacted]')));
      this.ws.on('close', (code, reason) => {
        const why = `the Live API closed the stream (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
        fail(why);
        if (!this.closedByUs) this.onLost(this, why);
      });
    });
    // A stream that never opens is reported by whoever awaits `ready`.
    this.ready.catch(() => undefined);
  }

  send(message: unknown): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  close(): void {
    this.closedByUs = true;
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000, 'done');
    else if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

/**
 * Gemini Live (architecture.md §19, a new stream per specialist): one BidiGenerateContent WebSocket per
 * agent. Instructions and tools are fixed per session, so a handoff opens the next agent's stream
 * at once, seeds it with the conversation so far as text (`clientContent`, tool calls and results
 * included, audio never replayed), then sends a short realtime text cue so it speaks; the old
 * stream is closed without answering the handoff call. Tool calls without an id get one. A
 * `goAway` or a dropped stream resumes the session by its resumption handle; a stream that
 * cannot be opened at a handoff ends the call (`handoff_stream_lost`).
 */
export class GeminiLiveSession implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  readonly provider = 'google';
  readonly model: string;
  readonly inputRateHz = GEMINI_INPUT_RATE_HZ;
  readonly outputRateHz = GEMINI_OUTPUT_RATE_HZ;
  private agent: AgentSetup | null = null;
  private stream: LiveStream | null = null;
  private readonly history = new StreamHistory();
  private readonly response = new ResponseSlot(this.events, 'gemini');
  private counter = 0;
  private closed = false;
  private isReady = false;
  private spokeOnce = false;
  /** Tool outputs to send back in one toolResponse, and the call ids still unanswered. */
  private readonly batch: { id: string | null; name: string; response: Record<string, unknown> }[] = [];
  private readonly unanswered = new Map<string, { id: string | null; name: string }>();
  /** The model continues by itself after a toolResponse: no cue is needed. */
  private continuesAlone = false;
  /** A handoff in progress: the next agent's stream is opening; the cue waits for its seed. */
  private handoff: { readonly from: string; readonly to: AgentSetup; cueWanted: boolean } | null = null;

  private readonly options: GeminiOptions;

  constructor(options: GeminiOptions) {
    this.options = options;
    this.model = options.model;
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw new Error('the call ended before the provider connected');
    signal.addEventListener('abort', () => void this.close(), { once: true });
    this.agent = agent;
    const stream = this.open(agent, null, false);
    this.stream = stream;
    try {
      await stream.ready;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.events.emit('failure', { code: 'connect_failed', message, fatal: true });
      throw err;
    }
    if (this.closed) return;
    this.isReady = true;
    this.events.emit('ready');
  }

  sendAudio(pcm: Buffer): void {
    // During a handoff no stream takes audio: the old one is done and the new one is being seeded.
    if (this.handoff || pcm.length === 0) return;
    this.stream?.send({ realtimeInput: { audio: { data: pcm.toString('base64'), mimeType: GEMINI_INPUT_MIME } } });
  }

  applyAgent(agent: AgentSetup): void {
    const from = this.agent?.name ?? 'the previous agent';
    this.agent = agent;
    this.handoff = { from, to: agent, cueWanted: false };
    void this.switchStream(agent);
  }

  sendToolOutput(callId: string, output: string): void {
    const call = this.unanswered.get(callId);
    if (!call) return;
    this.unanswered.delete(callId);
    this.history.toolResult(callId, output);
    // The old specialist's stream is never told about the handoff: the next one is seeded instead.
    if (!this.handoff) this.batch.push({ id: call.id, name: call.name, response: asObject(output) });
    if (this.unanswered.size === 0) this.flushToolResponses();
  }

  requestResponse(): void {
    if (this.closed || this.response.current) return;
    if (this.handoff) {
      this.handoff.cueWanted = true;
      return;
    }
    if (this.continuesAlone) return;
    // The greeting (and its retries): the model only speaks when given input.
    if (!this.spokeOnce) this.stream?.send({ realtimeInput: { text: GEMINI_OPENING_CUE } });
  }

  /** The Live API has no cancel: audio of the interrupted turn that still arrives is dropped. */
  cancelResponse(): void {
    this.response.cancel();
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.history.truncate(itemId, audioEndMs);
  }

  callerSpeech(): void {
    /* the Live API's automatic activity detection takes turns */
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stream?.close();
    this.stream = null;
  }

  private open(agent: AgentSetup, resumeHandle: string | null, seeded: boolean): LiveStream {
    const setup = setupMessage(agent, { model: this.options.model, voice: this.options.voice, silenceMs: this.options.silenceMs, resumeHandle, seeded });
    return new LiveStream(
      this.options.url,
      setup,
      (s, m) => this.onMessage(s, m),
      (s, why) => this.onLost(s, why),
    );
  }

  /** Opens the next specialist's stream, seeds it and cues it; the old one closes once the new one is up. */
  private async switchStream(agent: AgentSetup): Promise<void> {
    const old = this.stream;
    const next = this.open(agent, null, true);
    this.stream = next;
    try {
      await next.ready;
    } catch (err) {
      if (this.closed) return;
      const message = `the next specialist's stream (${agent.name}) could not be opened: ${err instanceof Error ? err.message : String(err)}`;
      this.events.emit('failure', { code: 'handoff_stream_lost', message, fatal: true });
      return;
    } finally {
      old?.close();
    }
    if (this.closed || this.stream !== next) return;
    const turns = this.history.seedTurns().map((t) => ({ role: t.role === 'user' ? 'user' : 'model', parts: [{ text: t.text }] }));
    if (turns.length) next.send({ clientContent: { turns, turnComplete: true } });
    const handoff = this.handoff;
    this.handoff = null;
    this.continuesAlone = false;
    if (handoff?.cueWanted) next.send({ realtimeInput: { text: handoffCue(handoff.from, agent.name) } });
  }

  private onLost(stream: LiveStream, why: string): void {
    if (this.closed || stream !== this.stream || !this.isReady) return;
    if (this.handoff) return; // reported by switchStream
    if (!stream.handle || !this.agent) {
      this.events.emit('failure', { code: 'provider_disconnected', message: why, fatal: true });
      return;
    }
    void this.resume(stream.handle, why);
  }

  /** Reopens the session by its resumption handle (after goAway or a dropped stream). */
  private async resume(handle: string, why: string): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    const old = this.stream;
    const next = this.open(agent, handle, false);
    next.handle = handle;
    this.stream = next;
    try {
      await next.ready;
    } catch (err) {
      if (!this.closed) this.events.emit('failure', { code: 'provider_disconnected', message: `${why}; resuming failed: ${err instanceof Error ? err.message : String(err)}`, fatal: true });
      return;
    } finally {
      if (old !== next) old?.close();
    }
  }

  private onMessage(stream: LiveStream, m: ServerMessage): void {
    if (this.closed) return;
    if (m.sessionResumptionUpdate?.resumable && m.sessionResumptionUpdate.newHandle) stream.handle = m.sessionResumptionUpdate.newHandle;
    if (stream !== this.stream) return;
    if (m.goAway && stream.handle) {
      void this.resume(stream.handle, `goAway (${m.goAway.timeLeft ?? 'soon'})`);
      return;
    }
    if (m.usageMetadata) this.response.addUsage(usageFromGemini(m.usageMetadata));
    const content = m.serverContent;
    if (content?.inputTranscription?.text) this.history.callerText(content.inputTranscription.text);
    if (content?.interrupted) this.onInterrupted();
    for (const part of content?.modelTurn?.parts ?? []) {
      if (!part.inlineData?.data) continue;
      const response = this.begin();
      if (response.cancelled) continue;
      const pcm = Buffer.from(part.inlineData.data, 'base64');
      response.spoke = true;
      this.spokeOnce = true;
      this.history.agentAudio(response.itemId, bytesToMs(pcm.length, GEMINI_OUTPUT_RATE_HZ));
      this.events.emit('audio', response.itemId, pcm);
    }
    if (content?.outputTranscription?.text) this.history.agentText(this.begin().itemId, content.outputTranscription.text);
    if (m.toolCall?.functionCalls.length) this.onToolCall(m.toolCall.functionCalls);
    if (content?.turnComplete) this.end(this.response.current?.cancelled ? 'cancelled' : 'completed');
  }

  /** The model's output began: open a response (closing the caller's transcript first). */
  private begin(): OpenResponse {
    if (this.response.current) return this.response.current;
    const said = this.history.closeCallerTurn();
    if (said) {
      this.events.emit('callerSpeechStopped');
      this.events.emit('transcript', 'caller', said, `caller_${this.counter + 1}`);
    }
    this.continuesAlone = false;
    return this.response.start(++this.counter);
  }

  private end(status: string): void {
    this.response.finish(status, (response) => {
      const text = this.history.agentTextOf(response.itemId);
      if (text) this.events.emit('transcript', 'agent', text, response.itemId);
    });
  }

  /** The server heard the caller over the model: barge-in. */
  private onInterrupted(): void {
    this.response.cancel();
    this.events.emit('callerSpeechStarted');
  }

  private onToolCall(calls: NonNullable<ServerMessage['toolCall']>['functionCalls']): void {
    const response = this.begin();
    const agent = this.agent?.name ?? '';
    const made: { callId: string; name: string; arguments: string }[] = [];
    for (const fc of calls) {
      if (!fc.name) continue;
      // Ids have been seen null: one is made up, and the response then goes back by name only.
      const callId = fc.id ?? `gemini_call_${++this.counter}`;
      const args = JSON.stringify(fc.args ?? {});
      this.unanswered.set(callId, { id: fc.id ?? null, name: fc.name });
      this.history.toolCall(callId, fc.name, args, agent);
      made.push({ callId, name: fc.name, arguments: args });
    }
    // The model answers its tool results by itself (no cue); the calls belong to this response,
    // which ends with them as the turn driver sees it, since the model now waits for the results.
    this.continuesAlone = true;
    for (const call of made) this.events.emit('functionCall', call);
    this.end(response.cancelled ? 'cancelled' : 'completed');
  }

  /** All results of a batch in one toolResponse (the safe pattern). */
  private flushToolResponses(): void {
    if (this.batch.length === 0) return;
    const functionResponses = this.batch.splice(0).map((r) => ({ ...(r.id ? { id: r.id } : {}), name: r.name, response: r.response }));
    this.stream?.send({ toolResponse: { functionResponses } });
  }
}

/** A tool output as a FunctionResponse `response` object (outputs are JSON objects; anything else is wrapped). */
function asObject(output: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(output);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { output: parsed };
  } catch {
    return { output };
  }
}

