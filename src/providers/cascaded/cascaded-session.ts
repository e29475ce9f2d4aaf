import type { CascadedSettings } from '../../config.ts';
import { bytesToMs, CHIRP_RATE_HZ } from '../../audio/index.ts';
import { TypedEmitter, type Clock } from '../../core/index.ts';
import type { Usage } from '../../snapshot/index.ts';
import type { AgentSetup, ModelSession, ModelSessionEvents, TurnLatency } from '../model-session.ts';
import { OPENING_CUE } from '../cues.ts';
import { bindToCall } from '../harness-kit.ts';
import { EndpointError, streamChat, streamSpeech, transcribe, type ChatMessage, type ChatToolCall, type ChatUsage, type EndpointTarget } from './endpoints.ts';
import { EnergyVad } from './vad.ts';

/** The user message put into an empty conversation so the first completion has something to answer (recorded as item.injected). */
export const CASCADE_OPENING_CUE = OPENING_CUE;

/** Caller audio kept from before a turn opens, so its first syllable reaches the transcriber. */
const PREROLL_MS = 300;

/** What the session needs beyond its settings: the call's clock (latency is measured on it). */
export interface CascadedDeps {
  readonly clock: Clock;
}

/** The endpoints resolved at boot (a missing base URL or model is a ConfigError before this). */
export interface CascadedTargets {
  readonly stt: EndpointTarget & { readonly stream: boolean };
  readonly llm: EndpointTarget;
  readonly tts: EndpointTarget & { readonly voice: string; readonly rateHz: number };
}

/** One sentence of an agent item: its text and where its audio lies in the item, in ms. */
interface SpokenSegment {
  readonly text: string;
  readonly startMs: number;
  endMs: number;
}

/** What was said in one agent item, and what of it the caller heard. */
interface SpokenItem {
  readonly segments: SpokenSegment[];
  /** The assistant message of this item in the history (null until the completion ended). */
  message: Extract<ChatMessage, { role: 'assistant' }> | null;
  /** Set by truncate(): how much of the item the caller heard. */
  playedMs: number | null;
}

/** A caller turn's timings while its first agent audio is awaited. */
interface PendingLatency {
  readonly endAtMs: number;
  readonly endpointMs: number;
  readonly sttMs: number;
  llmFirstTokenMs: number | null;
  ttsFirstByteMs: number | null;
}

/** One response in progress. */
interface Run {
  readonly id: string;
  readonly abort: AbortController;
  cancelled: boolean;
  latency: PendingLatency | null;
}

/** One sentence's speech request: its audio as it arrives, read ahead of playback. */
interface SpeechJob {
  readonly text: string;
  readonly requestedAtMs: number;
  readonly chunks: Buffer[];
  firstByteAtMs: number | null;
  done: boolean;
  error: unknown;
  wake: (() => void) | null;
}

/**
 * The cascaded baseline (architecture.md §19, native graph): the caller's audio is cut into turns by an
 * energy VAD with endpointing (and, unless turned off, the caller's CHIRP speech events), each turn
 * is transcribed by `/audio/transcriptions`, answered by a streamed `/chat/completions` with the
 * active agent's tools, and spoken sentence by sentence by `/audio/speech` as PCM. A handoff swaps
 * instructions and tools while the chat history carries over (or resets, by setting). On barge-in
 * the completion and speech requests are aborted and the history keeps only the text the caller
 * heard. Each caller turn's latency split is reported as a `turnLatency` event.
 */
export class CascadedSession implements ModelSession {
  readonly events = new TypedEmitter<ModelSessionEvents>();
  readonly provider = 'cascaded';
  readonly model: string;
  readonly inputRateHz = CHIRP_RATE_HZ;
  readonly outputRateHz: number;
  private agent: AgentSetup | null = null;
  private readonly history: ChatMessage[] = [];
  private readonly vad: EnergyVad;
  private preroll: Buffer[] = [];
  private prerollBytes = 0;
  private segment: Buffer[] | null = null;
  private current: Run | null = null;
  private respondAfterRun = false;
  private readonly items = new Map<string, SpokenItem>();
  private toolSteps = 0;
  private latency: PendingLatency | null = null;
  private counter = 0;
  private closed = false;
  private readonly abortAll = new AbortController();
  /** Caller turns are transcribed one after another, in order. */
  private transcribing: Promise<void> = Promise.resolve();

