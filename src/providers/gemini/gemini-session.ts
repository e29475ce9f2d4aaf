import { GoogleGenAI, type FunctionCall as GeminiFunctionCall, type LiveConnectConfig, type LiveServerMessage, type Session } from '@google/genai';
import { handoffCueText, OPENING_CUE } from '../cues.ts';
import { connectForCall } from '../harness-kit.ts';
import type { AgentSetup } from '../model-session.ts';
import { OwnTurnsSession } from '../own-turns-session.ts';
import { SpokenTurns } from '../spoken-turns.ts';
import type { SeedTurn } from '../stream-history.ts';
import { GEMINI_INPUT_MIME, GEMINI_INPUT_RATE_HZ, GEMINI_OUTPUT_RATE_HZ, liveConfig, usageFromGemini } from './wire.ts';

/** How long opening a stream (upgrade and setupComplete) may take. */
const OPEN_TIMEOUT_MS = 15_000;

/** The realtime text that makes the entry agent speak first (the Live API waits for input otherwise): the shared opening cue. */
export const GEMINI_OPENING_CUE = OPENING_CUE;

/** What the Gemini harness is configured with. */
export interface GeminiOptions {
  readonly apiKey: string;
  /** The SDK's `httpOptions.baseUrl` (http(s)://host; the SDK dials ws(s)://host/ws/...). */
  readonly baseUrl: string;
  readonly model: string;
  readonly voice: string;
  readonly silenceMs: number;
}

/** The Developer API version of the Live method (`…generativelanguage.v1beta.GenerativeService.BidiGenerateContent`). */
export const GEMINI_API_VERSION = 'v1beta';

/** Hides the API key wherever an error message might carry the URL. */
function redact(message: string): string {
  return message.replace(/key=[^&\s]+/g, 'key=[redacted]');
}

/** One Live API session through the SDK (`ai.live.connect`): one specialist's stream. */
class LiveStream {
  readonly ready: Promise<void>;
  handle: string | null = null;
  closedByUs = false;
  private session: Session | null = null;
  private opened = false;

  private readonly onMessage: (stream: LiveStream, message: LiveServerMessage) => void;
  private readonly onLost: (stream: LiveStream, why: string) => void;

  constructor(
    ai: GoogleGenAI,
    model: string,
    config: LiveConnectConfig,
    onMessage: (stream: LiveStream, message: LiveServerMessage) => void,
    onLost: (stream: LiveStream, why: string) => void,
  ) {
    this.onMessage = onMessage;
    this.onLost = onLost;
    this.ready = this.open(ai, model, config);
    // A stream that never opens is reported by whoever awaits `ready`.
    this.ready.catch(() => undefined);
  }

