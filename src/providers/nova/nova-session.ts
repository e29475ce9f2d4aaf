import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { bytesToMs } from '../../audio/index.ts';
import type { Clock, Timer } from '../../core/index.ts';
import type { Usage } from '../../snapshot/index.ts';
import { handoffCueText, OPENING_CUE } from '../cues.ts';
import { connectForCall } from '../harness-kit.ts';
import type { AgentSetup } from '../model-session.ts';
import { OwnTurnsSession } from '../own-turns-session.ts';
import { ResponseSlot, type OpenResponse } from '../response-slot.ts';
import { StreamHistory, type SeedTurn } from '../stream-history.ts';
import type { NovaDuplex, NovaEvent, NovaTransport } from './transport.ts';

/** Nova Sonic takes PCM16 mono 16 kHz in and gives 24 kHz out (audioInput/OutputConfiguration). */
export const NOVA_INPUT_RATE_HZ = 16_000;
export const NOVA_OUTPUT_RATE_HZ = 24_000;
/** Chat history limits (Nova 2 Sonic user guide, "Managing chat history"): 40 KB in all, 1 KB per textInput. */
export const NOVA_HISTORY_MAX_BYTES = 40 * 1024;
export const NOVA_TEXT_INPUT_MAX_BYTES = 1024;
/** A connection lasts about 8 minutes: the session moves to a fresh, seeded stream before then. */
export const NOVA_RENEW_AFTER_MS = 7 * 60_000;
/** With no caller audio for this long, zero PCM keeps the stream alive. */
const KEEPALIVE_MS = 1_000;
const KEEPALIVE_BYTES = 3_200;

/** The text block that makes the entry agent speak first (the model does not speak from silence): the shared opening cue. */
export const NOVA_OPENING_CUE = OPENING_CUE;

/** What the Nova Sonic harness is configured with. */
export interface NovaOptions {
  readonly model: string;
  readonly voice: string;
  readonly endpointing: 'HIGH' | 'MEDIUM' | 'LOW';
  readonly transport: NovaTransport;
  readonly clock: Clock;
}

const AUDIO_IN = { mediaType: 'audio/lpcm', sampleRateHertz: NOVA_INPUT_RATE_HZ, sampleSizeBits: 16, channelCount: 1, audioType: 'SPEECH', encoding: 'base64' } as const;
const TEXT_IN = { mediaType: 'text/plain' } as const;

/** The agent's tools as `toolConfiguration.tools`: `toolSpec` with the schema as a JSON string. */
export function novaTools(agent: AgentSetup): { toolSpec: { name: string; description: string; inputSchema: { json: string } } }[] {
  return agent.tools.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: JSON.stringify(t.parameters) } } }));
}

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, at code point boundaries. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > maxBytes && piece) {
      out.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += ch;
    bytes += n;
  }
  if (piece) out.push(piece);
  return out;
}

/**
 * The seed as the API allows it: newest turns first kept until 40 KB, the rest dropped; it must
 * open with a USER turn, so a placeholder one is put first when the oldest kept turn is the agent's.
 */
export function novaSeed(turns: readonly SeedTurn[]): SeedTurn[] {
  const kept: SeedTurn[] = [];
  let bytes = Buffer.byteLength('(The call began.)');
  for (const t of [...turns].reverse()) {
    const n = Buffer.byteLength(t.text);
    if (bytes + n > NOVA_HISTORY_MAX_BYTES) break;
    kept.unshift(t);
    bytes += n;
  }
  if (kept[0]?.role !== 'user' && kept.length) kept.unshift({ role: 'user', text: '(The call began.)' });
  return kept;
}

/** Stop reasons of an output block after which the same answer goes on (Nova 2 output events). */
const CONTINUES_ANSWER = new Set(['PARTIAL_TURN', 'TOOL_USE']);

const eventSchema = z.object({ event: z.record(z.string(), z.unknown()) });
const contentStartSchema = z.looseObject({ type: z.string().optional(), role: z.string().optional(), contentId: z.string().optional(), additionalModelFields: z.string().optional() });
const contentEndSchema = z.looseObject({ type: z.string().optional(), stopReason: z.string().optional(), contentId: z.string().optional() });
const textOutputSchema = z.looseObject({ content: z.string(), role: z.string().optional() });
const audioOutputSchema = z.looseObject({ content: z.string() });
const toolUseSchema = z.looseObject({ toolUseId: z.string(), toolName: z.string(), content: z.string().optional() });
const tokensSchema = z.looseObject({ speechTokens: z.number().optional(), textTokens: z.number().optional() }).optional();
const usageSchema = z.looseObject({ details: z.looseObject({ delta: z.looseObject({ input: tokensSchema, output: tokensSchema }).optional() }).optional() });

