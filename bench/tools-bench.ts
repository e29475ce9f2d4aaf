import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadPack, type Pack } from '../src/packs/index.ts';
import { CallDatabases, ensureTemplate } from '../src/store/index.ts';
import { executeTool } from '../src/tools/index.ts';
import { ROOT, runOnLoadCore, runScript, startServerProcess, tempDir } from './bench-context.ts';
import { summarize, type LatencySummary } from './stats.ts';

/** A read and a write tool per pack, with arguments that succeed on the seed. */
/** The bench server's tool-route token (loopback only). */
const TOOLS_TOKEN = 'bench-tools-token';

const BENCH_TOOLS: Readonly<Record<string, { read: [string, string, object]; write: [string, string, object] }>> = {
  'control-industry': { read: ['check_date', 'scheduler', { date: '2026-10-07' }], write: ['book_appointment', 'scheduler', { date: '2026-10-07' }] },
  healthcare: {
    read: ['find_openings', 'scheduling', { visit_type: 'follow_up', location_id: 'loc_park_ave' }],
    // verify_identity writes the call's session row (the privacy gate) on every call.
    write: ['verify_identity', 'identity', { full_name: 'Marcus Webb', date_of_birth: '1979-11-19', caller_role: 'self' }],
  },
};

/** The healthcare pack when it loads, the control pack otherwise (issue 7). */
export async function benchPack(): Promise<Pack> {
  return loadPack(join(ROOT, 'packs'), 'healthcare').catch(() => loadPack(join(ROOT, 'packs'), 'control-industry'));
}

/** One measured configuration. */
export interface ToolRow {
  readonly mode: 'in-process' | 'http';
  readonly pack: string;
  readonly tool: string;
  readonly effect: 'read' | 'write';
  readonly connections: number;
  readonly callIds: number;
  readonly latency: LatencySummary;
  readonly throughputPerS: number;
  readonly errors: number;
  /** What generated the HTTP load: wrk when installed, else the Node client (which saturates first). */
  readonly loadGenerator?: 'wrk' | 'node';
}

/** True when wrk (Debian package `wrk`) is on the PATH. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its banner; only a missing binary throws ENOENT.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

interface WrkFigures {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
  errors: number;
  wrong: number;
}

/** One closed-loop wrk run on core 1 (one thread, N connections); the Lua driver prints the figures last. */
function runWrk(url: string, body: string, connections: number, durationMs: number, callIds: readonly string[]): Promise<WrkFigures> {
  const seconds = `${Math.max(1, Math.round(durationMs / 1000))}s`;
  return runOnLoadCore<WrkFigures>('wrk', 'wrk', ['-t1', `-c${connections}`, `-d${seconds}`, '-s', join(ROOT, 'bench/wrk-tools.lua'), url, '--', `Bearer ${TOOLS_TOKEN}`, body, ...callIds]);
}

function inProcess(pack: Pack, dbs: CallDatabases, effect: 'read' | 'write', callIds: number, iterations: number): ToolRow {
  const [name, agent, args] = BENCH_TOOLS[pack.id]?.[effect] ?? ['', '', {}];
  const tool = pack.catalog.get(name);
  if (!tool) throw new Error(`no bench tool ${name}`);
  const ids = Array.from({ length: callIds }, (_, i) => `bench_${effect}_${callIds}_${i}`);
  const databases = new Map(ids.map((id) => [id, dbs.create(id)]));
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const callId = ids[i % ids.length] as string;
    const t0 = performance.now();
    const database = databases.get(callId);
    if (!database) throw new Error(`no database for ${callId}`);
    const out = executeTool({ pack, callId, database, nowMs: () => performance.now() }, agent, tool, args);
    latencies.push(performance.now() - t0);
    if (!out.output.ok) errors++;
  }
  const elapsed = performance.now() - started;
  return { mode: 'in-process', pack: pack.id, tool: name, effect, connections: 1, callIds, latency: summarize(latencies), throughputPerS: Math.round((iterations / elapsed) * 1000), errors };
}

type LoadFigures = Pick<ToolRow, 'latency' | 'throughputPerS' | 'errors' | 'loadGenerator'>;