  /** Opens the session; the SDK resolves once `setupComplete` came back. Bounded by OPEN_TIMEOUT_MS. */
  private async open(ai: GoogleGenAI, model: string, config: LiveConnectConfig): Promise<void> {
    const connecting = ai.live.connect({
      model,
      config,
      callbacks: {
        onmessage: (m) => this.onMessage(this, m),
        onclose: (e) => this.onClose(`the Live API closed the stream (${e.code}${e.reason ? ` ${e.reason}` : ''})`),
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no setupComplete in time')), OPEN_TIMEOUT_MS)));
    try {
      this.session = await Promise.race([connecting, deadline]);
    } catch (err) {
      // A session that opens after the deadline is closed at once.
      void connecting.then((late) => late.close(), () => undefined);
      throw new Error(redact(err instanceof Error ? err.message : String(err)), { cause: err });
    } finally {
      clearTimeout(timer);
    }
    this.opened = true;
    if (this.closedByUs) this.session.close();
  }

  private onClose(why: string): void {
    if (this.opened && !this.closedByUs) this.onLost(this, why);
  }

  /** Runs one send on the open session; a socket that is already gone is reported by its close. */
  private use(send: (session: Session) => void): void {
    if (!this.session || this.closedByUs) return;
    try {
      send(this.session);
    } catch {
      /* the close callback reports a lost stream */
    }
  }

  audio(pcm: Buffer): void {
    this.use((s) => s.sendRealtimeInput({ audio: { data: pcm.toString('base64'), mimeType: GEMINI_INPUT_MIME } }));
  }

  text(text: string): void {
    this.use((s) => s.sendRealtimeInput({ text }));
  }

  toolResponse(functionResponses: { id: string; name: string; response: Record<string, unknown> }[]): void {
    this.use((s) => s.sendToolResponse({ functionResponses }));
  }

  close(): void {
    if (this.closedByUs) return;
    this.closedByUs = true;
    this.session?.close();
  }
}

/**
 * Gemini Live (architecture.md §19, a new stream per specialist): one Live API session per agent, opened through
 * Google's SDK (`ai.live.connect`). Instructions and tools are fixed per session, so a handoff
 * opens the next agent's stream at once with the conversation so far (tool calls and results
 * included, audio never replayed) as a second part of its instructions, then sends a short
 * realtime text cue so it speaks; the old stream is closed without answering the handoff call and
 * takes no caller audio after it. Functions are BLOCKING (the model waits for each result). A
 * `toolCallCancellation` is recorded and its calls are not answered. A `goAway` or a dropped
 * stream resumes the session by its resumption handle; a stream that cannot be opened at a
 * handoff ends the call (`handoff_stream_lost`).
 */
export class GeminiLiveSession extends OwnTurnsSession<GeminiOptions> {
  readonly provider = 'google';
  readonly inputRateHz = GEMINI_INPUT_RATE_HZ;
  readonly outputRateHz = GEMINI_OUTPUT_RATE_HZ;
  private stream: LiveStream | null = null;
  private readonly turns = new SpokenTurns(this.events, 'gemini', GEMINI_OUTPUT_RATE_HZ);
  /** Numbers the ids made up for calls that came without one. */
  private madeUpIds = 0;
  private isReady = false;
  /** Tool outputs to send back in one toolResponse, and the calls still unanswered (by call id). */
  private readonly batch: { id: string; name: string; response: Record<string, unknown> }[] = [];
  private readonly unanswered = new Map<string, { id: string | null; name: string }>();
  /** Every call of the session by the model's id, for naming cancelled ones. */
  private readonly calls = new Map<string, string>();
  /** A handoff in progress: the next agent's stream is opening; the cue waits for it. */
  private handoff: { readonly from: string; readonly to: AgentSetup; cueWanted: boolean } | null = null;

  private readonly ai: GoogleGenAI;

  constructor(options: GeminiOptions) {
    super(options);
    this.ai = new GoogleGenAI({ apiKey: options.apiKey, httpOptions: { baseUrl: options.baseUrl, apiVersion: GEMINI_API_VERSION } });
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    await connectForCall(this, signal, () => {
      this.agent = agent;
      this.stream = this.open(agent, null, []);
      return this.stream.ready;
    });
    if (this.closed) return;
    this.isReady = true;
    this.events.emit('ready');
  }

  sendAudio(pcm: Buffer): void {
    // From a transfer call on, no stream takes audio: the old one is done and the new one is opening.
    if (this.handoff || pcm.length === 0) return;
    this.stream?.audio(pcm);
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
    this.turns.history.toolResult(callId, output);
    // The old specialist's stream is never told about the handoff: the next one is seeded instead.
    if (!this.handoff) this.answer(call, output);
    if (this.unanswered.size === 0) this.flushToolResponses();
  }

  requestResponse(): void {
    if (this.closed || this.turns.current) return;
    if (this.handoff) {
      this.handoff.cueWanted = true;
      return;
    }
    if (this.turns.continuesAlone) return;
    // The greeting (and its retries): the model only speaks when given input.
    if (!this.turns.spokeOnce) this.stream?.text(GEMINI_OPENING_CUE);
  }

  /** The Live API has no cancel: audio of the interrupted turn that still arrives is dropped. */
  cancelResponse(): void {
    this.turns.cut();
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.turns.history.truncate(itemId, audioEndMs);
  }

  protected release(): void {
    this.stream?.close();
    this.stream = null;
  }

  private open(agent: AgentSetup, resumeHandle: string | null, seed: readonly SeedTurn[]): LiveStream {
    const config = liveConfig(agent, { voice: this.options.voice, silenceMs: this.options.silenceMs, resumeHandle, seed });
    return new LiveStream(
      this.ai,
      this.options.model,
      config,
      (s, m) => this.onMessage(s, m),
      (s, why) => this.onLost(s, why),
    );
  }

  /**
   * Opens the next specialist's stream with the conversation so far and cues it. The old one
   * takes no audio from the transfer call on (see sendAudio) and closes once the new one is up,
   * so the rest of its transfer turn still plays.
   */
  private async switchStream(agent: AgentSetup): Promise<void> {
    // The turn driver answers the handoff call right after applyAgent: the seed waits for that result.
    await Promise.resolve();
    if (this.closed) return;
    const old = this.stream;
    const next = this.open(agent, null, this.turns.history.seedTurns());
    this.stream = next;
    if (!(await this.handedOver(next, old, agent.name)) || this.stream !== next) return;
    const handoff = this.handoff;
    this.handoff = null;
    this.turns.continuesAlone = false;
    if (handoff?.cueWanted) next.text(handoffCueText(handoff.from, agent.name));
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
    const next = this.open(agent, handle, []);
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

  private onMessage(stream: LiveStream, m: LiveServerMessage): void {
    if (this.closed) return;
    if (m.sessionResumptionUpdate?.resumable && m.sessionResumptionUpdate.newHandle) stream.handle = m.sessionResumptionUpdate.newHandle;
    if (stream !== this.stream) return;
    if (m.goAway && stream.handle) {
      void this.resume(stream.handle, `goAway (${m.goAway.timeLeft ?? 'soon'})`);
      return;
    }
    if (m.usageMetadata) this.turns.addUsage(usageFromGemini(m.usageMetadata));
    const content = m.serverContent;
    if (content?.inputTranscription?.text) this.turns.callerText(content.inputTranscription.text);
    if (content?.interrupted) this.onInterrupted();
    for (const part of content?.modelTurn?.parts ?? []) {
      if (part.inlineData?.data) this.turns.audio(Buffer.from(part.inlineData.data, 'base64'));
    }
    if (content?.outputTranscription?.text) this.turns.agentText(content.outputTranscription.text);
    if (m.toolCall?.functionCalls?.length) this.onToolCall(m.toolCall.functionCalls);
    if (m.toolCallCancellation?.ids?.length) this.onToolCallCancellation(m.toolCallCancellation.ids);
    if (content?.turnComplete) this.turns.end();
  }

  /** The server heard the caller over the model: barge-in. */
  private onInterrupted(): void {
    this.turns.cut();
    this.events.emit('callerSpeechStarted');
  }

  private onToolCall(calls: readonly GeminiFunctionCall[]): void {
    this.turns.begin();
    const agent = this.agent?.name ?? '';
    const made: { callId: string; name: string; arguments: string }[] = [];
    for (const fc of calls) {
      if (!fc.name) continue;
      // Ids have been seen missing: one is made up for the call's record.
      const callId = fc.id ?? `gemini_call_${++this.madeUpIds}`;
      const args = JSON.stringify(fc.args ?? {});
      this.unanswered.set(callId, { id: fc.id ?? null, name: fc.name });
      if (fc.id) this.calls.set(fc.id, fc.name);
      this.turns.history.toolCall(callId, fc.name, args, agent);
      made.push({ callId, name: fc.name, arguments: args });
    }
    // BLOCKING calls: the model waits for the results and answers them by itself (no cue); the
    // calls belong to this response, which ends with them as the turn driver sees it.
    this.turns.continuesAlone = true;
    for (const call of made) this.events.emit('functionCall', call);
    this.turns.end();
  }

  /**
   * The model withdrew calls (it happens when the caller cuts into a turn). The engine runs a
   * tool when it is called, so a withdrawn call has usually run already and cannot be undone:
   * it is recorded (a non-fatal `tool_call_cancelled`), and whatever of it is still unanswered is
   * never answered.
   */
  private onToolCallCancellation(ids: readonly string[]): void {
    const named = ids.map((id) => `${this.calls.get(id) ?? 'unknown'} (${id})`);
    for (const id of ids) {
      this.unanswered.delete(id);
      const queued = this.batch.findIndex((r) => r.id === id);
      if (queued >= 0) this.batch.splice(queued, 1);
    }
    this.events.emit('failure', { code: 'tool_call_cancelled', message: `the model cancelled ${named.join(', ')}; a call already executed is not undone`, fatal: false });
    if (this.unanswered.size === 0) this.flushToolResponses();
  }

  /** Queues a call's result; the SDK sends a response only by its call's id (FUNCTION_RESPONSE_REQUIRES_ID), so a call without one is recorded as unanswerable. */
  private answer(call: { id: string | null; name: string }, output: string): void {
    if (call.id) this.batch.push({ id: call.id, name: call.name, response: asObject(output) });
    else this.events.emit('failure', { code: 'tool_call_without_id', message: `the model called ${call.name} without an id: its result cannot be sent back`, fatal: false });
  }

  /** All results of a batch in one toolResponse (the safe pattern). */
  private flushToolResponses(): void {
    if (this.batch.length === 0) return;
    this.stream?.toolResponse(this.batch.splice(0));
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

