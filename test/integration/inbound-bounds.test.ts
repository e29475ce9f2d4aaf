import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createSpeechSynth } from '../../src/audio/index.ts';
import { dialOpeningLine, openingLineOf, type CallerReport } from '../../src/caller/index.ts';
import { summarySchema, type Summary } from '../../src/snapshot/index.ts';
import { loadControlPack } from '../support/call-record.ts';
import { pollHealthApart, type HealthPolls } from '../support/health-poller.ts';
import { pollUntil, spawnServe, type ServeProcess } from '../support/serve-process.ts';

// Every inbound socket is bounded (docs/reliability.md "OpenEnv sockets", "Refusals close their
// connection"): against a real `mivas serve` on loopback, a live paced CHIRP call runs while one
// OpenEnv client floods `state` messages and never reads and 1,000 OpenEnv sockets are opened and
// left idle (the cap takes the first MIVAS_RL_MAX_SOCKETS, the rest get 503 and are closed); then
// 1,100 unauthenticated requests hit the tool and RL routes. /health is polled throughout.

const RL_TOKEN = 'inbound-rl-token';
const TOOLS_TOKEN = 'inbound-tools-token';
const MAX_SOCKETS = 256;
const SOCKETS = 1_000;
const UNAUTHENTICATED = 1_100;
/** RSS the faults may add to the server (the probe saw 1.2 GB from the flood alone). */
const RSS_GROWTH_BOUND_MB = 200;
/** The 100 ms for /health, with 2.5× slack for a shared 2-core machine: the median poll. */
const HEALTH_BOUND_MS = 250;
/**
 * No poll and no frame interval may show a freeze: the probe saw /health take 7.5–9.5 s and audio
 * go 4.85 s off pace. The soak's freeze bound is 500 ms; this test runs beside other work on 2
 * shared cores (load averages of 16 seen, a slowest poll of 1.2 s with a 10 ms median), so 4x that.
 */
const FREEZE_BOUND_MS = 2_000;
const OPENENV_PATH = 'rl/control-industry/openenv/ws';
/** The server's ping interval here: a peer that answers no ping is dropped within two. */
const PING_S = 5;

function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

/** One OpenEnv upgrade: open (and left idle), or refused with its status, and whether the server then closed the connection. */
function openEnvSocket(wsUrl: string): Promise<{ ws: WebSocket | null; status: number; closedByServer: Promise<boolean> }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${wsUrl}${OPENENV_PATH}`, { headers: { authorization: `Bearer ${RL_TOKEN}` } });
    ws.once('open', () => resolve({ ws, status: 101, closedByServer: Promise.resolve(false) }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      const closedByServer = new Promise<boolean>((done) => {
        res.socket.once('close', () => done(true));
        setTimeout(() => done(false), 5_000).unref();
      });
      resolve({ ws: null, status: res.statusCode ?? 0, closedByServer });
    });
    ws.once('error', () => undefined);
  });
}

/** `{"type":"state"}` as client text frames (masked with a zero key, so the payload reads as is), 64 KiB of them. */
function stateFrames(): Buffer {
  const payload = Buffer.from('{"type":"state"}');
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
  return Buffer.concat(Array.from({ length: Math.floor(65_536 / frame.length) }, () => frame));
}

/**
 * A client that upgrades, then writes `state` messages as fast as its TCP socket takes them and
 * never reads a reply (its socket is paused after the 101). Written as ready-made frames so the
 * flood costs this process almost nothing. Resolves when the server drops it.
 */
function nonReadingFlooder(port: number): Promise<{ sent: number; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const frames = stateFrames();
    const perBuffer = frames.length / 22;
    let sent = 0;
    let openedAt = 0;
    let head = '';
    socket.on('error', () => undefined);
    socket.write(`GET /${OPENENV_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.from('inbound-flooder!').toString('base64')}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${RL_TOKEN}\r\n\r\n`);
    const pump = (): void => {
      while (!socket.destroyed && socket.write(frames)) sent += perBuffer;
      if (!socket.destroyed) socket.once('drain', pump);
    };
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`the flooder was refused: ${head.split('\r\n')[0]}`));
      socket.pause();
      openedAt = performance.now();
      pump();
    };
    socket.on('data', onData);
    socket.once('close', () => resolve({ sent, closedAfterMs: performance.now() - openedAt }));
    setTimeout(() => socket.destroyed || reject(new Error('the server never dropped the non-reading client')), 60_000).unref();
  });
}

/** One unauthenticated request over its own TCP connection that announces a 1 MB body and sends a little: its status and whether the server closed the connection. */
function unauthenticated(port: number, path: string): Promise<{ status: number; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), closed: false });
    }, 10_000);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), closed: true });
    });
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\nX-Mivas-Call-Id: probe_1\r\n\r\n{"a":"`);
  });
}

async function inBatches<T>(count: number, size: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, j) => one(i + j)))));
  return out;
}

