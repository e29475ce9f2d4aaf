import { describe, expect, it } from 'vitest';
import { RawChirpClient } from '../support/chirp-client.ts';
import { startRealtimeRig } from '../support/realtime-call.ts';
import type { StandInDialect } from '../support/realtime-server.ts';

/** Sends a ping and resolves on the pong: every frame sent before it has been read by the server. */
function roundTrip(client: RawChirpClient): Promise<void> {
  return new Promise((resolve) => {
    client.ws.once('pong', () => resolve());
    client.ws.ping();
  });
}

/** A quiet 300 Hz tone: ordinary speech-band audio at 16 kHz. */
function callerAudio(bytes: number): Buffer {
  const pcm = Buffer.alloc(bytes);
  for (let i = 0; i + 1 < bytes; i += 2) pcm.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 300 * (i / 2)) / 16_000)), i);
  return pcm;
}

describe.each([
  ['openai/realtime', 'ga', 1.5],
  ['xai/grok-voice', 'ga', 1],
  ['qwen/omni-realtime', 'beta', 1],
] as const)('%s: caller audio at the provider rate (wire.md §6.7)', (harness: string, dialect: StandInDialect, ratio: number) => {
  it(`accepts CHIRP frames of 320, 640 and 333 bytes and forwards ${ratio} × the bytes, within one frame`, async () => {
    const rig = await startRealtimeRig(harness, {}, {}, dialect);
    try {
      const client = await RawChirpClient.connect(rig.server.wsUrl, { 'X-Simulation-Result-Id': `rt_rates_${harness.replace(/\W/g, '_')}` });
      const conn = await rig.standIn.nextConnection();
      await conn.next('response.create');
      let sent = 0;
      for (const frameBytes of [320, 640, 333]) {
        for (let i = 0; i < 50; i++) {
          client.sendBinary(callerAudio(frameBytes));
          sent += frameBytes;
        }
      }
      await roundTrip(client);
      // The server has forwarded everything it read; a call's output on the same socket comes after those appends.
      const probe = conn.respond([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
      await conn.toolOutput(probe.callIds[0] ?? '');
      const evenBytes = sent - (sent % 2);
      // One frame at the provider rate; the resampler's filter may still hold a few samples.
      expect(Math.abs(conn.appendedBytes() - evenBytes * ratio)).toBeLessThanOrEqual(640 * ratio);
      client.close(1000);
      await client.closed;
    } finally {
      await rig.close();
    }
  });
});