/** One stream with its names: the prompt and the open audio content. */
interface Stream {
  readonly duplex: NovaDuplex;
  readonly promptName: string;
  readonly audioName: string;
  readonly agent: AgentSetup;
  /** Opened for a handoff: losing it before it answered ends the call as handoff_stream_lost. */
  readonly forHandoff: boolean;
  open: boolean;
  closedByUs: boolean;
  answered: boolean;
}

/**
 * Amazon Nova Sonic (architecture.md §19, a new stream per specialist): one
 * InvokeModelWithBidirectionalStream per agent, its tools fixed at `promptStart`. A stream opens
 * with sessionStart (inference and turn-detection settings), promptStart (text and 24 kHz audio
 * output, the tools), the system prompt as a TEXT block, the history as TEXT blocks (within the
 * 40 KB / 1 KB limits, opening with USER), then the caller's AUDIO block, kept alive with zero
 * PCM. The model does not speak from silence, so a text block nudges it (the greeting, and the
 * next specialist after a handoff). Tool results go back as TOOL blocks. Before the 8-minute
 * connection limit the session moves to a fresh stream seeded the same way; a stream that cannot
 * be opened at a handoff ends the call (`handoff_stream_lost`).
 */
export class NovaSonicSession extends OwnTurnsSession<NovaOptions> {
  readonly provider = 'aws';
  readonly inputRateHz = NOVA_INPUT_RATE_HZ;
  readonly outputRateHz = NOVA_OUTPUT_RATE_HZ;
  private stream: Stream | null = null;
  private readonly history = new StreamHistory();
  private readonly response = new ResponseSlot(this.events, 'nova');
  private counter = 0;
  private spokeOnce = false;
  private continuesAlone = false;
  private readonly pendingCalls: { callId: string; name: string; arguments: string }[] = [];
  private readonly unanswered = new Set<string>();
  private handoffFrom: string | null = null;
  /** The block in progress: its type and role, and text gathered for it. */
  private block: { type: string; role: string; final: boolean; text: string } | null = null;
  private keepalive: Timer | null = null;
  private renewal: Timer | null = null;

  constructor(options: NovaOptions) {
    super(options);
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    await connectForCall(this, signal, () => {
      this.agent = agent;
      this.stream = this.openStream(agent, []);
    });
    queueMicrotask(() => {
      if (!this.closed) this.events.emit('ready');
    });
  }

  sendAudio(pcm: Buffer): void {
    const s = this.stream;
    if (!s?.open || pcm.length === 0) return;
    s.duplex.send(ev('audioInput', { promptName: s.promptName, contentName: s.audioName, content: pcm.toString('base64') }));
    this.armKeepalive();
  }

  applyAgent(agent: AgentSetup): void {
    this.handoffFrom = this.agent?.name ?? 'the previous agent';
    this.agent = agent;
  }

  sendToolOutput(callId: string, output: string): void {
    if (!this.unanswered.delete(callId)) return;
    this.history.toolResult(callId, output);
    const s = this.stream;
    // At a handoff the old stream is never told: the next one is seeded with the result instead.
    if (this.handoffFrom !== null || !s?.open) return;
    const contentName = randomUUID();
    s.duplex.send(ev('contentStart', { promptName: s.promptName, contentName, interactive: false, type: 'TOOL', role: 'TOOL', toolResultInputConfiguration: { toolUseId: callId, type: 'TEXT', textInputConfiguration: TEXT_IN } }));
    s.duplex.send(ev('toolResult', { promptName: s.promptName, contentName, content: output }));
    s.duplex.send(ev('contentEnd', { promptName: s.promptName, contentName }));
  }

  requestResponse(): void {
    if (this.closed || this.response.current) return;
    if (this.handoffFrom !== null) return void this.switchStream();
    if (this.continuesAlone) return;
    if (!this.spokeOnce) this.sendText(NOVA_OPENING_CUE);
  }