describe('inbound sockets are bounded (issue 26)', () => {
  let server: ServeProcess;
  let bootRss: number;
  let peakRss = 0;
  let control: Summary;
  let faulted: Summary;
  let report: CallerReport;
  let health: HealthPolls;
  let sockets: Awaited<ReturnType<typeof openEnvSocket>>[];
  let refusedClosed: boolean[];
  let flood: { sent: number; closedAfterMs: number };
  let unauth: { status: number; closed: boolean }[];
  let healthAfter: { openenv_sockets: number; status: string };

  beforeAll(async () => {
    server = await spawnServe({ MIVAS_HARNESS: 'scripted', MIVAS_PACK: 'control-industry', MIVAS_RL: '1', MIVAS_RL_TOKEN: RL_TOKEN, MIVAS_TOOLS_TOKEN: TOOLS_TOKEN, MIVAS_RL_MAX_SOCKETS: String(MAX_SOCKETS), MIVAS_PING_INTERVAL_S: String(PING_S) });
    const pid = server.child.pid ?? 0;
    const synth = await createSpeechSynth(16_000);
    const pack = await loadControlPack();
    const dial = (callId: string) => dialOpeningLine({ url: server.wsUrl, callId, taskId: 'S-E1', runId: null, auth: null, openingLine: openingLineOf(pack.tasks.get('S-E1')?.intent ?? ''), synth, paced: true, timeoutMs: 120_000 });
    const summaryOf = (callId: string): Summary => summarySchema.parse(JSON.parse(readFileSync(join(server.dataDir, 'snapshots', 'control-industry', `${callId}.summary.json`), 'utf8')));
    // The control: the same call on the same server with no fault.
    await dial('inbound_control');
    await pollUntil(() => { try { control = summaryOf('inbound_control'); return true; } catch { return false; } });
    bootRss = rssMb(pid);
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 100);
    const healthWatch = pollHealthApart(server.httpUrl);
    const call = dial('inbound_live');
    await pollUntil(async () => ((await (await fetch(`${server.httpUrl}/health`)).json()) as { live_calls: number }).live_calls === 1);
    const flooding = nonReadingFlooder(server.port);
    // 1,000 upgrades spread over about 4 s (50 every 200 ms), then held idle beside the call.
    sockets = await inBatches(SOCKETS, 50, async () => {
      const opened = await openEnvSocket(server.wsUrl);
      await new Promise((r) => setTimeout(r, 200));
      return opened;
    });
    refusedClosed = await Promise.all(sockets.filter((x) => x.status !== 101).map((x) => x.closedByServer));
    flood = await flooding;
    report = await call;
    // Then, after the call, 1,100 unauthenticated requests on the tool and RL routes.
    unauth = await inBatches(UNAUTHENTICATED, 100, (i) => unauthenticated(server.port, i % 2 ? '/tools/check_date' : '/rl/control-industry/seed_session'));
    health = await healthWatch.stop();
    clearInterval(rssTimer);
    healthAfter = (await (await fetch(`${server.httpUrl}/health`)).json()) as { openenv_sockets: number; status: string };
    await pollUntil(() => { try { faulted = summaryOf('inbound_live'); return true; } catch { return false; } });
  }, 240_000);

  afterAll(() => {
    for (const s of sockets ?? []) s.ws?.terminate();
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    if (server) rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('takes OpenEnv sockets up to the cap and refuses the rest with 503 before any 101, closing each', () => {
    const open = sockets.filter((s) => s.status === 101).length;
    // The flooder holds one place until it is dropped, which may come before the last upgrades.
    expect([MAX_SOCKETS - 1, MAX_SOCKETS]).toContain(open);
    expect(sockets.filter((s) => s.status === 503)).toHaveLength(SOCKETS - open);
    expect(refusedClosed.every(Boolean)).toBe(true);
    expect(healthAfter.openenv_sockets).toBe(open);
  });

  it('answers a client that floods and never reads at a bounded rate, then drops it', () => {
    // It got thousands of messages out, but the server answered at most MESSAGES_PER_S a second and
    // dropped it when it left a ping unanswered (its send-buffer bound: test/unit/server/openenv-sockets.test.ts).
    expect(flood.sent).toBeGreaterThan(10_000);
    expect(flood.closedAfterMs).toBeGreaterThan(PING_S * 1000 - 500);
    expect(flood.closedAfterMs).toBeLessThan(PING_S * 3 * 1000);
  });

  it('answers each of 1,100 unauthenticated tool and RL requests with 401 and closes its connection', () => {
    expect(unauth.filter((u) => u.status === 401)).toHaveLength(UNAUTHENTICATED);
    expect(unauth.filter((u) => u.closed)).toHaveLength(UNAUTHENTICATED);
  });

  it('keeps the server small and /health quick and healthy throughout', () => {
    expect(peakRss - bootRss, `boot ${bootRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB`).toBeLessThan(RSS_GROWTH_BOUND_MB);
    expect(health.polls).toBeGreaterThan(20);
    expect(health.statuses).toEqual([200]);
    expect(health.medianMs, JSON.stringify(health)).toBeLessThan(HEALTH_BOUND_MS);
    expect(health.slowestMs, JSON.stringify(health)).toBeLessThan(FREEZE_BOUND_MS);
  });

  it('keeps the live call paced: no frame interval shows a freeze', () => {
    expect(report.closeCode).toBe(1000);
    // The same audio went out paced: an interval counts only when its frame was already waiting, so
    // a stand-in chunk that arrives a moment late on a loaded machine takes one or two out of the count.
    expect(Math.abs((faulted.pacing?.intervals ?? 0) - (control.pacing?.intervals ?? -99))).toBeLessThanOrEqual(3);
    // Before the fix the flood alone held the loop for seconds (12 s off pace in this test). The
    // share of intervals off by > 5 ms is reported, not bounded: on 2 shared cores the control alone
    // ranged 4-26% between runs, so the soak (bench/soak.ts, `openenv`) holds that bound instead.
    expect(faulted.pacing?.max_off_ms, JSON.stringify({ faulted: faulted.pacing, control: control.pacing })).toBeLessThan(FREEZE_BOUND_MS);
  });
});
