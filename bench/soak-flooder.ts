/**
 * The soak's hostile clients, run in their own process (pinned to the load core) so that their
 * sending never delays the soak's bystander caller: a caller flooding audio or tiny text frames as
 * fast as the socket takes them, and a crowd of HTTP clients that send headers and then trickle a
 * body. Prints one JSON line of figures. Loopback only; every loop is bounded in count and time.
 *
 *   node --import tsx bench/soak-flooder.ts '{"mode":"audio","url":"ws://127.0.0.1:P/","callId":"x","maxBytes":419430400}'
 */
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';

interface WsFlood {
  readonly mode: 'audio' | 'text';
  readonly url: string;
  readonly callId: string;
  /** audio: stop after this many bytes. */
  readonly maxBytes?: number;
  /** text: stop after this many frames. */
  readonly maxFrames?: number;
  readonly maxMs: number;
  readonly headers?: Record<string, string>;
}

interface SlowHttp {
  readonly mode: 'slow-http';
  readonly port: number;
  readonly connections: number;
  /** The request line and headers, up to (not including) the blank line; Content-Length is added. */
  readonly head: string;
  readonly maxMs: number;
  /** Connections opened per second (they are opened in small groups every 25 ms). */
  readonly perSecond: number;
}

interface OpenEnvFlood {
  readonly mode: 'openenv-flood';
  readonly port: number;
  readonly path: string;
  readonly maxMs: number;
}

interface OpenEnvIdle {
  readonly mode: 'openenv-idle';
  readonly url: string;
  readonly sockets: number;
  /** How long the open ones are held (idle) before this process closes them. */
  readonly holdMs: number;
}

type Job = WsFlood | SlowHttp | OpenEnvFlood | OpenEnvIdle;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function flood(job: WsFlood): Promise<Record<string, unknown>> {
  if (!/^ws:\/\/127\.0\.0\.1:\d+\//.test(job.url)) throw new Error('the flooder only dials 127.0.0.1');
  const ws = new WebSocket(job.url, { headers: { 'X-Simulation-Result-Id': job.callId, ...job.headers }, perMessageDeflate: false });
  ws.on('error', () => undefined);
  let closeCode: number | null = null;
  const closed = new Promise<void>((resolve) => ws.once('close', (code) => ((closeCode = code), resolve())));
  const opened = await Promise.race([new Promise<boolean>((resolve) => ws.once('open', () => resolve(true))), closed.then(() => false), sleep(10_000).then(() => false)]);
  const started = performance.now();
  let bytes = 0;
  let frames = 0;
  const chunk = Buffer.alloc(32_768); // 1 s of silence per frame
  const tiny = 'x';
  const maxBytes = job.maxBytes ?? 0;
  const maxFrames = job.maxFrames ?? 0;
  while (opened && ws.readyState === ws.OPEN && performance.now() - started < job.maxMs) {
    if (job.mode === 'audio' ? bytes >= maxBytes : frames >= maxFrames) break;
    // Keep at most 4 MiB queued in this process: as fast as the server reads, no faster.
    if (ws.bufferedAmount > 4 * 1024 * 1024) {
      await turn();
      continue;
    }
    for (let k = 0; k < (job.mode === 'audio' ? 16 : 2_000); k++) {
      if (job.mode === 'audio') {
        ws.send(chunk, { binary: true });
        bytes += chunk.length;
      } else {
        ws.send(tiny, { binary: false });
        frames++;
      }
    }
    await turn();
  }
  const sendMs = performance.now() - started;
  if (ws.readyState === ws.OPEN) ws.close(1000, 'flood done');
  await Promise.race([closed, sleep(10_000)]);
  return { opened, bytes, frames, sendMs: Math.round(sendMs), closeCode };
}

async function slowHttp(job: SlowHttp): Promise<Record<string, unknown>> {
  const started = performance.now();
  const sockets: { socket: Socket; firstLine: string; closedAtMs: number | null }[] = [];
  let refused = 0;
  const perTick = Math.max(1, Math.round(job.perSecond / 40));
  for (let i = 0; i < job.connections; i++) {
    if (i > 0 && i % perTick === 0) await sleep(25);
    const entry = { socket: connect(job.port, '127.0.0.1'), firstLine: '', closedAtMs: null as number | null };
    entry.socket.on('error', () => undefined);
    entry.socket.on('data', (c: Buffer) => {
      if (!entry.firstLine) entry.firstLine = c.toString('latin1').split('\r\n')[0] ?? '';
    });
    entry.socket.once('close', () => (entry.closedAtMs = performance.now() - started));
    const ok = await new Promise<boolean>((resolve) => {
      entry.socket.once('connect', () => resolve(true));
      entry.socket.once('error', () => resolve(false));
    });
    if (!ok) {
      refused++;
      continue;
    }
    entry.socket.write(`${job.head}\r\nContent-Length: 1000000\r\n\r\n{`);
    sockets.push(entry);
  }
  // Trickle one byte a second on every socket still open, until all are closed or time is up.
  while (performance.now() - started < job.maxMs && sockets.some((s) => s.closedAtMs === null)) {
    await sleep(1_000);
    for (const s of sockets) if (s.closedAtMs === null) s.socket.write('1');
  }
  const closed = sockets.filter((s) => s.closedAtMs !== null).map((s) => s.closedAtMs as number).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const s of sockets) statuses[s.firstLine.slice(9, 12) || 'none'] = (statuses[s.firstLine.slice(9, 12) || 'none'] ?? 0) + 1;
  for (const s of sockets) s.socket.destroy();
  return { opened: sockets.length, refused, closedByServer: closed.length, statuses, closeP50Ms: Math.round(closed[Math.floor(closed.length / 2)] ?? -1), closeMaxMs: Math.round(closed.at(-1) ?? -1) };
}

