import WebSocket from 'ws';
import type { Clock } from '../../core/index.ts';
import type { CallInfo } from '../model-session.ts';
import { RelaySocketSession } from './relay-socket.ts';
import { CALL_ID_PARAMETER, TOOLS_URL_PARAMETER, muLawToPcm, parseBotMessage, pcmToMuLaw, TWILIO_ENCODING, TWILIO_FRAME_BYTES, TWILIO_RATE_HZ, twilioIds, twilioSignature, type BotMessage, type TwilioFrame, type TwilioIds } from './twilio-wire.ts';

/** How long the upgrade to the bot may take. */
const OPEN_TIMEOUT_MS = 15_000;
/** The largest frame accepted from the bot (a media frame of several seconds is far below it). */
const MAX_FRAME_BYTES = 1024 * 1024;

/** What the relay is configured with (docs/platforms.md, "Twilio Media Streams"). */
export interface TwilioRelayOptions {
  /** The bot's ws:// or wss:// URL, dialed as Twilio would. */
  readonly url: string;
  /** The team's Twilio auth token: when set, the upgrade carries `X-Twilio-Signature`. */
  readonly authToken: string | undefined;
  /** The account SID the `start` frame names (a zero placeholder when unset). */
  readonly accountSid: string | undefined;
}

/**
 * `relay/twilio-ms`: dials a team's phone bot (Pipecat, a custom server) as Twilio Media Streams
 * would, and relays the call over it. The caller still dials mivas over CHIRP; mivas's caller audio
 * goes to the bot as 20 ms mu-law `media` frames, the bot's `media` comes back as the agent's
 * audio (an utterance ends at the bot's `mark` or after a short gap), `clear` is the bot's barge-in,
 * and the bot closing the socket is the agent hanging up. The bot runs its own model and tools:
 * tools reach the call through mivas's platform routes with the call id it got in
 * `start.customParameters` (docs/platforms.md); nothing is ever sent back on this socket for them,
 * and no tool call is ever made up from what the bot says.
 */
export class TwilioRelaySession extends RelaySocketSession<TwilioFrame, TwilioRelayOptions> {
  readonly provider = 'twilio-ms';
  readonly inputRateHz = TWILIO_RATE_HZ;
  readonly outputRateHz = TWILIO_RATE_HZ;
  readonly platformCallId: string;
  private readonly ids: TwilioIds;
  private sequence = 0;
  private chunk = 0;
  private mediaMs = 0;
  /** Caller audio not yet a whole 20 ms frame. */
  private pending = Buffer.alloc(0);

  constructor(options: TwilioRelayOptions, call: CallInfo, clock: Clock) {
    super(options, call, clock, 'tw_item');
    this.ids = twilioIds(options.accountSid);
    this.platformCallId = this.ids.callSid;
  }

  /** Twilio's first two frames: `connected`, then `start` with the call id in its custom parameters. */
  protected override opened(): void {
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const { streamSid, accountSid, callSid } = this.ids;
    this.send({
      event: 'start',
      sequenceNumber: this.nextSequence(),
      start: { streamSid, accountSid, callSid, tracks: ['inbound'], customParameters: this.customParameters(), mediaFormat: { encoding: TWILIO_ENCODING, sampleRate: TWILIO_RATE_HZ, channels: 1 } },
      streamSid,
    });
  }

  sendAudio(pcm: Buffer): void {
    this.pending = Buffer.concat([this.pending, pcmToMuLaw(pcm)]);
    while (this.pending.length >= TWILIO_FRAME_BYTES) {
      const frame = this.pending.subarray(0, TWILIO_FRAME_BYTES);
      this.pending = this.pending.subarray(TWILIO_FRAME_BYTES);
      this.chunk++;
      this.send({ event: 'media', sequenceNumber: this.nextSequence(), media: { track: 'inbound', chunk: String(this.chunk), timestamp: String(this.mediaMs), payload: frame.toString('base64') }, streamSid: this.ids.streamSid });
      this.mediaMs += 20;
    }
  }

  /** Tools reach the call over HTTP, never this socket: there is nothing to answer here. */
  sendToolOutput(): void {}

  /** Twilio tells the bot the stream is over before it closes. */
  protected override farewell(): void {
    this.send({ event: 'stop', sequenceNumber: this.nextSequence(), streamSid: this.ids.streamSid, stop: { accountSid: this.ids.accountSid, callSid: this.ids.callSid } });
  }

  /** The call id, and where the bot calls the call's tools when mivas knows it. */
  private customParameters(): Record<string, string> {
    const { callId, callbackUrl } = this.call;
    return callbackUrl ? { [CALL_ID_PARAMETER]: callId, [TOOLS_URL_PARAMETER]: callbackUrl } : { [CALL_ID_PARAMETER]: callId };
  }

  private nextSequence(): string {
    return String(++this.sequence);
  }

  /** Dials the bot; resolves once the socket is open. */
  protected open(): Promise<void> {
    const { url, authToken } = this.options;
    const headers: Record<string, string> = authToken ? { 'X-Twilio-Signature': twilioSignature(authToken, url) } : {};
    const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: MAX_FRAME_BYTES });
    this.ws = ws;
    return new Promise((resolve, reject) => {
      let opened = false;
      ws.once('open', () => {
        opened = true;
        resolve();
      });
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`the bot refused the stream: HTTP ${res.statusCode ?? 0}`));
        res.resume();
        ws.terminate();
      });
      ws.on('error', (err) => {
        if (!opened) reject(err);
      });
      ws.on('message', (data: Buffer) => this.onMessage(parseBotMessage(data.toString('utf8'))));
      ws.on('close', () => {
        if (opened) this.peerClosed();
      });
    });
  }

  private onMessage(message: BotMessage | null): void {
    if (this.closed || !message) return;
    switch (message.event) {
      case 'media':
        return this.utterances.audio(muLawToPcm(Buffer.from(message.media.payload, 'base64')));
      case 'mark':
        this.utterances.end();
        // Twilio echoes a mark once the audio before it has played; mivas's pacer owns playback, so the echo follows the utterance's end.
        this.send({ event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.ids.streamSid, mark: { name: message.mark.name } });
        return;
      case 'clear':
        this.utterances.end();
        this.events.emit('callerSpeechStarted');
        return;
    }
  }
}
