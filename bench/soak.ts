/**
 * `npm run soak`: a bounded fault suite with a pass/fail report (exit 1 on any failed check).
 * Every scenario runs the real server (in-process, or `mivas serve` as a child where signals are
 * the point) against the openai/realtime harness pointed at a local stand-in, local CHIRP callers,
 * and s3rver where S3 is the point. Unpaced (`MIVAS_FAST=1`) wherever pacing is not the point.
 * Loopback only; every wait is bounded.
 *
 *   npm run soak                      every scenario (about 5 minutes; the S3 outage alone is 60 s)
 *   npm run soak -- --only drop,rows  some: s3, drop, vanish, sigterm, kill9, rows, and the faults of
 *                                     issue 14 (bench/soak-faults.ts): flood, s3stall, diskfull,
 *                                     deepjson, sigterm2, slowhttp, backlog, hangup, upgrades; the
 *                                     outbound endpoints of issue 26 (bench/soak-outbound.ts):
 *                                     hugereply, hungpolicy; the setup faults of issue 26:
 *                                     setuprefused, setupsilent; and the inbound bounds of issue 26
 *                                     (bench/soak-inbound.ts): openenv, files, scorer, uiscore, rlids
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../src/audio/index.ts';
import { dialOpeningLine } from '../src/caller/index.ts';
import { renderTable } from '../src/cli/index.ts';
import { RealtimeStandIn } from '../test/support/realtime-server.ts';
import { startTestS3, useStaticS3Credentials, type TestS3 } from '../test/support/s3.ts';
import { startTestServer } from '../test/support/server.ts';
import { startServerProcess, tempDir } from './bench-context.ts';
import type { LoadCaller } from './live-callers.ts';
import { FAULT_SCENARIOS } from './soak-faults.ts';
import { OUTBOUND_SCENARIOS } from './soak-outbound.ts';
import { INBOUND_SCENARIOS } from './soak-inbound.ts';
import { bookingScript, check, controlPack, filesIn, providerEnv, readDirectorySnapshot, sleep, snapshotFacts, SoakRig, tally, uploadCounter, waitUntil, type Check } from './soak-support.ts';

const PACK = 'control-industry';
const PARTS = ['summary.json', 'timeline.json', 'final.json', 'db', 'wav'];
const FAST = { speechMs: 300, replyDelayMs: 50, fast: true } as const;
const PACED = { speechMs: 600, replyDelayMs: 300 } as const;

type Scenario = (dates: readonly string[]) => Promise<Check[]>;

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}_${String(i).padStart(3, '0')}`);

function s3Keys(callIds: readonly string[]): string[] {
  return callIds.flatMap((id) => PARTS.map((p) => `mivas/${PACK}/${id}.${p}`)).sort();
}

async function s3Snapshot(s3: TestS3, callId: string): Promise<ReturnType<typeof snapshotFacts>> {
  const [summary, final] = await Promise.all([s3.getObject(`mivas/${PACK}/${callId}.summary.json`), s3.getObject(`mivas/${PACK}/${callId}.final.json`)]);
  return snapshotFacts(summary.toString(), final.toString());
}

/** S3 down for 60 s while 50 calls hang up: all 50 snapshots arrive afterwards, once each. */
const s3Outage: Scenario = async (dates) => {
  useStaticS3Credentials();
  const s3 = await startTestS3();
  const rig = await SoakRig.start({ utteranceMs: 400, tool: null, script: (i) => bookingScript([dates[i % dates.length] as string]) });
  const { log, uploads } = uploadCounter();
  const server = await startTestServer(providerEnv(rig, { ...s3.env, MIVAS_FAST: '1' }), { log });
  const calls = ids('s3', 50);
  try {
    await s3.stop();
    const downAt = Date.now();
    const callers = await rig.dial(server.wsUrl, calls, FAST);
    const scripted = await rig.hangUpWhenDone(callers, 40_000);
    await waitUntil(() => server.ctx.registry.count() === 0, 20_000);
    const spooled = server.ctx.outbox.backlog().count;
    await sleep(Math.max(0, 60_000 - (Date.now() - downAt)));
    const outageS = Math.round((Date.now() - downAt) / 1000);
    await s3.start();
    const drained = await waitUntil(() => server.ctx.outbox.backlog().count === 0, 100_000);
    const keys = await s3.listKeys(`mivas/${PACK}/`);
    const expected = s3Keys(calls);
    const facts = await Promise.all(calls.map((id) => s3Snapshot(s3, id).catch(() => null)));
    const own = facts.every((f, i) => f?.appointmentDates.join() === dates[i % dates.length]);
    return [
      check('50 calls ran their script and hung up during the outage', scripted === 50, `${scripted}/50`),
      check('all 50 snapshots were spooled while S3 was down', spooled === 50, `backlog ${spooled} after ${outageS} s down`),
      check('the backlog drained after S3 came back', drained, `backlog ${server.ctx.outbox.backlog().count}`),
      check('the S3 listing holds exactly the 50 × 5 parts (none lost, no strays)', JSON.stringify(keys) === JSON.stringify(expected), `${keys.length} keys, expected ${expected.length}`),
      check('each snapshot uploaded exactly once (none duplicated)', calls.every((id) => uploads.get(id) === 1), JSON.stringify(tally(calls.map((id) => String(uploads.get(id) ?? 0))))),
      check('each snapshot holds its own booking', own, ''),
    ];
  } finally {
    await server.close();
    await rig.close();
    await s3.close();
  }
};

