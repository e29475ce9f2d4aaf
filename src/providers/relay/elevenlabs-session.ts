import WebSocket from 'ws';
import type { Clock } from '../../core/index.ts';
import type { CallInfo } from '../model-session.ts';
import { packToolName, type DeskMap } from './desk-map.ts';
import { ELEVENLABS_FORMAT, ELEVENLABS_RATE_HZ, initiation, parseElevenLabsEvent, type ElevenLabsClientMessage, type ElevenLabsEvent } from './elevenlabs-wire.ts';
import { RelaySocketSession } from './relay-socket.ts';
import { refuseOnUpgradeFailure, socketSetup } from '../socket-setup.ts';

/** How long the upgrade and the conversation's metadata may take. */
const OPEN_TIMEOUT_MS = 15_000;
/** The largest frame accepted from ElevenLabs. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** What the relay is configured with (docs/platforms.md, "ElevenLabs Agents"). */
export interface ElevenLabsRelayOptions {
  /** `<base>/v1/convai/conversation?agent_id=<id>` (a public agent). */
  readonly url: string;
  /** The team's platform agent or node names → pack desks. */
  readonly desks: DeskMap;
}

/**
 * `relay/elevenlabs`: a team's ElevenLabs agent over its conversation WebSocket. The first frame
 * carries mivas's call id as a dynamic variable; the caller's audio goes as `user_audio_chunk`
 * (PCM 16 kHz, the format the team sets on its agent), the agent's `audio` comes back, `ping` is
 * answered `pong`. The agent's client tools arrive as `client_tool_call` and are the agent's own
 * calls: dispatched by the call's conversation and answered `client_tool_result`. A transfer the
 * platform executed itself (`agent_tool_response` of a `transfer_to_<node>` tool) is mirrored as
 * a platform call, its node mapped through the desk map, recorded and applied with nothing sent
 * back. `interruption` is the agent's barge-in; the socket closing is the agent hanging up.
 */
export class ElevenLabsRelaySession extends RelaySocketSession<ElevenLabsClientMessage, ElevenLabsRelayOptions> {
  readonly provider = 'elevenlabs';
  readonly inputRateHz = ELEVENLABS_RATE_HZ;
  readonly outputRateHz = ELEVENLABS_RATE_HZ;
  private ready = false;

  constructor(options: ElevenLabsRelayOptions, call: CallInfo, clock: Clock) {
    super(options, call, clock, 'el_item');
  }

  /** The conversation's metadata arrived: caller audio may flow. */
  protected override opened(): void {
    this.ready = true;
  }

  sendAudio(pcm: Buffer): void {
    if (this.ready && pcm.length) this.send({ user_audio_chunk: pcm.toString('base64') });
  }

  sendToolOutput(callId: string, output: string): void {
    let failed = false;
    try {
      failed = (JSON.parse(output) as { ok?: unknown }).ok === false;
    } catch {
      /* a handoff's `{assistant}` or text: not an error */
    }
    this.send({ type: 'client_tool_result', tool_call_id: callId, result: output, is_error: failed });
  }

  /** Dials, sends the initiation frame, and resolves on the conversation's metadata (PCM 16 kHz both ways). */
  protected open(): Promise<void> {
    const ws = new WebSocket(this.options.url, { perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: MAX_FRAME_BYTES });
    this.ws = ws;
    const setup = socketSetup(OPEN_TIMEOUT_MS, 'ElevenLabs sent no conversation metadata in time');
    const settle = setup.settle;
    ws.once('open', () => this.send(initiation(this.call.callId)));
    ws.on('message', (data: Buffer) => {
      const event = parseElevenLabsEvent(data.toString('utf8'));
      if (event?.type === 'conversation_initiation_metadata') settle(formatProblem(event));
      else if (event) this.onEvent(event);
    });
    refuseOnUpgradeFailure(ws, setup, 'ElevenLabs refused the conversation');
    ws.on('error', (err) => settle(err));
    ws.on('close', () => {
      settle(new Error('ElevenLabs closed the conversation before it started'));
      if (this.ready) this.peerClosed();
    });
    return setup.done;
  }

  private onEvent(e: ElevenLabsEvent): void {
    if (this.closed) return;
    switch (e.type) {
      case 'audio':
        return this.utterances.audio(Buffer.from(e.audio_event.audio_base_64, 'base64'));
      case 'ping':
        return this.send({ type: 'pong', event_id: e.ping_event.event_id });
      case 'client_tool_call': {
        const c = e.client_tool_call;
        return void this.events.emit('functionCall', { callId: c.tool_call_id, name: packToolName(this.options.desks, c.tool_name), arguments: JSON.stringify(c.parameters) });
      }
      case 'agent_tool_response': {
        const r = e.agent_tool_response;
        const name = packToolName(this.options.desks, r.tool_name);
        // Only a transfer the platform made is mirrored; its other system tools (an ending included) are not the pack's calls.
        if (r.tool_type === 'system' && r.is_called && !r.is_error && name.startsWith('transfer_to_')) this.events.emit('platformCall', { name, arguments: '{}', origin: 'platform' });
        return;
      }
      case 'interruption':
        this.utterances.end();
        return void this.events.emit('callerSpeechStarted');
      default:
        return;
    }
  }
}

/** Why the conversation's audio formats do not suit the relay, or null. */
function formatProblem(e: Extract<ElevenLabsEvent, { type: 'conversation_initiation_metadata' }>): Error | null {
  const { agent_output_audio_format: out, user_input_audio_format: input } = e.conversation_initiation_metadata_event;
  if (out === ELEVENLABS_FORMAT && input === ELEVENLABS_FORMAT) return null;
  return new Error(`the agent's audio formats are ${input} in and ${out} out; set both to ${ELEVENLABS_FORMAT} on the agent (docs/platforms.md)`);
}