/**
 * An OpenEnv client that upgrades, then writes `{"type":"state"}` frames (masked with a zero key)
 * as fast as its TCP socket takes them and never reads a reply. Ends when the server drops it.
 */
async function openEnvFlood(job: OpenEnvFlood): Promise<Record<string, unknown>> {
  const payload = Buffer.from('{"type":"state"}');
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
  const frames = Buffer.concat(Array.from({ length: 2_978 }, () => frame));
  const socket = connect(job.port, '127.0.0.1');
  socket.on('error', () => undefined);
  let sent = 0;
  let head = '';
  let openedAt = 0;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET ${job.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.from('soak-openenv-fld').toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  const upgraded = await new Promise<boolean>((resolve) => {
    const onData = (c: Buffer): void => {
      head += c.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      resolve(head.startsWith('HTTP/1.1 101'));
    };
    socket.on('data', onData);
    void closed.then(() => resolve(false));
  });
  openedAt = performance.now();
  const pump = (): void => {
    while (!socket.destroyed && socket.write(frames)) sent += 2_978;
    if (!socket.destroyed) socket.once('drain', pump);
  };
  if (upgraded) pump();
  const dropped = await Promise.race([closed.then(() => true), sleep(job.maxMs).then(() => false)]);
  socket.destroy();
  return { upgraded, dropped, sent, closedAfterMs: Math.round(performance.now() - openedAt) };
}

/** Opens OpenEnv sockets (in groups of 50 every 200 ms) and holds the open ones idle; counts refusals and whether the server closed them. */
async function openEnvIdle(job: OpenEnvIdle): Promise<Record<string, unknown>> {
  if (!/^ws:\/\/127\.0\.0\.1:\d+\//.test(job.url)) throw new Error('the flooder only dials 127.0.0.1');
  const open: WebSocket[] = [];
  const statuses: Record<string, number> = {};
  const refusedClosed: Promise<boolean>[] = [];
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const ws = new WebSocket(job.url, { perMessageDeflate: false });
      ws.on('error', () => undefined);
      ws.once('open', () => {
        open.push(ws);
        statuses['101'] = (statuses['101'] ?? 0) + 1;
        resolve();
      });
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
        refusedClosed.push(Promise.race([new Promise<boolean>((done) => res.socket.once('close', () => done(true))), sleep(5_000).then(() => false)]));
        resolve();
      });
    });
  for (let i = 0; i < job.sockets; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, job.sockets - i) }, one));
    await sleep(200);
  }
  const closedByServer = (await Promise.all(refusedClosed)).filter(Boolean).length;
  await sleep(job.holdMs);
  const stillOpen = open.filter((ws) => ws.readyState === ws.OPEN).length;
  for (const ws of open) ws.terminate();
  return { statuses, refused: refusedClosed.length, closedByServer, stillOpen };
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job & { readonly waitForGo?: boolean };
if (job.waitForGo) {
  // Started ahead of the fault (its start-up costs CPU): say so, then wait for a line on stdin.
  console.log('ready');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.pause();
}
const figures = job.mode === 'slow-http' ? await slowHttp(job) : job.mode === 'openenv-flood' ? await openEnvFlood(job) : job.mode === 'openenv-idle' ? await openEnvIdle(job) : await flood(job);
console.log(JSON.stringify(figures));
