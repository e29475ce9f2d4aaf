import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { muLawDecode, muLawEncode } from '../../audio/index.ts';
import { parseJsonAs } from '../../core/index.ts';

/**
 * The Twilio Media Streams WebSocket as Twilio speaks it to a bot (`<Connect><Stream>`,
 * bidirectional), in the field names of Twilio's reference "Media Streams - WebSocket Messages"
 * (https://www.twilio.com/docs/voice/media-streams/websocket-messages, read 2026-12-02):
 * Twilio sends `connected`, `start`, `media`, `mark` (the echo of a bot's mark once its audio has
 * played) and `stop`; the bot sends `media`, `mark` and `clear`. Every string Twilio numbers
 * (`sequenceNumber`, `chunk`, `timestamp`) is a decimal string, as in the reference's examples.
 */

/** Twilio's one media format: G.711 mu-law, 8 kHz, mono. */
export const TWILIO_RATE_HZ = 8_000;
export const TWILIO_ENCODING = 'audio/x-mulaw';
/** Twilio sends caller audio in 20 ms frames: 160 mu-law bytes. */
export const TWILIO_FRAME_BYTES = 160;
/** The custom parameter carrying mivas's call id (docs/platforms.md). */
export const CALL_ID_PARAMETER = 'mivas_call_id';
/** The custom parameter carrying the base URL of the call's platform routes (its tools: `<url>/tools/<name>`). */
export const TOOLS_URL_PARAMETER = 'mivas_tools_url';

/** The ids Twilio would give the stream and call: `MZ`/`CA` + 32 hex, as Twilio's SIDs look. */
export interface TwilioIds {
  readonly streamSid: string;
  readonly callSid: string;
  readonly accountSid: string;
}

/** Fresh stream and call SIDs for one relayed call (the account SID is the team's, or a placeholder). */
export function twilioIds(accountSid: string | undefined): TwilioIds {
  const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;
  return { streamSid: sid('MZ'), callSid: sid('CA'), accountSid: accountSid ?? `AC${'0'.repeat(32)}` };
}

/** The frames mivas sends, as Twilio does. */
export type TwilioFrame =
  | { readonly event: 'connected'; readonly protocol: 'Call'; readonly version: '1.0.0' }
  | {
      readonly event: 'start';
      readonly sequenceNumber: string;
      readonly start: {
        readonly streamSid: string;
        readonly accountSid: string;
        readonly callSid: string;
        readonly tracks: readonly ['inbound'];
        readonly customParameters: Readonly<Record<string, string>>;
        readonly mediaFormat: { readonly encoding: typeof TWILIO_ENCODING; readonly sampleRate: typeof TWILIO_RATE_HZ; readonly channels: 1 };
      };
      readonly streamSid: string;
    }
  | { readonly event: 'media'; readonly sequenceNumber: string; readonly media: { readonly track: 'inbound'; readonly chunk: string; readonly timestamp: string; readonly payload: string }; readonly streamSid: string }
  | { readonly event: 'mark'; readonly sequenceNumber: string; readonly streamSid: string; readonly mark: { readonly name: string } }
  | { readonly event: 'stop'; readonly sequenceNumber: string; readonly streamSid: string; readonly stop: { readonly accountSid: string; readonly callSid: string } };

/** The messages a bot may send back; anything else is ignored (Twilio ignores it too). */
export const botMessageSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('media'), streamSid: z.string(), media: z.object({ payload: z.string() }) }),
  z.object({ event: z.literal('mark'), streamSid: z.string(), mark: z.object({ name: z.string() }) }),
  z.object({ event: z.literal('clear'), streamSid: z.string() }),
]);
export type BotMessage = z.infer<typeof botMessageSchema>;

/** One bot frame, or null when it is not JSON or not a message the relay acts on. */
export function parseBotMessage(data: string): BotMessage | null {
  return parseJsonAs(botMessageSchema, data);
}

/** PCM16 little-endian to mu-law bytes. */
export function pcmToMuLaw(pcm: Buffer): Buffer {
  const out = Buffer.alloc(pcm.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = muLawEncode(pcm.readInt16LE(i * 2));
  return out;
}

/** Mu-law bytes to PCM16 little-endian. */
export function muLawToPcm(bytes: Buffer): Buffer {
  const out = Buffer.alloc(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) out.writeInt16LE(muLawDecode(bytes[i] ?? 0xff), i * 2);
  return out;
}

/**
 * `X-Twilio-Signature` as Twilio computes it for a request without form parameters (a WebSocket
 * upgrade): base64 HMAC-SHA1 of the full URL under the account's auth token (`twilio` 6.2.0,
 * `lib/webhooks/webhooks.js`, `getExpectedTwilioSignature`: the URL followed by the sorted
 * parameters, here none).
 */
export function twilioSignature(authToken: string, url: string): string {
  return createHmac('sha1', authToken).update(Buffer.from(url, 'utf8')).digest('base64');
}