  /** Nova Sonic has no cancel: audio of the interrupted reply that still arrives is dropped. */
  cancelResponse(): void {
    this.response.cancel();
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.history.truncate(itemId, audioEndMs);
  }

  protected release(): void {
    this.keepalive?.cancel();
    this.renewal?.cancel();
    if (this.stream) this.endStream(this.stream);
    this.stream = null;
  }

  /** Opens a stream for an agent, seeded with `seed`, its audio block open and primed with zero PCM. */
  private openStream(agent: AgentSetup, seed: readonly SeedTurn[], forHandoff = false): Stream {
    const duplex = this.options.transport(this.options.model);
    const s: Stream = { duplex, promptName: randomUUID(), audioName: randomUUID(), agent, forHandoff, open: true, closedByUs: false, answered: false };
    const { promptName } = s;
    duplex.send(ev('sessionStart', { inferenceConfiguration: { maxTokens: 1024, topP: 0.9, temperature: 0.7 }, turnDetectionConfiguration: { endpointingSensitivity: this.options.endpointing } }));
    duplex.send(
      ev('promptStart', {
        promptName,
        textOutputConfiguration: TEXT_IN,
        audioOutputConfiguration: { ...AUDIO_IN, sampleRateHertz: NOVA_OUTPUT_RATE_HZ, voiceId: this.options.voice },
        toolUseOutputConfiguration: { mediaType: 'application/json' },
        toolConfiguration: { tools: novaTools(agent) },
      }),
    );
    this.textBlock(s, 'SYSTEM', agent.instructions, false);
    for (const turn of novaSeed(seed)) this.textBlock(s, turn.role === 'user' ? 'USER' : 'ASSISTANT', turn.text, true);
    duplex.send(ev('contentStart', { promptName, contentName: s.audioName, type: 'AUDIO', interactive: true, role: 'USER', audioInputConfiguration: AUDIO_IN }));
    duplex.send(ev('audioInput', { promptName, contentName: s.audioName, content: Buffer.alloc(KEEPALIVE_BYTES).toString('base64') }));
    void this.read(s);
    this.renewal?.cancel();
    this.renewal = this.options.clock.setTimer(NOVA_RENEW_AFTER_MS, () => this.renew());
    this.armKeepalive();
    return s;
  }

  /** One TEXT content block, its text split into textInputs of at most 1 KB. */
  private textBlock(s: Stream, role: 'SYSTEM' | 'USER' | 'ASSISTANT', text: string, interactive: boolean): void {
    const contentName = randomUUID();
    s.duplex.send(ev('contentStart', { promptName: s.promptName, contentName, type: 'TEXT', interactive, role, textInputConfiguration: TEXT_IN }));
    for (const piece of splitUtf8(text, NOVA_TEXT_INPUT_MAX_BYTES)) s.duplex.send(ev('textInput', { promptName: s.promptName, contentName, content: piece }));
    s.duplex.send(ev('contentEnd', { promptName: s.promptName, contentName }));
  }

  /** A cross-modal text nudge on the live stream (the model speaks after it). */
  private sendText(text: string): void {
    const s = this.stream;
    if (s?.open) this.textBlock(s, 'USER', text, true);
  }

  private endStream(s: Stream): void {
    if (!s.open) return;
    s.open = false;
    s.closedByUs = true;
    s.duplex.send(ev('contentEnd', { promptName: s.promptName, contentName: s.audioName }));
    s.duplex.send(ev('promptEnd', { promptName: s.promptName }));
    s.duplex.send(ev('sessionEnd', {}));
    s.duplex.end();
  }

  /** The handoff: the next agent's stream, seeded with everything so far, then its cue. */
  private switchStream(): void {
    const agent = this.agent;
    const from = this.handoffFrom ?? '';
    this.handoffFrom = null;
    if (!agent) return;
    const old = this.stream;
    try {
      this.stream = this.openStream(agent, this.history.seedTurns(), true);
    } catch (err) {
      this.events.emit('failure', { code: 'handoff_stream_lost', message: `the next specialist's stream (${agent.name}) could not be opened: ${err instanceof Error ? err.message : String(err)}`, fatal: true });
      return;
    } finally {
      if (old) this.endStream(old);
    }
    this.continuesAlone = false;
    this.sendText(handoffCueText(from, agent.name));
  }

