import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import { httpProblem, sha256Parts } from '../core/index.ts';
import type { RunListing } from '../report/index.ts';
import { groupKeys, NO_RUN_ID, SCORER_VERSION, type RunMeta, type ScoreReport, type SnapshotSource } from '../scoring/index.ts';
import { snapshotKey, summarySchema, type SnapshotPart } from '../snapshot/index.ts';
import type { AppContext } from './app-context.ts';
import { sendProblem } from './problem.ts';
import { ON_DEMAND, storeSource, type ScoreJob } from './score-job.ts';
import { ScoreThread, UiBusyError } from './score-thread.ts';
import { runFileOf, type SiteRun, type SiteSpec } from './ui-site.ts';

/** The report module (pages, score files): loaded on the first `/ui` request, not at boot. */
const report = () => import('../report/index.ts');
/** Same policy as the pages' meta tag: nothing leaves the origin. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A run set in a URL: run ids joined by `+` (at most 12). */
const RUN_SET = /^[A-Za-z0-9_-]{1,64}(\+[A-Za-z0-9_-]{1,64}){0,11}$/;
/** How a run without stored scores is scored on demand: the `mivas score` defaults, or `--fast` (no minimum call length). */
const PROFILES = { default: { minCallMs: 20_000, fast: false }, fast: { minCallMs: 0, fast: true } } as const;
type Profile = keyof typeof PROFILES;
/** The run id of the stored scores' site, whose scores.json is shown whole. */
const STORED_RUN = '*';
/** Seconds a request refused because the UI thread is full is told to wait. */
const RETRY_AFTER_S = 5;

/** The newest folder under `<dataDir>/scores` that holds a scores.json (by its modification time). */
export function latestScoresDir(dataDir: string): string | null {
  const root = resolve(dataDir, 'scores');
  if (!existsSync(root)) return null;
  const candidates = readdirSync(root)
    .map((name) => join(root, name, 'scores.json'))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, mtimeMs: statSync(file).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? 1 : -1));
  return candidates[0] ? resolve(candidates[0].file, '..') : null;
}

/** Every scores.json under a folder: itself, its sub-folders and theirs (`mivas score --all-runs` nests one level). */
export function scoresFilesUnder(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const out: string[] = [];
  const walk = (at: string, depth: number): void => {
    if (existsSync(join(at, 'scores.json'))) out.push(join(at, 'scores.json'));
    if (depth >= 2) return;
    for (const name of readdirSync(at).sort()) {
      const sub = join(at, name);
      if (name !== 'report' && statSync(sub).isDirectory()) walk(sub, depth + 1);
    }
  };
  walk(dir, 0);
  return out;
}

/** The site of the configured or newest stored scores (`MIVAS_SCORES_DIR`), keyed by the file and its modification. */
function storedSite(config: Config): { spec: SiteSpec } | { problem: string } {
  const dir = config.scoresDir ? resolve(config.scoresDir) : latestScoresDir(config.dataDir);
  const file = dir ? join(dir, 'scores.json') : null;
  if (!file || !existsSync(file)) return { problem: `No scores found${dir ? ` in ${dir}` : ` under ${resolve(config.dataDir, 'scores')}`}. Run mivas run, or mivas score --out, and set MIVAS_SCORES_DIR; or open runs.html for the runs in the snapshot store.` };
  const { mtimeMs, size } = statSync(file);
  const key = sha256Parts(['stored', file, String(mtimeMs), String(size)]);
  return { spec: { key, runs: [{ runId: STORED_RUN, key, scores: { scoresFile: file, conversations: null } }], snapshots: config.snapshots, packsDir: config.packsDir, origin: `stored scores: ${dir}` } };
}