/** Closed-loop load from the other core: wrk when installed, else the Node generator. */
async function generateLoad(url: string, body: string, connections: number, durationMs: number, ids: readonly string[]): Promise<LoadFigures> {
  if (hasWrk()) {
    const f = await runWrk(url, body, connections, durationMs, ids);
    const ms = (us: number): number => Math.round(us) / 1000;
    return {
      latency: { n: f.requests, p50: ms(f.p50Us), p99: ms(f.p99Us), max: ms(f.maxUs), mean: ms(f.meanUs) },
      throughputPerS: Math.round(f.requests / (f.durationUs / 1e6)),
      errors: f.errors + f.wrong,
      loadGenerator: 'wrk',
    };
  }
  const result = await runScript<{ latencies: number[]; errors: number; wrong: number; elapsedMs: number }>('bench/http-load.ts', { url, body, connections, durationMs, callIds: ids, auth: `Bearer ${TOOLS_TOKEN}` });
  return {
    latency: summarize(result.latencies),
    throughputPerS: Math.round((result.latencies.length / result.elapsedMs) * 1000),
    errors: result.errors + result.wrong,
    loadGenerator: 'node',
  };
}

/** The handoff tools from the entry desk to `agent` (breadth-first over declared edges). */
function handoffsTo(pack: Pack, agent: string): string[] {
  const paths = new Map<string, string[]>([[pack.entryAgent, []]]);
  const queue = [pack.entryAgent];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const t of pack.blueprint.agents.find((a) => a.name === at)?.tools ?? []) {
      const to = pack.catalog.get(t.name)?.handoffTo;
      if (!t.handoff || !to || paths.has(to)) continue;
      paths.set(to, [...(paths.get(at) ?? []), t.name]);
      queue.push(to);
    }
  }
  return paths.get(agent) ?? [];
}

/** Opens each id's scratch conversation at the tool's desk, as an external harness would (handoffs first). */
async function walkToDesk(port: number, pack: Pack, agent: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    for (const hop of handoffsTo(pack, agent)) {
      const res = await fetch(`http://127.0.0.1:${port}/calls/${id}/tools/${hop}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOOLS_TOKEN}` }, body: '{}' });
      if (!res.ok) throw new Error(`handoff ${hop} for ${id} answered ${res.status}`);
    }
  }
}

async function overHttp(pack: Pack, port: number, effect: 'read' | 'write', connections: number, callIds: number, durationMs: number): Promise<ToolRow> {
  const [name, agent, args] = BENCH_TOOLS[pack.id]?.[effect] ?? ['', '', {}];
  const ids = Array.from({ length: callIds }, (_, i) => `http_${effect}_${connections}_${callIds}_${i}`);
  await walkToDesk(port, pack, agent, ids);
  const figures = await generateLoad(`http://127.0.0.1:${port}/tools/${name}`, JSON.stringify(args), connections, durationMs, ids);
  return { mode: 'http', pack: pack.id, tool: name, effect, connections, callIds, ...figures };
}

/** Tool-call latency and throughput, in-process and over HTTP (server on core 0, load on core 1). */
export async function benchTools(options: { durationMs: number; iterations: number }): Promise<ToolRow[]> {
  const pack = await benchPack();
  const tmp = tempDir('mivas-bench-tools-');
  const rows: ToolRow[] = [];
  try {
    const dbs = new CallDatabases(join(tmp.dir, 'calls'), ensureTemplate(join(tmp.dir, 'templates'), pack));
    for (const effect of ['read', 'write'] as const) for (const ids of [1, 100]) rows.push(inProcess(pack, dbs, effect, ids, options.iterations));
    dbs.closeAll();
    const server = await startServerProcess({ MIVAS_DATA_DIR: join(tmp.dir, 'server'), MIVAS_PACK: pack.id, MIVAS_TOOLS_TOKEN: TOOLS_TOKEN });
    try {
      for (const effect of ['read', 'write'] as const) {
        for (const connections of [1, 32]) for (const ids of [1, 100]) rows.push(await overHttp(pack, server.port, effect, connections, ids, options.durationMs));
      }
    } finally {
      await server.stop();
    }
  } finally {
    tmp.remove();
  }
  return rows;
}