  /** Before the connection limit: the same agent on a fresh stream with the history (no cue: nothing was asked). */
  private renew(): void {
    if (this.closed || !this.agent) return;
    if (this.response.current || this.unanswered.size > 0) {
      this.renewal = this.options.clock.setTimer(5_000, () => this.renew());
      return;
    }
    const old = this.stream;
    this.stream = this.openStream(this.agent, this.history.seedTurns());
    if (old) this.endStream(old);
  }

  private armKeepalive(): void {
    this.keepalive?.cancel();
    this.keepalive = this.options.clock.setTimer(KEEPALIVE_MS, () => {
      const s = this.stream;
      if (this.closed || !s?.open) return;
      s.duplex.send(ev('audioInput', { promptName: s.promptName, contentName: s.audioName, content: Buffer.alloc(KEEPALIVE_BYTES).toString('base64') }));
      this.armKeepalive();
    });
  }

  private async read(s: Stream): Promise<void> {
    let why = 'the stream ended';
    try {
      for await (const raw of s.duplex.output) {
        if (this.closed || this.stream !== s) continue;
        s.answered = true;
        this.onEvent(raw);
      }
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    if (this.closed || s.closedByUs) return;
    s.open = false;
    if (this.stream !== s) return;
    const code = s.forHandoff && !s.answered ? 'handoff_stream_lost' : 'provider_disconnected';
    this.events.emit('failure', { code, message: `Nova Sonic stream lost${s.forHandoff && !s.answered ? ` at the handoff to ${s.agent.name}` : ''}: ${why}`, fatal: true });
  }

  private onEvent(raw: NovaEvent): void {
    const parsed = eventSchema.safeParse(raw);
    if (!parsed.success) return;
    for (const [name, body] of Object.entries(parsed.data.event)) {
      switch (name) {
        case 'contentStart':
          this.onContentStart(contentStartSchema.parse(body));
          break;
        case 'textOutput':
          this.onText(textOutputSchema.parse(body));
          break;
        case 'audioOutput':
          this.onAudio(audioOutputSchema.parse(body).content);
          break;
        case 'toolUse': {
          const use = toolUseSchema.parse(body);
          this.begin();
          this.pendingCalls.push({ callId: use.toolUseId, name: use.toolName, arguments: use.content ?? '{}' });
          break;
        }
        case 'contentEnd':
          this.onContentEnd(contentEndSchema.parse(body));
          break;
        case 'usageEvent':
          this.onUsage(usageSchema.parse(body));
          break;
        default:
          break;
      }
    }
  }

  private onContentStart(c: z.infer<typeof contentStartSchema>): void {
    const final = (c.additionalModelFields ?? '').includes('FINAL');
    this.block = { type: c.type ?? '', role: c.role ?? '', final, text: '' };
    if (c.role === 'ASSISTANT' && c.type === 'AUDIO') this.begin();
    if (c.role === 'TOOL' || c.type === 'TOOL') this.begin();
  }

  private onText(t: z.infer<typeof textOutputSchema>): void {
    // A barge-in shows as an `{"interrupted": true}` text (aws-samples websocket-nodejs).
    if (/"interrupted"\s*:\s*true/.test(t.content)) return this.onInterrupted();
    if (this.block) this.block.text += t.content;
  }

  private onAudio(content: string): void {
    const response = this.begin();
    if (response.cancelled) return;
    const pcm = Buffer.from(content, 'base64');
    response.spoke = true;
    this.spokeOnce = true;
    this.history.agentAudio(response.itemId, bytesToMs(pcm.length, NOVA_OUTPUT_RATE_HZ));
    this.events.emit('audio', response.itemId, pcm);
  }

  private onContentEnd(c: z.infer<typeof contentEndSchema>): void {
    const block = this.block;
    this.block = null;
    if (c.stopReason === 'INTERRUPTED') this.onInterrupted();
    if (block?.type === 'TEXT' && block.role === 'USER' && block.text.trim()) {
      this.history.callerText(block.text.trim());
      const said = this.history.closeCallerTurn();
      if (said) {
        this.events.emit('callerSpeechStopped');
        this.events.emit('transcript', 'caller', said, `nova_caller_${++this.counter}`);
      }
    }
    if (block?.type === 'TEXT' && block.role === 'ASSISTANT' && block.final) this.onSpokenText(block.text.trim(), c.stopReason);
    if (block?.type === 'AUDIO' || c.type === 'AUDIO' || (block?.role === 'ASSISTANT' && block.final)) this.onAnswerPartEnd(c.stopReason);
    if (block?.type === 'TOOL' || c.type === 'TOOL') this.flushCalls();
  }

  /**
   * An audio block (or the FINAL text that follows it) ended. A PARTIAL_TURN block is one part of
   * the answer (and a TOOL_USE one is followed by its tool block): the next block continues the
   * same response and item. END_TURN ends the answer, INTERRUPTED cuts it (a missing reason ends
   * it too, so an answer never stays open), as the reference client ends a turn only on END_TURN
   * (aws-samples/amazon-nova-samples
   * `speech-to-speech/amazon-nova-2-sonic/sample-codes/websocket-nodejs/public/src/main.js`, its
   * `contentEnd` handler, b37d226). With no answer open (its audio already ended it) this does nothing.
   */
  private onAnswerPartEnd(stopReason: string | undefined): void {
    if (stopReason === 'INTERRUPTED' || this.response.current?.cancelled) this.response.finish('cancelled');
    else if (!CONTINUES_ANSWER.has(stopReason ?? '')) this.response.finish('completed');
  }

  /**
   * A FINAL assistant text block: what was actually spoken, following the audio block it belongs
   * to. The parts of an answer split by PARTIAL_TURN are joined into one transcript, emitted when
   * the part that ends the turn arrives (or when the next answer begins).
   */
  private onSpokenText(text: string, stopReason: string | undefined): void {
    const itemId = this.lastItemId ?? `nova_item_${this.counter}`;
    if (text) {
      this.history.agentText(itemId, this.spoken.parts.length ? ` ${text}` : text);
      this.spoken = { itemId, parts: [...this.spoken.parts, text] };
    }
    if (!CONTINUES_ANSWER.has(stopReason ?? '')) this.emitSpoken();
  }

  /** Emits the gathered FINAL text of an answer as its one transcript. */
  private emitSpoken(): void {
    const { itemId, parts } = this.spoken;
    this.spoken = { itemId: null, parts: [] };
    if (itemId && parts.length) this.events.emit('transcript', 'agent', parts.join(' '), itemId);
  }

  /** FINAL text parts of the answer in progress, not yet emitted as its transcript. */
  private spoken: { itemId: string | null; parts: readonly string[] } = { itemId: null, parts: [] };

  private lastItemId: string | null = null;

  private begin(): OpenResponse {
    if (this.response.current) return this.response.current;
    this.emitSpoken();
    this.continuesAlone = false;
    const response = this.response.start(++this.counter);
    this.lastItemId = response.itemId;
    return response;
  }

  /** The tool block ended: its calls belong to the open response, which ends with them (the model waits for the results). */
  private flushCalls(): void {
    const calls = this.pendingCalls.splice(0);
    if (!calls.length) return;
    const response = this.begin();
    const agent = this.agent?.name ?? '';
    this.continuesAlone = true;
    for (const call of calls) {
      this.unanswered.add(call.callId);
      this.history.toolCall(call.callId, call.name, call.arguments, agent);
    }
    for (const call of calls) this.events.emit('functionCall', call);
    this.response.finish(response.cancelled ? 'cancelled' : 'completed');
  }

  private onInterrupted(): void {
    if (this.response.current?.cancelled) return;
    this.response.cancel();
    this.events.emit('callerSpeechStarted');
  }

  private onUsage(u: z.infer<typeof usageSchema>): void {
    const delta = u.details?.delta;
    if (!delta) return;
    const inText = delta.input?.textTokens ?? 0;
    const inAudio = delta.input?.speechTokens ?? 0;
    const outText = delta.output?.textTokens ?? 0;
    const outAudio = delta.output?.speechTokens ?? 0;
    const add: Usage = {
      input_tokens: inText + inAudio,
      output_tokens: outText + outAudio,
      total_tokens: inText + inAudio + outText + outAudio,
      input_text_tokens: inText,
      input_audio_tokens: inAudio,
      cached_text_tokens: 0,
      cached_audio_tokens: 0,
      output_text_tokens: outText,
      output_audio_tokens: outAudio,
    };
    this.response.addUsage(add);
  }
}

function ev(name: string, body: Record<string, unknown>): NovaEvent {
  return { event: { [name]: body } };
}