interface StoredCall {
  readonly pack: string;
  readonly callId: string;
  readonly parts: ReadonlySet<SnapshotPart>;
  readonly runId: string;
  readonly harness: string | null;
  readonly model: string | null;
  readonly packVersion: string | null;
  readonly startedAt: string | null;
  /** sha256 of the summary's bytes: what the on-demand scores are cached by. */
  readonly summaryHash: string;
}

interface StoredScores {
  readonly file: string;
  readonly mtimeMs: number;
  readonly report: ScoreReport;
  readonly runs: ReadonlyMap<string, RunMeta>;
}

/**
 * The runs of the snapshot store: every conversation's summary read once (summaries are
 * written last and never change), grouped by run id; and the stored scores that cover them.
 */
class StoreRuns {
  private readonly summaries = new Map<string, StoredCall>();
  private readonly scores = new Map<string, StoredScores>();

  readonly source: SnapshotSource;
  private readonly config: Config;

  constructor(
    source: SnapshotSource,
    config: Config,
  ) {
    this.source = source;
    this.config = config;
  }

  get root(): string {
    return this.source.root;
  }

  /**
   * Every conversation with a summary, by run id. Each summary is read on every listing and
   * hashed (the on-demand scores are cached by these hashes); it is parsed again only when its
   * bytes change.
   */
  async calls(): Promise<Map<string, StoredCall[]>> {
    const groups = [...groupKeys(await this.source.list()).values()].filter((g) => g.parts.has('summary.json'));
    for (let i = 0; i < groups.length; i += 8) {
      await Promise.all(
        groups.slice(i, i + 8).map(async (g) => {
          const id = `${g.pack}/${g.callId}`;
          const bytes = await this.source.read(snapshotKey(g.pack, g.callId, 'summary.json'));
          const summaryHash = sha256Parts([bytes ? bytes.toString('base64') : '']);
          if (this.summaries.get(id)?.summaryHash === summaryHash) return;
          let parsed: ReturnType<typeof summarySchema.safeParse> | null = null;
          try {
            parsed = bytes ? summarySchema.safeParse(JSON.parse(bytes.toString('utf8'))) : null;
          } catch {
            parsed = null;
          }
          const s = parsed?.success ? parsed.data : null;
          this.summaries.set(id, { pack: g.pack, callId: g.callId, parts: g.parts, runId: s?.run_id ?? NO_RUN_ID, harness: s?.harness ?? null, model: s?.model ?? null, packVersion: s?.pack_version ?? null, startedAt: s?.started_at ?? null, summaryHash });
        }),
      );
    }
    const byRun = new Map<string, StoredCall[]>();
    for (const g of groups) {
      const call = this.summaries.get(`${g.pack}/${g.callId}`);
      if (call) byRun.set(call.runId, [...(byRun.get(call.runId) ?? []), { ...call, parts: g.parts }]);
    }
    return byRun;
  }

  /** Stored scorings under MIVAS_SCORES_DIR and `<data>/scores`, re-read when a file changes. */
  async storedScores(): Promise<StoredScores[]> {
    const roots = [...new Set([this.config.scoresDir ? resolve(this.config.scoresDir) : null, resolve(this.config.dataDir, 'scores')].filter((d): d is string => d !== null))];
    const files = [...new Set(roots.flatMap(scoresFilesUnder))];
    const { parseScoreFile } = files.length ? await report() : { parseScoreFile: null };
    return files.flatMap((file) => {
      const mtimeMs = statSync(file).mtimeMs;
      const known = this.scores.get(file);
      if (known?.mtimeMs === mtimeMs) return [known];
      if (!parseScoreFile) return [];
      const parsed = parseScoreFile(readFileSync(file, 'utf8'));
      if (!parsed.ok) return [];
      const entry = { file, mtimeMs, report: parsed.report, runs: runFileOf(file) };
      this.scores.set(file, entry);
      return [entry];
    });
  }