/** The provider drops 10% of sessions: those end provider_error, the rest are unaffected. */
const providerDrops: Scenario = async (dates) => {
  const rig = await SoakRig.start({ utteranceMs: 400, tool: null, dropSession: (n) => n % 10 === 0, script: (i) => bookingScript([dates[i % dates.length] as string]) });
  const server = await startTestServer(providerEnv(rig, { MIVAS_FAST: '1' }));
  const calls = ids('drop', 30);
  try {
    const callers = await rig.dial(server.wsUrl, calls, FAST);
    const dropped = new Set([...rig.bySession.entries()].filter(([index]) => (index + 1) % 10 === 0).map(([, c]) => c.callId));
    await rig.hangUpWhenDone(callers.filter((c) => !dropped.has(c.callId)), 40_000);
    await waitUntil(() => server.ctx.registry.count() === 0, 20_000);
    await server.ctx.outbox.flush();
    const dir = join(server.dataDir, 'snapshots');
    const facts = new Map(calls.map((id) => [id, readDirectorySnapshot(dir, PACK, id)]));
    const droppedOk = [...dropped].every((id) => facts.get(id)?.endReason === 'provider_error' && facts.get(id)?.voidReason === 'provider_error');
    const rest = calls.filter((id) => !dropped.has(id));
    const restOk = rest.every((id, k) => facts.get(id)?.endReason === 'caller_hangup' && (rig.toolOutputs.get(id) ?? []).length === 2 && (rig.toolOutputs.get(id) ?? []).every(Boolean) && (facts.get(id)?.appointmentDates.length ?? 0) === 1 && k >= 0);
    return [
      check('3 of 30 sessions dropped by the provider', dropped.size === 3, [...dropped].join(', ')),
      check('every call left a snapshot', [...facts.values()].every((f) => f !== null), JSON.stringify(tally([...facts.values()].map((f) => f?.endReason ?? 'missing')))),
      check('dropped calls ended provider_error (void: provider_error)', droppedOk, ''),
      check('the other 27 finished their script: hop + booking, caller_hangup', restOk, ''),
    ];
  } finally {
    await server.close();
    await rig.close();
  }
};

/** Callers vanish (no close frame) mid-utterance: each call ends, is snapshotted, leaks nothing. */
const callersVanish: Scenario = async () => {
  const rig = await SoakRig.start({ utteranceMs: 2_000, tool: null });
  const server = await startTestServer(providerEnv(rig));
  const calls = ids('vanish', 20);
  try {
    const callers = await rig.dial(server.wsUrl, calls, { ...PACED, speechMs: 1_500 });
    const vanishOne = async (c: LoadCaller, k: number): Promise<void> => {
      if (k % 2 === 0) {
        await sleep(700); // into the agent's 2 s greeting
      } else {
        await waitUntil(() => c.speechSentAtMs !== null, 15_000); // into the caller's own 1.5 s line
        await sleep(400);
      }
      c.vanish();
    };
    await Promise.all(callers.map(vanishOne));
    await waitUntil(() => server.ctx.registry.count() === 0, 20_000);
    await server.ctx.outbox.flush();
    const dir = join(server.dataDir, 'snapshots');
    const facts = calls.map((id) => readDirectorySnapshot(dir, PACK, id));
    const after = await rig.dial(server.wsUrl, ['vanish_after'], FAST);
    const served = after[0]?.isLive() ?? false;
    after[0]?.hangUp();
    await after[0]?.closed;
    await waitUntil(() => server.ctx.registry.count() === 0, 10_000);
    return [
      check('every vanished call ended (no live call left)', server.ctx.registry.count() === 0, `live ${server.ctx.registry.count()}`),
      check('each left a snapshot: caller_hangup, close 1006', facts.every((f) => f?.endReason === 'caller_hangup' && f.closeCode === 1006), JSON.stringify(tally(facts.map((f) => `${f?.endReason}/${f?.closeCode}`)))),
      check('no per-call database left open or on disk', filesIn(join(server.dataDir, 'calls')).length === 0, filesIn(join(server.dataDir, 'calls')).slice(0, 3).join(', ')),
      check('the server serves a new call afterwards', served, ''),
    ];
  } finally {
    await server.close();
    await rig.close();
  }
};

