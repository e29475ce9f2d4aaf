/**
 * `npm run bench`: measures and prints; never fails on a figure. Writes bench/results.json and
 * flags any p99 that regressed more than 20% against the committed results. Loopback only,
 * every section bounded in time.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderTable } from '../src/cli/progress.ts';
import { canPin, ROOT } from './bench-context.ts';
import { benchDatabases } from './db-bench.ts';
import { benchTools } from './tools-bench.ts';

const RESULTS = join(ROOT, 'bench', 'results.json');
const REGRESSION = 1.2;

type Figures = Record<string, unknown>;

interface P99Row {
  readonly key: string;
  readonly p99: number;
}

function p99Rows(results: Figures): P99Row[] {
  const rows: P99Row[] = [];
  const tools = (results.tools ?? []) as { mode: string; tool: string; connections: number; callIds: number; latency: { p99: number } }[];
  for (const r of tools) rows.push({ key: `tools ${r.mode} ${r.tool} c${r.connections} ids${r.callIds}`, p99: r.latency.p99 });
  const dbs = (results.databases ?? []) as { pack: string; templateCopy: { p99: number }; dump: { p99: number } }[];
  for (const r of dbs) rows.push({ key: `db ${r.pack} copy`, p99: r.templateCopy.p99 }, { key: `db ${r.pack} dump`, p99: r.dump.p99 });
  return rows;
}

function regressions(previous: Figures | null, current: Figures): string[] {
  if (!previous) return [];
  const before = new Map(p99Rows(previous).map((r) => [r.key, r.p99]));
  return p99Rows(current).flatMap((r) => {
    const old = before.get(r.key);
    return old !== undefined && old > 0 && r.p99 > old * REGRESSION ? [`REGRESSION ${r.key}: p99 ${old} ms → ${r.p99} ms`] : [];
  });
}

function printTools(rows: Awaited<ReturnType<typeof benchTools>>): void {
  console.log('\nTool calls (latency in ms)');
  console.log(
    renderTable(
      ['mode', 'tool', 'effect', 'conns', 'call ids', 'p50', 'p99', 'max', 'req/s', 'errors'],
      rows.map((r) => [r.mode, r.tool, r.effect, String(r.connections), String(r.callIds), String(r.latency.p50), String(r.latency.p99), String(r.latency.max), String(r.throughputPerS), String(r.errors)]),
    ),
  );
}

function printDatabases(rows: Awaited<ReturnType<typeof benchDatabases>>): void {
  console.log('\nPer-call database (ms)');
  console.log(
    renderTable(
      ['pack', 'copy p50', 'copy p99', 'migrate+seed p50', 'speed-up', 'dump p50', 'dump p99'],
      rows.map((r) => [r.pack, String(r.templateCopy.p50), String(r.templateCopy.p99), String(r.migrateAndSeed.p50), `${(r.migrateAndSeed.p50 / Math.max(0.001, r.templateCopy.p50)).toFixed(1)}×`, String(r.dump.p50), String(r.dump.p99)]),
    ),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } } });
  const only = new Set((values.only ?? 'tools,db').split(','));
  const quick = values.quick ?? false;
  const previous = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Figures) : null;
  const results: Figures = {
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, pinned: canPin() },
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  };
  if (only.has('tools')) {
    results.tools = await benchTools({ durationMs: quick ? 1_000 : 5_000, iterations: quick ? 500 : 5_000 });
    printTools(results.tools as Awaited<ReturnType<typeof benchTools>>);
  }
  if (only.has('db')) {
    results.databases = await benchDatabases(quick ? 50 : 500);
    printDatabases(results.databases as Awaited<ReturnType<typeof benchDatabases>>);
  }
  const flagged = regressions(previous, results);
  console.log(flagged.length ? `\n${flagged.join('\n')}` : '\nno p99 regression beyond 20% against the committed results');
  writeFileSync(RESULTS, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  console.log(`wrote ${RESULTS}`);
}

await main();
