import { describe, expect, it } from 'vitest';
import { createResampler, muLawDecode, muLawEncode } from '../../../src/audio/index.ts';
import { decodeModemAll, encodeModem } from '../../support/text-modem.ts';

/** PCM16 through a G.711 mu-law byte and back, sample by sample (what a Twilio Media Streams leg does). */
function throughMuLaw(pcm: Buffer): Buffer {
  const out = Buffer.alloc(pcm.length);
  for (let i = 0; i < pcm.length >> 1; i++) out.writeInt16LE(muLawDecode(muLawEncode(pcm.readInt16LE(i * 2))), i * 2);
  return out;
}

const LINES = ["Hi, I'd like to book a repair visit for Wednesday, October seventh.", "Yes, that's right.", "Thanks, that's everything.", 'Hello there', 'Ünïcode ok?', 'Numbers 12345 and symbols #@!'];

describe('the test modem through an 8 kHz mu-law leg', () => {
  const spoken = Buffer.concat(LINES.flatMap((line) => [encodeModem(line, 16_000), Buffer.alloc(3_200)]));

  it('decodes every caller line after 16 kHz → 8 kHz → mu-law → PCM', () => {
    const narrow = throughMuLaw(createResampler(16_000, 8_000).process(spoken));
    expect(decodeModemAll(narrow, 8_000)).toEqual(LINES);
  });

  it('decodes every agent line spoken at 8 kHz in mu-law and brought back to 16 kHz (the relay\'s return leg)', () => {
    const agent = throughMuLaw(Buffer.concat(LINES.map((line) => encodeModem(line, 8_000))));
    expect(decodeModemAll(createResampler(8_000, 16_000).process(agent), 16_000)).toEqual(LINES);
  });

  it('still decodes at the 24 kHz realtime rate', () => {
    expect(decodeModemAll(createResampler(16_000, 24_000).process(spoken), 24_000)).toEqual(LINES);
  });
});