  private readonly targets: CascadedTargets;
  private readonly settings: Pick<CascadedSettings, 'vad' | 'chirpTurns' | 'resetHistory' | 'maxToolSteps'>;
  private readonly deps: CascadedDeps;

  constructor(
    targets: CascadedTargets,
    settings: Pick<CascadedSettings, 'vad' | 'chirpTurns' | 'resetHistory' | 'maxToolSteps'>,
    deps: CascadedDeps,
  ) {
    this.targets = targets;
    this.settings = settings;
    this.deps = deps;
    this.model = targets.llm.model;
    this.outputRateHz = targets.tts.rateHz;
    this.vad = new EnergyVad({ rateHz: this.inputRateHz, ...settings.vad });
  }

  /** The chat history as the next completion would see it after the system message (tests, diagnostics). */
  historySnapshot(): readonly ChatMessage[] {
    return this.history.map((m) => ({ ...m }));
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    bindToCall(signal, () => this.close(), 'the harness started');
    this.agent = agent;
    // Three stateless HTTP endpoints: nothing to open, so the session is ready at once.
    queueMicrotask(() => {
      if (!this.closed) this.events.emit('ready');
    });
  }

  sendAudio(pcm: Buffer): void {
    if (this.closed || pcm.length === 0) return;
    this.keepPreroll(pcm);
    const wasOpen = this.segment !== null;
    for (const event of this.vad.push(pcm)) {
      if (event === 'started') this.openTurn();
      else this.closeTurn(this.settings.vad.endpointMs);
    }
    if (wasOpen && this.segment) this.segment.push(pcm);
  }

  callerSpeech(kind: 'started' | 'completed'): void {
    if (!this.settings.chirpTurns || this.closed) return;
    if (kind === 'started') {
      if (!this.segment) this.openTurn();
      return;
    }
    if (this.segment) {
      this.vad.reset();
      this.closeTurn(0);
    }
  }

  applyAgent(agent: AgentSetup): void {
    this.agent = agent;
    if (!this.settings.resetHistory) return;
    // Reset (Pipecat-style): the next specialist starts from the caller's latest words only.
    const lastUser = [...this.history].reverse().find((m) => m.role === 'user');
    this.history.length = 0;
    if (lastUser) this.history.push(lastUser);
  }

  sendToolOutput(callId: string, output: string): void {
    // A tool message must answer a call of an assistant message in the history; a reset dropped it.
    const asked = this.history.some((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.id === callId));
    if (asked) this.history.push({ role: 'tool', tool_call_id: callId, content: output });
  }

  requestResponse(): void {
    if (this.closed) return;
    if (this.current) return;
    this.startRun(null);
  }

  cancelResponse(): void {
    const run = this.current;
    if (!run || run.cancelled) return;
    run.cancelled = true;
    run.abort.abort();
  }

  /** Records what the caller heard of an item: its history message keeps only that text. */
  truncate(itemId: string, audioEndMs: number): void {
    const item = this.items.get(itemId);
    if (!item) return;
    item.playedMs = Math.max(0, audioEndMs);
    if (item.message) item.message.content = playedText(item) || (item.message.tool_calls ? null : '');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abortAll.abort();
    this.cancelResponse();
  }

  private keepPreroll(pcm: Buffer): void {
    this.preroll.push(pcm);
    this.prerollBytes += pcm.length;
    const limit = Math.round((PREROLL_MS + this.settings.vad.startMs) * (this.inputRateHz / 1000)) * 2;
    while (this.prerollBytes - (this.preroll[0]?.length ?? 0) >= limit) this.prerollBytes -= this.preroll.shift()?.length ?? 0;
  }

  /** The caller started speaking: cut the agent off (the turn driver truncates what was played). */
  private openTurn(): void {
    if (this.segment) return;
    this.segment = [...this.preroll];
    this.flushLatency();
    this.cancelResponse();
    this.events.emit('callerSpeechStarted');
  }