  /** A stored scoring that holds every conversation of the run, or null. */
  async storedFor(runId: string, calls: readonly StoredCall[]): Promise<{ meta: RunMeta | null; file: string; mtimeMs: number } | null> {
    const ids = new Set(calls.map((c) => c.callId));
    for (const s of await this.storedScores()) {
      const mine = s.report.conversations.filter((v) => ids.has(v.conversation_id));
      if (mine.length === ids.size && ids.size > 0) return { meta: s.runs.get(runId) ?? null, file: s.file, mtimeMs: s.mtimeMs };
    }
    return null;
  }

  async listing(): Promise<RunListing[]> {
    const byRun = [...(await this.calls()).entries()];
    const stored = await Promise.all(byRun.map(([runId, calls]) => this.storedFor(runId, calls)));
    return byRun
      .map(([runId, calls], i) => {
        const scored = stored[i];
        const distinct = (xs: (string | null)[]): string[] => [...new Set(xs.filter((x): x is string => x !== null))].sort();
        const packs = distinct(calls.map((c) => c.pack)).map((id) => ({ id, pack_version: distinct(calls.filter((c) => c.pack === id).map((c) => c.packVersion)).join('+') || null }));
        return { run_id: runId, label: scored?.meta?.label ?? null, packs, harnesses: distinct(calls.map((c) => c.harness)), models: distinct(calls.map((c) => c.model)), conversations: calls.length, started_at: distinct(calls.map((c) => c.startedAt))[0] ?? null, scores: scored ? ('stored' as const) : ('on demand' as const) };
      })
      .sort((a, b) => ((b.started_at ?? '') < (a.started_at ?? '') ? -1 : (b.started_at ?? '') > (a.started_at ?? '') ? 1 : a.run_id < b.run_id ? -1 : 1));
  }

  /** The job that scores one run from its snapshots, as `mivas score --run` would (each run on its own). */
  jobFor(runId: string, calls: readonly StoredCall[], profile: Profile): ScoreJob {
    const p = PROFILES[profile];
    const list = calls.map((c) => ({ pack: c.pack, callId: c.callId, parts: [...c.parts] }));
    return { snapshots: this.config.snapshots, packsDir: this.config.packsDir, migrationsDir: this.config.migrationsDir, runId, calls: list, minCallMs: p.minCallMs, fast: p.fast };
  }
}

/**
 * What a run's on-demand scores are cached by: the profile, the run, and for each conversation (in
 * id order) the hash of its summary and the names of its parts. A summary is written last and
 * never changes, so a set's content changes only with its summary or its parts.
 */
function contentKey(profile: Profile, runId: string, calls: readonly StoredCall[]): string {
  return sha256Parts([profile, runId, ...[...calls].sort((a, b) => (`${a.pack}/${a.callId}` < `${b.pack}/${b.callId}` ? -1 : 1)).map((c) => `${c.pack}/${c.callId}:${c.summaryHash}:${[...c.parts].sort().join(',')}`)]);
}

/**
 * The site of a run set from the store: stored scores where they cover a run, else scored on
 * demand in the UI thread. Each run's scores are cached there by its content (`contentKey`), so a
 * run set asked in another order reuses them, and a changed or added summary scores the run again.
 */
async function runSetSite(config: Config, store: StoreRuns, profile: Profile, runIds: readonly string[]): Promise<{ spec: SiteSpec } | { problem: string }> {
  const byRun = await store.calls();
  const missing = runIds.filter((id) => !byRun.has(id));
  if (missing.length) return { problem: `No conversations of run ${missing.join(', ')} in ${store.root}.` };
  const runs = await Promise.all(
    runIds.map(async (runId): Promise<SiteRun & { origin: string }> => {
      const calls = byRun.get(runId) ?? [];
      const stored = await store.storedFor(runId, calls);
      if (stored) return { runId, key: sha256Parts(['stored', stored.file, String(stored.mtimeMs), runId]), scores: { scoresFile: stored.file, conversations: calls.map((c) => c.callId) }, origin: `stored scores ${stored.file}` };
      return { runId, key: contentKey(profile, runId, calls), scores: { job: store.jobFor(runId, calls, profile) }, origin: `scored on demand (scorer ${SCORER_VERSION}, ${profile === 'fast' ? '--fast' : 'default'} profile, B=${ON_DEMAND.resamples})` };
    }),
  );
  const origin = runs.map((r) => `${r.runId}: ${r.origin}`).join(' · ');
  return { spec: { key: sha256Parts([profile, ...runs.map((r) => `${r.runId}=${r.key}`)]), runs: runs.map(({ runId, key, scores }) => ({ runId, key, scores })), snapshots: config.snapshots, packsDir: config.packsDir, origin: `snapshot store ${store.root} · ${origin}` } };
}

