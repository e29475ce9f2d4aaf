import type WebSocket from 'ws';

/**
 * A provider socket's setup, settled once: by the message that says it is ready, by a refusal or
 * a close, or by the deadline. The sessions that dial a WebSocket and wait for a first message
 * (GPT-Live, Phonic, the ElevenLabs relay) share it, so each keeps only its own messages.
 */
export interface SocketSetup {
  /** Resolves when the setup succeeded, rejects with why it did not. */
  readonly done: Promise<void>;
  /** Settles the setup (null: ready); later calls change nothing. */
  settle(err: Error | null): void;
  isSettled(): boolean;
}

/** A setup that fails with `timeoutMessage` unless settled within `timeoutMs`. */
export function socketSetup(timeoutMs: number, timeoutMessage: string): SocketSetup {
  let settled = false;
  let resolve: () => void = () => undefined;
  let reject: (err: Error) => void = () => undefined;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const settle = (err: Error | null): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if (err) reject(err);
    else resolve();
  };
  const timer = setTimeout(() => settle(new Error(timeoutMessage)), timeoutMs);
  return { done, settle, isSettled: () => settled };
}

/** A refused upgrade fails the setup with the status, and the socket is dropped. */
export function refuseOnUpgradeFailure(ws: WebSocket, setup: SocketSetup, refused: string): void {
  ws.once('unexpected-response', (_req, res) => {
    setup.settle(new Error(`${refused}: HTTP ${res.statusCode ?? 0}`));
    res.resume();
    ws.terminate();
  });
}