  /** The caller's turn ended: transcribe it, then answer it. */
  private closeTurn(endpointMs: number): void {
    const segment = this.segment;
    if (!segment) return;
    this.segment = null;
    this.events.emit('callerSpeechStopped');
    const pcm = Buffer.concat(segment);
    const endAtMs = this.deps.clock.nowMs();
    const itemId = `caller_${++this.counter}`;
    this.transcribing = this.transcribing.then(() => this.answerTurn(pcm, endAtMs, endpointMs, itemId));
  }

  private async answerTurn(pcm: Buffer, endAtMs: number, endpointMs: number, itemId: string): Promise<void> {
    if (this.closed || bytesToMs(pcm.length, this.inputRateHz) < 1) return;
    let text: string;
    try {
      text = await transcribe(this.targets.stt, pcm, this.inputRateHz, this.targets.stt.stream, this.abortAll.signal);
    } catch (err) {
      return this.fail(err);
    }
    if (this.closed || text === '') return;
    this.events.emit('transcript', 'caller', text, itemId);
    this.history.push({ role: 'user', content: text });
    this.toolSteps = 0;
    this.latency = { endAtMs, endpointMs, sttMs: this.deps.clock.nowMs() - endAtMs, llmFirstTokenMs: null, ttsFirstByteMs: null };
    // As a realtime model's server VAD would: the harness answers the turn on its own.
    if (this.current) {
      this.respondAfterRun = true;
      this.cancelResponse();
    } else this.startRun(this.latency);
  }

  private startRun(latency: PendingLatency | null): void {
    const run: Run = { id: `resp_${++this.counter}`, abort: new AbortController(), cancelled: false, latency: latency ?? this.latency };
    this.current = run;
    this.events.emit('responseStarted', run.id);
    void this.respond(run).finally(() => {
      if (this.current === run) this.current = null;
      if (this.respondAfterRun && !this.closed && !this.current) {
        this.respondAfterRun = false;
        this.startRun(this.latency);
      }
    });
  }