function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(body);
}

function notFound(reply: FastifyReply, message: string): FastifyReply {
  const text = message.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return sendHtml(reply, 404, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mivas: not found</title></head><body><p>${text}</p><p><a href="index.html">Leaderboard</a> · <a href="runs.html">Runs</a></p></body></html>\n`);
}

/** One byte range of a `Range: bytes=a-b` header, clamped to the body; null when absent or unusable. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return null;
  const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] !== '' && m[2] !== '' ? Math.min(size - 1, Number(m[2])) : size - 1;
  return start <= end && start < size ? { start, end } : null;
}

/** A request the UI thread refused because it is full: 503 with Retry-After (the connection closes, as every refusal's does). */
function sendBusy(reply: FastifyReply, err: UiBusyError): FastifyReply {
  return sendProblem(reply.header('Retry-After', String(RETRY_AFTER_S)), httpProblem('UI_BUSY', err.message));
}

/** How a site that could not be built reads: the stored scores' own problem, or which runs of a run set could not be scored. */
function failure(spec: SiteSpec, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return spec.runs[0]?.runId === STORED_RUN ? message : `Could not score ${spec.runs.map((r) => r.runId).join(', ')}: ${message}`;
}

async function sendAudio(thread: ScoreThread, read: (key: string) => Promise<Buffer | Uint8Array | null | undefined>, spec: SiteSpec, file: string, range: string | undefined, reply: FastifyReply): Promise<FastifyReply> {
  let answer: Awaited<ReturnType<ScoreThread['audio']>>;
  try {
    answer = await thread.audio(spec, file);
  } catch (err) {
    if (err instanceof UiBusyError) return sendBusy(reply, err);
    return sendProblem(reply, httpProblem('SCORES_NOT_FOUND', failure(spec, err)));
  }
  // The key is built by the UI thread from the scored conversation's own pack and id: never a path from the request.
  const found = 'key' in answer && answer.key ? await read(answer.key) : null;
  if (!found) return sendProblem(reply, httpProblem('AUDIO_NOT_FOUND', 'no recording for that conversation'));
  const bytes = Buffer.from(found.buffer, found.byteOffset, found.byteLength);
  reply.header('content-type', 'audio/wav').header('accept-ranges', 'bytes').header('cache-control', 'no-store');
  const part = byteRange(range, bytes.length);
  if (!part) return reply.code(200).send(bytes);
  return reply.code(206).header('content-range', `bytes ${part.start}-${part.end}/${bytes.length}`).send(bytes.subarray(part.start, part.end + 1));
}

async function sendPage(thread: ScoreThread, spec: SiteSpec, name: string, reply: FastifyReply): Promise<FastifyReply> {
  try {
    const answer = await thread.page(spec, name);
    return 'html' in answer ? sendHtml(reply, 200, answer.html) : notFound(reply, answer.notFound);
  } catch (err) {
    if (err instanceof UiBusyError) return sendBusy(reply, err);
    return notFound(reply, failure(spec, err));
  }
}

/**
 * The results UI under `/ui` (docs/ui.md), registered inside the credentialed context. Pages are
 * the same files `mivas report` writes, so every link is relative and works in both places.
 * `/ui/<page>` shows the stored scores (`MIVAS_SCORES_DIR` or the newest); `/ui/runs.html` lists
 * the runs of the snapshot store; `/ui/r/<profile>/<run+run…>/<page>` is the site of chosen runs,
 * from their stored scores or scored on demand. Models and pages are built in the UI thread
 * (`score-thread.ts`), never on the event loop; only the store's listing is read here.
 */
export async function uiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const store = new StoreRuns(storeSource(ctx.config.snapshots, (key, reason) => ctx.log.warn({ key, reason }, 'the results UI skipped a file of the snapshot store')), ctx.config);
  const thread = new ScoreThread((runId, conversations) => ctx.log.info({ runId, conversations }, 'scoring a run on demand for the results UI'));
  app.addHook('onClose', async () => thread.close());
  const storeRead = (key: string) => store.source.read(key);
  const storePage = async (reply: FastifyReply, base: string): Promise<FastifyReply> => {
    const { renderStoreRunsPage } = await report();
    try {
      return sendHtml(reply, 200, renderStoreRunsPage(store.root, await store.listing(), base));
    } catch (err) {
      return sendHtml(reply, 200, renderStoreRunsPage(store.root, [], base, `The snapshot store could not be listed: ${err instanceof Error ? err.message : String(err)}`));
    }
  };
  app.get('/ui', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get('/ui/', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get<{ Params: { file: string } }>('/ui/audio/:file', async (request, reply) => {
    const site = storedSite(ctx.config);
    if ('problem' in site) return sendProblem(reply, httpProblem('SCORES_NOT_FOUND', site.problem));
    return sendAudio(thread, (key) => ctx.sink.get(key), site.spec, request.params.file, request.headers.range, reply);
  });
  app.get<{ Params: { page: string } }>('/ui/:page', async (request, reply) => {
    if (request.params.page === 'runs.html') return storePage(reply, 'r/default/');
    const site = storedSite(ctx.config);
    if ('problem' in site) return notFound(reply, site.problem);
    return sendPage(thread, site.spec, request.params.page, reply);
  });
  const runSetOf = (profile: string, runs: string): { profile: Profile; ids: string[] } | null => (profile in PROFILES && RUN_SET.test(runs) ? { profile: profile as Profile, ids: [...new Set(runs.split('+'))] } : null);
  app.get<{ Params: { profile: string; runs: string } }>('/ui/r/:profile/:runs', async (request, reply) => reply.redirect(`/ui/r/${encodeURIComponent(request.params.profile)}/${encodeURIComponent(request.params.runs)}/index.html`));
  app.get<{ Params: { profile: string; runs: string; file: string } }>('/ui/r/:profile/:runs/audio/:file', async (request, reply) => {
    const set = runSetOf(request.params.profile, request.params.runs);
    if (!set) return sendProblem(reply, httpProblem('AUDIO_NOT_FOUND', 'no such run set'));
    const site = await runSetSite(ctx.config, store, set.profile, set.ids);
    if ('problem' in site) return sendProblem(reply, httpProblem('SCORES_NOT_FOUND', site.problem));
    return sendAudio(thread, storeRead, site.spec, request.params.file, request.headers.range, reply);
  });
  app.get<{ Params: { profile: string; runs: string; page: string } }>('/ui/r/:profile/:runs/:page', async (request, reply) => {
    const set = runSetOf(request.params.profile, request.params.runs);
    if (!set) return notFound(reply, 'No such run set: /ui/r/<default|fast>/<run_id>[+<run_id>…]/<page>.');
    if (request.params.page === 'runs.html') return storePage(reply, '../../default/');
    const site = await runSetSite(ctx.config, store, set.profile, set.ids);
    if ('problem' in site) return notFound(reply, site.problem);
    return sendPage(thread, site.spec, request.params.page, reply);
  });
}
