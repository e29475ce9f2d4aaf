import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { DRAIN_GRACE_MS, MAX_QUEUED_MESSAGES, MESSAGES_PER_S, OpenEnvSockets } from '../../../src/server/openenv-sockets.ts';

/** The part of a `ws` socket the watch uses, recording what was done to it. */
class FakeSocket extends EventEmitter {
  bufferedAmount = 0;
  paused = false;
  pings = 0;
  closedWith: [number, string] | null = null;
  terminated = false;
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
  ping(): void {
    this.pings++;
  }
  close(code: number, reason: string): void {
    this.closedWith = [code, reason];
  }
  terminate(): void {
    this.terminated = true;
    this.emit('close', 1006);
  }
}

const LIMITS = { max: 2, idleMs: 60_000, episodeIdleMs: 900_000, pingMs: 20_000, bufferBytes: 1024 * 1024 };

function rig(hasEpisode = false) {
  const clock = new ManualClock();
  const sockets = new OpenEnvSockets(LIMITS, clock);
  const socket = new FakeSocket();
  const watch = sockets.watch(socket as unknown as WebSocket, () => hasEpisode);
  // Answer every ping, as a reading client does, unless a test stops it.
  let answering = true;
  socket.ping = () => {
    socket.pings++;
    if (answering) socket.emit('pong');
  };
  return { clock, sockets, socket, watch, stopAnswering: () => (answering = false) };
}

describe('OpenEnv socket bounds', () => {
  it('counts open sockets against the cap and frees a place when one closes', () => {
    const { sockets, socket, clock } = rig();
    sockets.watch(new FakeSocket() as unknown as WebSocket, () => false);
    expect(sockets.count()).toBe(2);
    expect(sockets.isFull()).toBe(true);
    socket.emit('close', 1000);
    expect(sockets.count()).toBe(1);
    expect(sockets.isFull()).toBe(false);
    clock.advance(LIMITS.idleMs * 2);
    expect(socket.closedWith).toBeNull();
  });

  it('closes a socket without an episode that sends nothing for the idle limit; a message restarts it', () => {
    const { clock, socket, watch } = rig();
    clock.advance(LIMITS.idleMs - 1_000);
    watch.received();
    watch.answered();
    clock.advance(LIMITS.idleMs - 1_000);
    expect(socket.closedWith).toBeNull();
    clock.advance(1_000);
    expect(socket.closedWith).toEqual([1001, 'idle for 60 s']);
    clock.advance(1_000);
    expect(socket.terminated).toBe(true);
  });

  it('gives a socket with a live episode the episode idle limit', () => {
    const { clock, socket } = rig(true);
    clock.advance(LIMITS.idleMs * 3);
    expect(socket.closedWith).toBeNull();
    clock.advance(LIMITS.episodeIdleMs);
    expect(socket.closedWith?.[0]).toBe(1001);
  });

  it('pings every interval and drops a peer that did not answer the previous ping', () => {
    const { clock, socket, watch, stopAnswering } = rig();
    for (let i = 0; i < 2; i++) {
      watch.received();
      watch.answered();
      clock.advance(LIMITS.pingMs);
    }
    expect(socket.pings).toBe(2);
    expect(socket.terminated).toBe(false);
    stopAnswering();
    clock.advance(LIMITS.pingMs);
    expect(socket.terminated).toBe(false);
    clock.advance(LIMITS.pingMs);
    expect(socket.terminated).toBe(true);
  });

  it('stops reading while too many messages wait for an answer', () => {
    const { socket, watch } = rig();
    for (let i = 0; i < MAX_QUEUED_MESSAGES - 1; i++) watch.received();
    expect(socket.paused).toBe(false);
    watch.received();
    expect(socket.paused).toBe(true);
    watch.answered();
    expect(socket.paused).toBe(false);
  });

  it('stops reading while the peer leaves its replies unread, and reads again once they drain', () => {
    const { clock, socket, watch } = rig();
    socket.bufferedAmount = LIMITS.bufferBytes;
    watch.sent();
    expect(socket.paused).toBe(false);
    socket.bufferedAmount = LIMITS.bufferBytes + 1;
    watch.sent();
    expect(socket.paused).toBe(true);
    clock.advance(1_000);
    expect(socket.paused).toBe(true);
    socket.bufferedAmount = LIMITS.bufferBytes / 2;
    clock.advance(100);
    expect(socket.paused).toBe(false);
    expect(socket.closedWith).toBeNull();
  });

  it('closes, then drops, a peer that does not read its replies within the grace', () => {
    const { clock, socket, watch } = rig();
    socket.bufferedAmount = LIMITS.bufferBytes * 4;
    watch.sent();
    clock.advance(DRAIN_GRACE_MS - 100);
    expect(socket.closedWith).toBeNull();
    clock.advance(200);
    expect(socket.closedWith).toEqual([1008, 'the client does not read its replies']);
    expect(socket.terminated).toBe(false);
    clock.advance(1_000);
    expect(socket.terminated).toBe(true);
  });
});

describe('OpenEnv message turns', () => {
  it('answers a burst at MESSAGES_PER_S at most, each after a turn of the event loop', async () => {
    const { clock, watch } = rig();
    let answered = 0;
    const all = Array.from({ length: MESSAGES_PER_S + 2 }, () => watch.turn().then(() => answered++));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(MESSAGES_PER_S);
    clock.advance(1000 / MESSAGES_PER_S);
    await Promise.resolve();
    expect(answered).toBe(MESSAGES_PER_S + 1);
    clock.advance(1000 / MESSAGES_PER_S);
    await Promise.all(all);
    expect(answered).toBe(MESSAGES_PER_S + 2);
  });
});
