import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { dialOpeningLine } from '../../../src/caller/index.ts';
import { decodeCallerFrame, encodeServerFrame, type CallerFrame } from '../../../src/chirp/index.ts';
import { seededIds } from '../../../src/core/index.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let wss: WebSocketServer | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
  wss = null;
});

/** A stand-in server: greets with a broken frame first, then a proper utterance, and records what the caller sends. */
function greetingServer(): Promise<{ url: string; received: { raw: string; frame: CallerFrame | null }[]; binaryBytes: () => number }> {
  const received: { raw: string; frame: CallerFrame | null }[] = [];
  let binaryBytes = 0;
  const ids = seededIds('server');
  return new Promise((resolve) => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = wss?.address() as AddressInfo;
      resolve({ url: `ws://127.0.0.1:${port}/`, received, binaryBytes: () => binaryBytes });
    });
    wss.on('connection', (ws: WebSocket) => {
      const send = (text: string): void => ws.send(text, { binary: false });
      send('not json at all');
      send('{"type":"speech.started","data":{}}');
      send(encodeServerFrame({ type: 'speech.started', utteranceId: 'u_0123456789ab' }, ids, Date.now()));
      ws.send(Buffer.alloc(640), { binary: true });
      send(encodeServerFrame({ type: 'speech.completed', utteranceId: 'u_0123456789ab' }, ids, Date.now()));
      send(encodeServerFrame({ type: 'mark', name: 'u_0123456789ab' }, ids, Date.now()));
      ws.on('message', (data, isBinary) => {
        if (isBinary) {
          binaryBytes += (data as Buffer).length;
          return;
        }
        const raw = String(data);
        const decoded = decodeCallerFrame(raw);
        received.push({ raw, frame: decoded.ok ? decoded.frame : null });
        // The caller's utterance and the mark echo are both in: hang up as the agent would.
        if (received.some((r) => r.frame?.type === 'speech.completed') && received.some((r) => r.frame?.type === 'mark')) ws.close(1000, 'done');
      });
    });
  });
}

describe('dialOpeningLine over the codec', () => {
  it('ignores frames that do not decode, echoes the mark and speaks its line in codec frames', async () => {
    const server = await greetingServer();
    const pcm = Buffer.alloc(640 * 3 + 320);
    const report = await dialOpeningLine({
      url: server.url,
      callId: 'loc_0123456789ab',
      taskId: null,
      runId: null,
      auth: null,
      openingLine: 'Hello.',
      synth: { engine: 'tones', synthesize: () => Promise.resolve(pcm) },
      paced: false,
      timeoutMs: 20_000,
      ids: seededIds('caller'),
    });
    expect(report).toMatchObject({ closeCode: 1000, closeReason: 'done', timedOut: false, agentUtterances: 1, agentAudioBytes: 640, callerAudioBytes: pcm.length });
    expect(server.binaryBytes()).toBe(pcm.length);
    const frames = server.received.map((r) => r.frame);
    expect(frames.every((f) => f !== null)).toBe(true);
    const started = frames.find((f) => f?.type === 'speech.started');
    expect(started).toMatchObject({ type: 'speech.started', utteranceId: expect.stringMatching(/^c_[0-9a-f]{12}$/) });
    expect(frames).toContainEqual({ type: 'speech.completed', utteranceId: started && 'utteranceId' in started ? started.utteranceId : 'missing' });
    expect(frames).toContainEqual({ type: 'mark', name: 'u_0123456789ab' });
    for (const { raw } of server.received) {
      const json = JSON.parse(raw) as Record<string, unknown>;
      expect(Object.keys(json)).toEqual(['type', 'id', 'ts_ms', 'data']);
      expect(json.id).toMatch(UUID_V4);
      expect(Number.isInteger(json.ts_ms)).toBe(true);
    }
  });
});
