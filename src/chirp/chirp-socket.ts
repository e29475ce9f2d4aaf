import type { WebSocket } from 'ws';
import { TypedEmitter } from '../core/index.ts';

/** Events of a CHIRP connection. */
export type ChirpSocketEvents = {
  binary: [pcm: Buffer];
  text: [text: string];
  pong: [];
  close: [code: number];
};

/** The CHIRP transport a call needs; a seam so a call can be driven without a real socket. */
export interface ChirpSocket {
  readonly events: TypedEmitter<ChirpSocketEvents>;
  isOpen(): boolean;
  sendBinary(pcm: Buffer): void;
  sendText(text: string): void;
  ping(): void;
  /** Closes with a code and a reason clipped to 123 bytes (RFC 6455). */
  close(code: number, reason: string): void;
  /** Drops the connection without a close handshake (a dead peer). */
  terminate(): void;
  /** Stops reading from the peer (TCP back-pressure holds the rest at the sender); a flooding caller. */
  pause(): void;
}

function clipReason(reason: string): string {
  const buf = Buffer.from(reason);
  return buf.length <= 123 ? reason : buf.subarray(0, 123).toString('utf8').replace(/\uFFFD$/, '');
}

/** Wraps a `ws` WebSocket as a ChirpSocket. */
export function wrapWebSocket(ws: WebSocket): ChirpSocket {
  const events = new TypedEmitter<ChirpSocketEvents>();
  ws.on('message', (data, isBinary) => {
    // ws hands over a Buffer (binaryType nodebuffer); Buffer.from(buffer) would copy every frame.
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) events.emit('binary', buf);
    else events.emit('text', buf.toString('utf8'));
  });
  ws.on('pong', () => events.emit('pong'));
  ws.on('close', (code) => events.emit('close', code));
  ws.on('error', () => {
    /* 'close' follows every error; the call ends there */
  });
  const isOpen = (): boolean => ws.readyState === ws.OPEN;
  return {
    events,
    isOpen,
    sendBinary: (pcm) => {
      if (isOpen()) ws.send(pcm, { binary: true });
    },
    sendText: (text) => {
      if (isOpen()) ws.send(text, { binary: false });
    },
    ping: () => {
      if (isOpen()) ws.ping();
    },
    close: (code, reason) => {
      if (isOpen()) ws.close(code, clipReason(reason));
    },
    terminate: () => ws.terminate(),
    pause: () => ws.pause(),
  };
}