  private async respond(run: Run): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    if (!this.history.some((m) => m.role === 'user')) {
      this.history.push({ role: 'user', content: CASCADE_OPENING_CUE });
      this.events.emit('itemInjected', 'user', CASCADE_OPENING_CUE);
    }
    const messages: ChatMessage[] = [{ role: 'system', content: agent.instructions }, ...this.history];
    const tools = this.toolSteps >= this.settings.maxToolSteps ? [] : agent.tools;
    const signal = AbortSignal.any([run.abort.signal, this.abortAll.signal]);
    const itemId = `item_${++this.counter}`;
    const item: SpokenItem = { segments: [], message: null, playedMs: null };
    this.items.set(itemId, item);
    const speech = new SpeechQueue(this, run, itemId, item, signal);
    const llmStartMs = this.deps.clock.nowMs();
    let toolCalls: readonly ChatToolCall[] = [];
    let usage: ChatUsage | null = null;
    const sentences = new SentenceSplitter();
    let status = 'completed';
    try {
      for await (const event of streamChat(this.targets.llm, messages, tools, signal)) {
        if (run.cancelled) break;
        if (event.kind === 'first') {
          if (run.latency && run.latency.llmFirstTokenMs === null) run.latency.llmFirstTokenMs = this.deps.clock.nowMs() - llmStartMs;
        } else if (event.kind === 'text') {
          for (const sentence of sentences.push(event.text)) speech.say(sentence);
        } else {
          toolCalls = event.toolCalls;
          usage = event.usage;
        }
      }
      if (!run.cancelled) for (const sentence of sentences.flush()) speech.say(sentence);
    } catch (err) {
      if (!run.cancelled && !this.closed) {
        speech.stop();
        return this.fail(err);
      }
    }
    if (run.cancelled) toolCalls = [];
    // The assistant message goes in before any tool output can follow it.
    const spoken = speech.requestedText();
    if (spoken !== '' || toolCalls.length > 0) {
      const message: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: spoken || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
      item.message = message;
      this.history.push(message);
    }
    if (toolCalls.length) this.toolSteps++;
    for (const call of toolCalls) this.events.emit('functionCall', { callId: call.id, name: call.function.name, arguments: call.function.arguments });
    try {
      await speech.finish();
    } catch (err) {
      if (!run.cancelled && !this.closed) return this.fail(err);
    }
    if (run.cancelled) status = 'cancelled';
    if (item.message) {
      // What the caller heard: all of it, or what truncate() recorded; unsynthesised text never counts.
      const heard = item.playedMs === null ? speech.spokenText() : playedText(item);
      item.message.content = heard || (item.message.tool_calls ? null : '');
      if (!item.message.content && !item.message.tool_calls) this.history.splice(this.history.indexOf(item.message), 1);
    }
    const said = speech.spokenText();
    if (said) this.events.emit('transcript', 'agent', said, itemId);
    // The run is over before its done is reported: the turn driver may ask for the next response at once.
    if (this.current === run) this.current = null;
    if (!this.closed) this.events.emit('responseDone', { responseId: run.id, status, usage: usage ? usageOf(usage) : null });
  }

  /** Called by the speech queue with each chunk of agent audio; the first of a turn closes its latency. */
  emitAudio(run: Run, itemId: string, pcm: Buffer, job: SpeechJob): void {
    if (this.closed || run.cancelled) return;
    const latency = run.latency;
    if (latency && this.latency === latency) {
      latency.ttsFirstByteMs = job.firstByteAtMs === null ? null : job.firstByteAtMs - job.requestedAtMs;
      this.latency = null;
      run.latency = null;
      this.events.emit('turnLatency', finished(latency, this.deps.clock.nowMs() - latency.endAtMs));
    }
    this.events.emit('audio', itemId, pcm);
  }

  emitAudioDone(itemId: string): void {
    if (!this.closed) this.events.emit('audioDone', itemId);
  }

  /** A turn whose answer never spoke is still reported, with what it got to. */
  private flushLatency(): void {
    const latency = this.latency;
    if (!latency) return;
    this.latency = null;
    this.events.emit('turnLatency', finished(latency, null));
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    const stage = err instanceof EndpointError ? err.stage : 'llm';
    const message = err instanceof Error ? err.message : String(err);
    this.events.emit('failure', { code: `cascade_${stage}_failed`, message, fatal: true });
  }

  /** A speech request for one sentence, started now and read ahead. */
  startSpeech(text: string, signal: AbortSignal): SpeechJob {
    const job: SpeechJob = { text, requestedAtMs: this.deps.clock.nowMs(), chunks: [], firstByteAtMs: null, done: false, error: null, wake: null };
    void (async () => {
      try {
        for await (const chunk of streamSpeech(this.targets.tts, text, signal)) {
          job.firstByteAtMs ??= this.deps.clock.nowMs();
          job.chunks.push(chunk);
          job.wake?.();
        }
      } catch (err) {
        job.error = err;
      }
      job.done = true;
      job.wake?.();
    })();
    return job;
  }
}

/** The sentences of an item, spoken in order: requests run ahead, audio is emitted strictly in sequence. */
class SpeechQueue {
  private readonly jobs: SpeechJob[] = [];
  private readonly spoken: string[] = [];
  private carry: Buffer | null = null;
  private emittedBytes = 0;
  private pump: Promise<void> | null = null;
  private stopped = false;
  private anyAudio = false;

  private readonly session: CascadedSession;
  private readonly run: Run;
  private readonly itemId: string;
  private readonly item: SpokenItem;
  private readonly signal: AbortSignal;

  constructor(
    session: CascadedSession,
    run: Run,
    itemId: string,
    item: SpokenItem,
    signal: AbortSignal,
  ) {
    this.session = session;
    this.run = run;
    this.itemId = itemId;
    this.item = item;
    this.signal = signal;
  }

  say(text: string): void {
    if (this.stopped) return;
    this.jobs.push(this.session.startSpeech(text, this.signal));
    this.pump ??= this.drain();
  }

  /** Text of every sentence sent to speech (the completion's spoken part, before any barge-in). */
  requestedText(): string {
    return this.jobs.map((j) => j.text).join(' ');
  }

  /** Text of the sentences whose audio was emitted, in full or in part. */
  spokenText(): string {
    return this.spoken.join(' ');
  }

