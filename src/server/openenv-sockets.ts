import type { WebSocket } from 'ws';
import type { Clock, Timer } from '../core/index.ts';

/**
 * The bounds of OpenEnv WebSockets (docs/rl.md "Socket limits"), at the connection level only:
 * how many are open, how long one may sit idle, pings, and back-pressure both ways. What the
 * messages say is `OpenEnvSession`'s business (src/episodes/openenv.ts).
 */
export interface OpenEnvSocketLimits {
  /** Sockets open at once (MIVAS_RL_MAX_SOCKETS, lowered to fit the open-file limit). */
  readonly max: number;
  /** A socket without a live episode that sends nothing this long is closed (MIVAS_RL_SOCKET_IDLE_S). */
  readonly idleMs: number;
  /** The same for a socket with a live episode (MIVAS_RL_IDLE_S, when the desk reaps the episode too). */
  readonly episodeIdleMs: number;
  /** A ping goes out this often; a peer that has not answered the previous one is dropped (MIVAS_PING_INTERVAL_S). */
  readonly pingMs: number;
  /** Unsent reply bytes past which the socket is no longer read (MIVAS_RL_SOCKET_BUFFER_KB). */
  readonly bufferBytes: number;
}

/** Messages a socket has answered per second at most (and in a burst); the next one waits its turn. */
export const MESSAGES_PER_S = 200;
/** A peer whose unsent replies stay over the bound this long is dropped. */
export const DRAIN_GRACE_MS = 10_000;
/** Messages read but not answered yet, past which the socket is no longer read. */
export const MAX_QUEUED_MESSAGES = 32;
/** How often a socket held for its unread replies is looked at. */
const DRAIN_POLL_MS = 50;
/** A socket asked to close that has not closed this much later is dropped. */
const CLOSE_GRACE_MS = 1_000;

/** What a socket's message loop tells its watch. */
export interface SocketWatch {
  /** A message arrived: the idle clock restarts, and reading stops while too many wait for an answer. */
  received(): void;
  /** A message was answered. */
  answered(): void;
  /** A reply went out: reading stops while the peer leaves too much unread. */
  sent(): void;
  /**
   * Resolves when the next message may be answered: after a turn of the event loop, and no
   * sooner than MESSAGES_PER_S allows, so a burst of tiny messages neither holds the loop nor
   * takes more than its share of the CPU.
   */
  turn(): Promise<void>;
}

/** Every OpenEnv socket of the process: counted, and each watched from its upgrade to its close. */
export class OpenEnvSockets {
  private open = 0;
  private droppedCount = 0;

  private readonly limits: OpenEnvSocketLimits;
  private readonly clock: Clock;

  constructor(limits: OpenEnvSocketLimits, clock: Clock) {
    this.limits = limits;
    this.clock = clock;
  }

  get max(): number {
    return this.limits.max;
  }

  count(): number {
    return this.open;
  }

  /** Sockets closed or dropped by these bounds (idle, no pong, not reading) since start. */
  dropped(): number {
    return this.droppedCount;
  }

  isFull(): boolean {
    return this.open >= this.limits.max;
  }

  /** Watches one open socket until it closes; `hasEpisode` says which idle limit applies. */
  watch(socket: WebSocket, hasEpisode: () => boolean): SocketWatch {
    const { clock, limits } = this;
    this.open++;
    let lastMessageMs = clock.nowMs();
    let queued = 0;
    let heldSinceMs: number | null = null;
    let paused = false;
    let awaitingPong = false;
    let ended = false;
    let tokens = MESSAGES_PER_S;
    let refilledMs = clock.nowMs();
    const timers = new Set<Timer>();
    const after = (ms: number, fn: () => void): void => {
      const timer = clock.setTimer(ms, () => {
        timers.delete(timer);
        if (!ended) fn();
      });
      timers.add(timer);
    };
    const drop = (code: number, reason: string): void => {
      if (ended) return;
      this.droppedCount++;
      socket.close(code, reason);
      after(CLOSE_GRACE_MS, () => socket.terminate());
    };
    const setReading = (): void => {
      const stop = queued >= MAX_QUEUED_MESSAGES || heldSinceMs !== null;
      if (stop === paused) return;
      paused = stop;
      if (stop) socket.pause();
      else socket.resume();
    };
    const pollDrain = (): void => {
      if (heldSinceMs === null) return;
      if (socket.bufferedAmount <= limits.bufferBytes / 2) {
        heldSinceMs = null;
        setReading();
      } else if (clock.nowMs() - heldSinceMs >= DRAIN_GRACE_MS) {
        drop(1008, 'the client does not read its replies');
      } else {
        after(DRAIN_POLL_MS, pollDrain);
      }
    };
    const idleCheck = (): void => {
      const limit = hasEpisode() ? limits.episodeIdleMs : limits.idleMs;
      const idle = clock.nowMs() - lastMessageMs;
      if (idle >= limit) drop(1001, `idle for ${Math.round(limit / 1000)} s`);
      else after(Math.min(limit - idle, limits.idleMs), idleCheck);
    };
    const ping = (): void => {
      if (awaitingPong) {
        this.droppedCount++;
        socket.terminate();
        return;
      }
      awaitingPong = true;
      socket.ping();
      after(limits.pingMs, ping);
    };
    socket.on('pong', () => {
      awaitingPong = false;
    });
    socket.once('close', () => {
      ended = true;
      this.open--;
      for (const timer of timers) timer.cancel();
      timers.clear();
    });
    after(limits.idleMs, idleCheck);
    after(limits.pingMs, ping);
    return {
      received: () => {
        lastMessageMs = clock.nowMs();
        queued++;
        setReading();
      },
      answered: () => {
        queued = Math.max(0, queued - 1);
        setReading();
      },
      sent: () => {
        if (heldSinceMs !== null || socket.bufferedAmount <= limits.bufferBytes) return;
        heldSinceMs = clock.nowMs();
        setReading();
        after(DRAIN_POLL_MS, pollDrain);
      },
      turn: () =>
        new Promise<void>((resolve) => {
          const now = clock.nowMs();
          tokens = Math.min(MESSAGES_PER_S, tokens + ((now - refilledMs) * MESSAGES_PER_S) / 1000) - 1;
          refilledMs = now;
          // Resolves even after the close, so the message loop reaches its end and finishes the episode.
          if (tokens >= 0) setImmediate(resolve);
          else clock.setTimer((-tokens * 1000) / MESSAGES_PER_S, resolve);
        }),
    };
  }
}