/** SIGTERM with 20 live calls (child `mivas serve`): refuses new calls, drains, snapshots all, exits 0. */
const sigterm: Scenario = async () => {
  const rig = await SoakRig.start({ utteranceMs: 1_000, tool: null });
  const tmp = tempDir('mivas-soak-term-');
  try {
    const server = await startServerProcess(providerEnv(rig, { MIVAS_DATA_DIR: tmp.dir, MIVAS_DRAIN_S: '4' }));
    const url = `ws://127.0.0.1:${server.port}/`;
    const calls = ids('term', 20);
    const callers = await rig.dial(url, calls, PACED);
    await sleep(1_000);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    await sleep(300);
    const health = await fetch(`http://127.0.0.1:${server.port}/health`).then((r) => r.status, () => 0);
    const late = await rig.dial(url, ['term_late'], FAST);
    const lateStatus = late[0]?.report().refusedStatus ?? null;
    for (const c of callers.slice(0, 10)) c.hangUp();
    const code = await Promise.race([exited, sleep(30_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') server.child.kill('SIGKILL');
    const facts = calls.map((id) => readDirectorySnapshot(join(tmp.dir, 'snapshots'), PACK, id));
    const reasons = tally(facts.map((f) => f?.endReason ?? 'missing'));
    return [
      check('/health answers 503 while draining', health === 503, `status ${health}`),
      check('a new call is refused while draining', lateStatus === 503, `status ${lateStatus}`),
      check('the process exits 0 after the drain', code === 0, `exit ${String(code)}`),
      check('all 20 calls snapshotted: 10 hung up, 10 ended at the drain deadline', reasons.caller_hangup === 10 && reasons.drain_deadline === 10, JSON.stringify(reasons)),
    ];
  } finally {
    await rig.close();
    tmp.remove();
  }
};

/** kill -9 mid-call, restart on the same data dir: spooled snapshots upload; live calls are lost. */
const kill9: Scenario = async (dates) => {
  useStaticS3Credentials();
  const s3 = await startTestS3();
  const rig = await SoakRig.start({ utteranceMs: 400, tool: null, script: (i) => bookingScript([dates[i % dates.length] as string]) });
  const tmp = tempDir('mivas-soak-kill-');
  const env = providerEnv(rig, { ...s3.env, MIVAS_DATA_DIR: tmp.dir, MIVAS_FAST: '1' });
  try {
    await s3.stop();
    const first = await startServerProcess(env);
    const url = `ws://127.0.0.1:${first.port}/`;
    const finished = ids('kill_done', 10);
    await rig.hangUpWhenDone(await rig.dial(url, finished, FAST), 30_000);
    const summaries = (): number => filesIn(join(tmp.dir, 'spool', PACK)).filter((f) => f.endsWith('.summary.json')).length;
    const spooled = { ok: await waitUntil(() => summaries() === 10, 10_000), count: summaries() };
    const live = ids('kill_live', 5);
    const liveCallers = await rig.dial(url, live, FAST);
    await sleep(500);
    first.child.kill('SIGKILL');
    await Promise.race([Promise.all(liveCallers.map((c) => c.closed)), sleep(10_000)]);
    await s3.start();
    const second = await startServerProcess(env);
    const uploaded = await waitUntil(async () => (await s3.listKeys(`mivas/${PACK}/`)).length >= 50, 30_000);
    const after = await rig.dial(`ws://127.0.0.1:${second.port}/`, ['kill_after'], FAST);
    after[0]?.hangUp();
    await after[0]?.closed;
    await waitUntil(async () => (await s3.listKeys(`mivas/${PACK}/`)).length >= 55, 20_000);
    const keys = await s3.listKeys(`mivas/${PACK}/`);
    const stopped = await second.stop();
    const leftDbs = filesIn(join(tmp.dir, 'calls')).filter((f) => f.endsWith('.db'));
    const journals = filesIn(join(tmp.dir, 'calls')).filter((f) => f.endsWith('.db-journal'));
    const orphaned = filesIn(join(tmp.dir, 'calls', 'orphaned'));
    const orphanedJournals = orphaned.filter((f) => f.endsWith('.db-journal'));
    return [
      check('10 finished calls were spooled while S3 was down', spooled.ok, `${spooled.count} summaries in the spool`),
      check('after restart every spooled snapshot uploaded, once, with all 5 parts', uploaded && JSON.stringify(keys) === JSON.stringify(s3Keys([...finished, 'kill_after'])), `${keys.length} keys`),
      check('the spool is empty after the upload', filesIn(join(tmp.dir, 'spool', PACK)).length === 0, ''),
      check('the 5 calls live at kill -9 left no snapshot (documented loss)', live.every((id) => !keys.some((k) => k.includes(`/${id}.`))), ''),
      check('their per-call databases are set aside in calls/orphaned at the restart (documented)', live.every((id) => orphaned.some((f) => f.endsWith(`_${id}.db`))) && !live.some((id) => leftDbs.includes(`${id}.db`)), `${orphaned.filter((f) => f.endsWith('.db')).length} set aside`),
      check('no .db-journal is left beside the databases (a killed call’s is set aside with its .db)', journals.length === 0, `${journals.length} left in calls/, ${orphanedJournals.length} set aside`),
      check('the restarted server serves new calls and exits 0', stopped === 0, `exit ${String(stopped)}`),
    ];
  } finally {
    await rig.close();
    await s3.close();
    tmp.remove();
  }
};

/** 100 concurrent calls each booking a distinct pair of dates: every snapshot holds exactly its own. */
const distinctRows: Scenario = async (dates) => {
  const pairs: [string, string][] = [];
  for (let a = 0; a < dates.length && pairs.length < 100; a++) for (let b = a + 1; b < dates.length && pairs.length < 100; b++) pairs.push([dates[a] as string, dates[b] as string]);
  const rig = await SoakRig.start({ utteranceMs: 300, tool: null, script: (i) => bookingScript(pairs[i % pairs.length] ?? []) });
  const server = await startTestServer(providerEnv(rig, { MIVAS_FAST: '1' }));
  const calls = ids('rows', 100);
  try {
    const callers = await rig.dial(server.wsUrl, calls, FAST);
    const peak = server.ctx.registry.count();
    const done = await rig.hangUpWhenDone(callers, 60_000);
    await waitUntil(() => server.ctx.registry.count() === 0, 30_000);
    await server.ctx.outbox.flush();
    const dir = join(server.dataDir, 'snapshots');
    const wrong = calls.filter((id, i) => readDirectorySnapshot(dir, PACK, id)?.appointmentDates.join() !== [...(pairs[i % pairs.length] ?? [])].sort().join());
    return [
      check('100 calls were live at once', peak === 100, `peak ${peak}`),
      check('every call finished its script (hop + 2 bookings)', done === 100, `${done}/100`),
      check('every snapshot holds exactly its own two bookings', wrong.length === 0, wrong.slice(0, 5).join(', ')),
    ];
  } finally {
    await server.close();
    await rig.close();
  }
};

/** The ready deadline the setup faults run with, and how long past it (or past dialing, for a refusal) a call may take to end on this shared machine. */
const READY_S = 3;
const SETUP_SLACK_MS = 5_000;

/**
 * Issue 26: a provider that refuses the session setup (an error answering the first
 * session.update) or never confirms it (no session.updated). Ten calls each: every one ends
 * provider_error on the server's side (close 1011) within its bound, never held until the caller
 * gives up (the local caller's own timeout is 60 s).
 */
function setupFault(fault: 'refused' | 'silent'): Scenario {
  return async () => {
    const refusal = { type: 'invalid_request_error', code: 'invalid_value', message: 'Invalid value for session.audio.output.voice.', param: 'session.audio.output.voice' };
    const standIn = await RealtimeStandIn.start(fault === 'refused' ? { refuseSetup: refusal } : { autoSessionUpdated: false });
    const server = await startTestServer({ MIVAS_HARNESS: 'openai/realtime', MIVAS_PACK: PACK, OPENAI_API_KEY: 'sk-soak', MIVAS_OPENAI_BASE_URL: standIn.baseUrl('/v1'), MIVAS_PROVIDER_READY_S: String(READY_S) });
    const synth = await createSpeechSynth(16_000, { preferTones: true });
    const calls = ids(`setup_${fault}`, 10);
    const boundMs = (fault === 'silent' ? READY_S * 1000 : 0) + SETUP_SLACK_MS;
    try {
      const ended = await Promise.all(
        calls.map(async (callId) => {
          const started = performance.now();
          const report = await dialOpeningLine({ url: server.wsUrl, callId, taskId: null, runId: null, auth: null, openingLine: 'Hello.', synth, paced: true, timeoutMs: 60_000 });
          return { callId, ms: performance.now() - started, closeCode: report.closeCode };
        }),
      );
      await server.ctx.outbox.flush();
      const dir = join(server.dataDir, 'snapshots');
      const facts = calls.map((id) => readDirectorySnapshot(dir, PACK, id));
      const slowest = Math.max(...ended.map((e) => e.ms));
      const fastest = Math.min(...ended.map((e) => e.ms));
      const checks = [
        check('the server ended every call (close 1011), none waited for the caller', ended.every((e) => e.closeCode === 1011), JSON.stringify(tally(ended.map((e) => String(e.closeCode))))),
        check(`every call ended within ${(boundMs / 1000).toFixed(0)} s`, slowest < boundMs, `${(fastest / 1000).toFixed(2)}–${(slowest / 1000).toFixed(2)} s`),
        check('every snapshot says provider_error (end and void)', facts.every((f) => f?.endReason === 'provider_error' && f.voidReason === 'provider_error'), JSON.stringify(tally(facts.map((f) => `${f?.endReason ?? 'missing'}/${f?.voidReason ?? '-'}`)))),
      ];
      if (fault === 'silent') checks.push(check(`no call ended before the ${READY_S} s ready deadline`, fastest >= READY_S * 1000, `first after ${(fastest / 1000).toFixed(2)} s`));
      return checks;
    } finally {
      await server.close();
      await standIn.close();
    }
  };
}

const SCENARIOS: Record<string, { title: string; run: Scenario }> = {
  s3: { title: 'S3 down 60 s while 50 calls hang up', run: s3Outage },
  drop: { title: 'provider drops 10% of sessions', run: providerDrops },
  vanish: { title: 'callers vanish mid-utterance', run: callersVanish },
  sigterm: { title: 'SIGTERM with 20 live calls', run: sigterm },
  kill9: { title: 'kill -9 mid-call, restart on the same data dir', run: kill9 },
  rows: { title: '100 concurrent calls writing distinct rows', run: distinctRows },
  ...FAULT_SCENARIOS,
  ...OUTBOUND_SCENARIOS,
  setuprefused: { title: 'provider refuses the session setup (10 calls)', run: setupFault('refused') },
  setupsilent: { title: `provider never confirms its setup (10 calls, ready deadline ${READY_S} s)`, run: setupFault('silent') },
  ...INBOUND_SCENARIOS,
};

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const names = (values.only ?? Object.keys(SCENARIOS).join(',')).split(',');
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length) {
    console.error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    return 3;
  }
  const rejections: unknown[] = [];
  process.on('unhandledRejection', (reason) => rejections.push(reason));
  const { openDates } = await controlPack();
  const rows: string[][] = [];
  let failed = 0;
  for (const name of names) {
    const scenario = SCENARIOS[name] as { title: string; run: Scenario };
    const started = Date.now();
    process.stdout.write(`▶ ${scenario.title}\n`);
    const checks = await scenario.run(openDates).catch((err: unknown) => [check('scenario ran to the end', false, err instanceof Error ? err.message : String(err))]);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    for (const c of checks) {
      if (!c.ok) failed++;
      rows.push([c.ok ? 'PASS' : 'FAIL', name, c.name, c.detail.slice(0, 110), seconds]);
    }
  }
  rows.push([rejections.length ? 'FAIL' : 'PASS', 'process', 'no unhandled promise rejection', String(rejections.length), '']);
  if (rejections.length) failed++;
  console.log(`\n${renderTable(['result', 'scenario', 'check', 'detail', 's'], rows)}`);
  console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} (${cpus().length} cores)`);
  console.log(failed ? `\n${failed} check(s) failed` : '\nall soak checks passed');
  return failed ? 1 : 0;
}

process.exitCode = await main();