  stop(): void {
    this.stopped = true;
  }

  /** Resolves once every sentence's audio has been emitted (or the run was cancelled); rethrows a speech failure. */
  async finish(): Promise<void> {
    await this.pump;
    if (this.anyAudio && !this.run.cancelled) this.session.emitAudioDone(this.itemId);
  }

  private async drain(): Promise<void> {
    for (let i = 0; i < this.jobs.length; i++) {
      const job = this.jobs[i];
      if (!job) break;
      let segment: SpokenSegment | null = null;
      let read = 0;
      for (;;) {
        if (this.run.cancelled || this.stopped) return;
        const chunk = job.chunks[read];
        if (chunk) {
          read++;
          const pcm = this.aligned(chunk);
          if (pcm.length) {
            if (!segment) {
              this.spoken.push(job.text);
              segment = { text: job.text, startMs: bytesToMs(this.emittedBytes, this.session.outputRateHz), endMs: 0 };
              this.item.segments.push(segment);
            }
            this.emittedBytes += pcm.length;
            segment.endMs = bytesToMs(this.emittedBytes, this.session.outputRateHz);
            this.anyAudio = true;
            this.session.emitAudio(this.run, this.itemId, pcm, job);
          }
          continue;
        }
        if (job.done) break;
        await new Promise<void>((resolve) => {
          job.wake = resolve;
        });
        job.wake = null;
      }
      if (job.error && !this.run.cancelled) throw job.error;
      this.carry = null;
    }
  }

  /** Whole samples only: an odd byte waits for the next chunk. */
  private aligned(chunk: Buffer): Buffer {
    const joined = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const even = joined.length - (joined.length % 2);
    this.carry = even < joined.length ? joined.subarray(even) : null;
    return joined.subarray(0, even);
  }
}

/**
 * Splits streamed text into sentences for speech: a sentence ends at `.`, `!` or `?` (with any
 * closing quotes or brackets) followed by white space, or at a line break.
 */
export class SentenceSplitter {
  private buffer = '';

  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    for (;;) {
      const m = /[.!?]+["')\]]*\s+|\n+/.exec(this.buffer);
      if (!m) break;
      const end = m.index + m[0].length;
      const sentence = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end);
      if (sentence) out.push(sentence);
    }
    return out;
  }

  flush(): string[] {
    const rest = this.buffer.trim();
    this.buffer = '';
    return rest ? [rest] : [];
  }
}

/**
 * The text the caller heard of an item cut at `playedMs`: whole sentences played to the end, and
 * of the sentence playing at the cut the share of its words that fits the share of its audio heard.
 */
export function playedText(item: { readonly segments: readonly SpokenSegment[]; readonly playedMs: number | null }): string {
  const played = item.playedMs ?? Infinity;
  const out: string[] = [];
  for (const s of item.segments) {
    if (s.endMs <= played) {
      out.push(s.text);
      continue;
    }
    if (s.startMs < played && s.endMs > s.startMs) {
      const words = s.text.split(/\s+/).filter(Boolean);
      const n = Math.floor((words.length * (played - s.startMs)) / (s.endMs - s.startMs));
      if (n > 0) out.push(words.slice(0, n).join(' '));
    }
    break;
  }
  return out.join(' ');
}

function finished(l: PendingLatency, totalMs: number | null): TurnLatency {
  return { endpointMs: l.endpointMs, sttMs: l.sttMs, llmFirstTokenMs: l.llmFirstTokenMs, ttsFirstByteMs: totalMs === null ? null : l.ttsFirstByteMs, totalMs };
}

/** A completion's usage in the six classes: all of it text (audio is billed by the STT and TTS endpoints, not here). */
function usageOf(u: ChatUsage): Usage {
  const cached = Math.min(u.cachedTokens, u.promptTokens);
  return {
    input_tokens: u.promptTokens,
    output_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    input_text_tokens: u.promptTokens - cached,
    input_audio_tokens: 0,
    cached_text_tokens: cached,
    cached_audio_tokens: 0,
    output_text_tokens: u.completionTokens,
    output_audio_tokens: 0,
  };
}
