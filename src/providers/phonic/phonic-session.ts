import WebSocket from 'ws';
import type { Clock } from '../../core/index.ts';
import { connectForCall } from '../harness-kit.ts';
import type { AgentSetup } from '../model-session.ts';
import { OwnTurnsSession } from '../own-turns-session.ts';
import { handoffCueText, OPENING_CUE } from '../cues.ts';
import { SpokenTurns } from '../spoken-turns.ts';
import { outputValue, parsePhonicEvent, phonicConfig, PHONIC_CHUNK_MS, PHONIC_RATE_HZ, type PhonicEvent } from './wire.ts';
import { refuseOnUpgradeFailure, socketSetup } from '../socket-setup.ts';

/** How long opening the conversation (upgrade and readiness) may take. */
const OPEN_TIMEOUT_MS = 15_000;
/** The largest frame accepted from Phonic. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Bytes of one audio_chunk: 20 ms of PCM16 at 16 kHz. */
const CHUNK_BYTES = (PHONIC_RATE_HZ / 1000) * PHONIC_CHUNK_MS * 2;


/** What the Phonic harness is configured with. */
export interface PhonicOptions {
  /** `<base>/v1/sts/ws`. */
  readonly url: string;
  readonly apiKey: string;
  readonly model: string;
  readonly voice: string;
}

/**
 * Phonic speech-to-speech (architecture.md §19, one socket, a `reset` per specialist): one
 * `/v1/sts/ws` conversation configured with the agent's prompt, voice, PCM 16 kHz and its tools as
 * inline WebSocket tools. Turns run from Phonic's first audio of a turn to
 * `assistant_finished_speaking`; a `tool_call` is answered with `tool_call_output` and Phonic goes
 * on by itself. A handoff sends `reset` with the next agent's config, its system prompt carrying
 * the conversation so far (whether a reset keeps history is not documented), and then a
 * `generate_reply` cue; the handoff call itself is not answered. Phonic has no cancel or truncate:
 * on barge-in the rest of the turn's audio is dropped.
 */
export class PhonicSession extends OwnTurnsSession<PhonicOptions> {
  readonly provider = 'phonic';
  readonly inputRateHz = PHONIC_RATE_HZ;
  readonly outputRateHz = PHONIC_RATE_HZ;
  private ws: WebSocket | null = null;
  private readonly turns = new SpokenTurns(this.events, 'phonic', PHONIC_RATE_HZ);
  private isReady = false;
  private audioSent = false;
  /** A reset was sent; the next response request cues the new agent. */
  private handoffFrom: string | null = null;

  private readonly clock: Clock;

  constructor(options: PhonicOptions, clock: Clock) {
    super(options);
    this.clock = clock;
  }

  async connect(agent: AgentSetup, signal: AbortSignal): Promise<void> {
    await connectForCall(this, signal, () => {
      this.agent = agent;
      return this.open(agent);
    });
    if (this.closed) return;
    this.isReady = true;
    this.events.emit('ready');
  }

  sendAudio(pcm: Buffer): void {
    for (let i = 0; i < pcm.length; i += CHUNK_BYTES) {
      const chunk = { type: 'audio_chunk', audio: pcm.subarray(i, i + CHUNK_BYTES).toString('base64') };
      // The first chunk of a conversation carries its start time.
      this.send(this.audioSent ? chunk : { ...chunk, iso_date_time: new Date(this.clock.epochMs()).toISOString() });
      this.audioSent = true;
    }
  }

  applyAgent(agent: AgentSetup): void {
    this.handoffFrom = this.agent?.name ?? 'the previous agent';
    this.agent = agent;
    // Calls of the agent before the reset are never answered.
    this.turns.end();
    this.turns.dropCalls();
    this.turns.continuesAlone = false;
    this.send({ type: 'reset', config: phonicConfig(agent, { model: this.options.model, voice: this.options.voice, seed: this.turns.history.seedTurns() }) });
  }

  sendToolOutput(callId: string, output: string): void {
    if (!this.turns.toolResult(callId, output)) return;
    this.send({ type: 'tool_call_output', tool_call_id: callId, output: outputValue(output) });
  }

  requestResponse(): void {
    if (this.closed || this.turns.current) return;
    if (this.handoffFrom !== null && this.agent) {
      this.send({ type: 'generate_reply', system_message: handoffCueText(this.handoffFrom, this.agent.name) });
      this.handoffFrom = null;
      return;
    }
    if (this.turns.continuesAlone || this.turns.spokeOnce) return;
    this.send({ type: 'generate_reply', system_message: OPENING_CUE });
  }

  /** Phonic has no cancel: the turn is closed here and its later audio dropped. */
  cancelResponse(): void {
    this.turns.cancel();
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.turns.history.truncate(itemId, audioEndMs);
  }

  protected release(): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.close(1000, 'done');
    else this.ws?.terminate();
    this.ws = null;
  }

  private send(message: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Dials, sends `config`, and resolves once Phonic is ready for the conversation. */
  private open(agent: AgentSetup): Promise<void> {
    const ws = new WebSocket(this.options.url, { headers: { Authorization: `Bearer ${this.options.apiKey}` }, perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: MAX_FRAME_BYTES });
    this.ws = ws;
    const setup = socketSetup(OPEN_TIMEOUT_MS, 'Phonic was not ready in time');
    const settle = setup.settle;
    ws.once('open', () => this.send({ type: 'config', ...phonicConfig(agent, { model: this.options.model, voice: this.options.voice, seed: [] }) }));
    ws.on('message', (data: Buffer) => {
      const event = parsePhonicEvent(data.toString('utf8'));
      if (!event) return;
      if (event.type === 'error' && !setup.isSettled()) settle(new Error(`Phonic refused the conversation: ${event.error.message}`));
      if (event.type === 'ready_to_start_conversation' || event.type === 'conversation_created') settle(null);
      this.onEvent(event);
    });
    refuseOnUpgradeFailure(ws, setup, 'Phonic refused the upgrade');
    ws.on('error', (err) => settle(err));
    ws.on('close', (code, reason) => {
      const why = `Phonic closed the conversation (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      settle(new Error(why));
      if (!this.closed && this.isReady) this.events.emit('failure', { code: 'provider_disconnected', message: why, fatal: true });
    });
    return setup.done;
  }

  private onEvent(e: PhonicEvent): void {
    if (this.closed) return;
    switch (e.type) {
      case 'audio_chunk':
        return this.turns.audio(Buffer.from(e.audio, 'base64'), e.text);
      case 'input_text':
        return this.turns.callerText(e.text);
      case 'user_started_speaking':
        this.turns.bargeIn();
        return;
      case 'assistant_finished_speaking':
        return this.turns.end();
      case 'tool_call':
        this.turns.toolCall(e.tool_call_id, e.tool_name, JSON.stringify(e.parameters), this.agent?.name ?? '');
        return;
      case 'error':
        if (this.isReady) this.events.emit('failure', { code: e.error.code ?? 'phonic_error', message: e.error.message, fatal: false });
        return;
      default:
        return;
    }
  }
}
