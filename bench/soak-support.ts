/**
 * Pieces the soak scenarios share: the provider stand-in with per-session hooks, sequential
 * dialing (so the n-th provider session belongs to the n-th caller), snapshot readers for a
 * directory and an S3 listing, and bounded waits. Loopback only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadPack, type Pack } from '../src/packs/index.ts';
import { CallDatabases, ensureTemplate } from '../src/store/index.ts';
import { executeTool } from '../src/tools/index.ts';
import { ROOT, tempDir } from './bench-context.ts';
import { callerSpeech, CallerTicker, LoadCaller, type CallerOptions } from './live-callers.ts';
import { LoadProvider, type ProviderOptions } from './live-provider.ts';

/** One pass/fail line of a scenario. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Builds a check. */
export function check(name: string, ok: boolean, detail = ''): Check {
  return { name, ok, detail };
}

/** Resolves when `done()` holds (polled every 100 ms) or after `timeoutMs`; returns whether it held. */
export async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** A plain delay (the soak measures outages in real time). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The stand-in plus the callers mapped to its sessions. */
export class SoakRig {
  readonly bySession = new Map<number, LoadCaller>();
  readonly scriptDone = new Set<string>();
  readonly toolOutputs = new Map<string, boolean[]>();
  readonly ticker = new CallerTicker();

  readonly provider: LoadProvider;

  private constructor(provider: LoadProvider) {
    this.provider = provider;
  }

  /** Starts the stand-in with the given behaviour. */
  static async start(options: ProviderOptions): Promise<SoakRig> {
    let rig: SoakRig | null = null;
    const provider = await LoadProvider.start(options, {
      callerOnset: () => undefined,
      toolOutput: (index, ok) => {
        const id = rig?.bySession.get(index)?.callId;
        if (id) rig?.toolOutputs.set(id, [...(rig.toolOutputs.get(id) ?? []), ok]);
      },
      scriptDone: (index) => {
        const id = rig?.bySession.get(index)?.callId;
        if (id) rig?.scriptDone.add(id);
      },
    });
    rig = new SoakRig(provider);
    rig.ticker.start();
    return rig;
  }

  /** Dials the ids one at a time; each caller is mapped to the provider session its call opened. */
  async dial(url: string, ids: readonly string[], options: Omit<CallerOptions, 'url' | 'runId'>): Promise<LoadCaller[]> {
    const speech = callerSpeech(options.speechMs || 300);
    const callers: LoadCaller[] = [];
    for (const id of ids) {
      const caller = new LoadCaller(id, { url, runId: 'run_soak', ...options }, speech);
      callers.push(caller);
      this.ticker.callers.add(caller);
      const opened = await Promise.race([caller.opened, sleep(10_000).then(() => false)]);
      if (!opened) continue;
      const session = await Promise.race([this.provider.nextSession(), sleep(10_000).then(() => null)]);
      if (session) this.bySession.set(session.index, caller);
    }
    return callers;
  }

  /** Hangs each caller up once its script is done (bounded), then waits for the closes. */
  async hangUpWhenDone(callers: readonly LoadCaller[], timeoutMs: number): Promise<number> {
    await waitUntil(() => callers.every((c) => this.scriptDone.has(c.callId) || !c.isLive()), timeoutMs);
    await sleep(300);
    let done = 0;
    for (const c of callers) {
      if (this.scriptDone.has(c.callId)) done++;
      c.hangUp();
    }
    await Promise.race([Promise.all(callers.map((c) => c.closed)), sleep(15_000)]);
    return done;
  }

  async close(): Promise<void> {
    this.ticker.stop();
    await this.provider.close();
  }
}

/** The env that points a server at the stand-in through the openai/realtime harness. */
export function providerEnv(rig: SoakRig, extra: Record<string, string> = {}): Record<string, string> {
  return { MIVAS_PACK: 'control-industry', MIVAS_HARNESS: 'openai/realtime', MIVAS_OPENAI_BASE_URL: rig.provider.baseUrl(), OPENAI_API_KEY: 'sk-soak-dummy', MIVAS_MAX_CALLS: '500', MIVAS_OTEL: '0', ...extra };
}

/** The control pack and the dates its book_appointment accepts (open days within the horizon). */
export async function controlPack(): Promise<{ pack: Pack; openDates: string[] }> {
  const pack = await loadPack(join(ROOT, 'packs'), 'control-industry');
  const tmp = tempDir('mivas-soak-dates-');
  try {
    const dbs = new CallDatabases(join(tmp.dir, 'calls'), ensureTemplate(join(tmp.dir, 'templates'), pack));
    const tool = pack.catalog.get('check_date');
    if (!tool) throw new Error('control pack has no check_date');
    const openDates: string[] = [];
    // One scratch database: check_date only reads (a call id is used once, so it is created once).
    const database = dbs.create('dates');
    for (let day = 1; day <= 60; day++) {
      const date = pack.clock.addDays(pack.clock.today(), day);
      const out = executeTool({ pack, callId: 'dates', database, nowMs: () => 0 }, 'scheduler', tool, { date }).output;
      if (out.ok && (out.data as { status?: string }).status === 'open') openDates.push(date);
    }
    dbs.closeAll();
    return { pack, openDates };
  } finally {
    tmp.remove();
  }
}

/** A call's script: hop to the scheduler, then book each date. */
export function bookingScript(dates: readonly string[]): { name: string; args: unknown }[] {
  return [{ name: 'transfer_to_scheduler', args: {} }, ...dates.map((date) => ({ name: 'book_appointment', args: { date } }))];
}

/** What a snapshot says, read from a directory sink. */
export interface SnapshotFacts {
  readonly endReason: string;
  readonly voidReason: string | null;
  readonly closeCode: number | null;
  readonly appointmentDates: string[];
}

/** Reads the summary and final state of a call from `<dir>/<pack>/<id>.*`, or null when absent. */
export function readDirectorySnapshot(dir: string, pack: string, callId: string): SnapshotFacts | null {
  const base = join(dir, pack, callId);
  if (!existsSync(`${base}.summary.json`)) return null;
  return snapshotFacts(readFileSync(`${base}.summary.json`, 'utf8'), readFileSync(`${base}.final.json`, 'utf8'));
}

/** The facts of a snapshot from its summary and final-state texts. */
export function snapshotFacts(summaryText: string, finalText: string): SnapshotFacts {
  const summary = JSON.parse(summaryText) as { end_reason: string; void_reason: string | null; close_code: number | null };
  const final = JSON.parse(finalText) as { appointments?: { date: string }[] };
  return { endReason: summary.end_reason, voidReason: summary.void_reason, closeCode: summary.close_code, appointmentDates: (final.appointments ?? []).map((r) => r.date).sort() };
}

/** Files in a directory (none when it does not exist). */
export function filesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** A pino logger that counts "snapshot uploaded" lines per call id (duplicate uploads show as counts > 1). */
export function uploadCounter(): { log: pino.Logger; uploads: Map<string, number> } {
  const uploads = new Map<string, number>();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('snapshot uploaded')) continue;
        const { callId } = JSON.parse(line) as { callId?: string };
        if (callId) uploads.set(callId, (uploads.get(callId) ?? 0) + 1);
      }
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), uploads };
}

/** Counts of each value. */
export function tally(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
