import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ID_CHARS } from '../core/index.ts';
import { buildReportModel, loadConversationEvidence, parseBlueprint, parsePageName, parseScoreFile, readPackFacts, renderSitePage, renderStoreRunsPage, SAFE_ID, type ReportModel } from '../report/index.ts';
import type { RunMeta, ScoreReport } from '../scoring/index.ts';
import { snapshotKey } from '../snapshot/index.ts';
import { scoreStoredRun, type Profile } from './score-job.ts';
import { runFileOf, runSetSite, STORED_RUN, storedSite, StoreRuns, type SiteRun, type SiteSpec, type UiConfig } from './ui-store.ts';

/** Which site a request names: the stored scores (`/ui/<page>`), or a run set of the store (`/ui/r/<profile>/<runs>/<page>`). */
export type SiteRef = { readonly stored: true } | { readonly profile: Profile; readonly runIds: readonly string[] };

/** What the UI thread answers for a page: its HTML, or the message of a 404 page. */
export type PageAnswer = { readonly html: string } | { readonly notFound: string };

/** The snapshot key of a conversation's recording (`<id>.wav` of the site), or null: built from the scored conversation, never from the request. */
export type AudioAnswer = { readonly key: string | null } | { readonly problem: string };

/** What the UI thread tells the server's log. */
export type UiEvent = { readonly scoring: { readonly runId: string; readonly conversations: number } } | { readonly skipped: { readonly key: string; readonly reason: string } };

/** A run's verdicts and the run.json entries that go with them: every run the file names when it is shown whole, else the run's own. */
interface RunVerdicts {
  readonly report: ScoreReport;
  readonly meta: ReadonlyMap<string, RunMeta>;
}

const PACK_ID = /^[a-z][a-z0-9-]*$/;
const AUDIO_FILE = new RegExp(`^(${ID_CHARS})\\.wav$`);
const MODELS = 8;
const REPORTS = 32;

/** Node access to the packs folder for the pages' task facts and blueprints. */
function packFacts(packsDir: string, packIds: Iterable<string>): ReturnType<typeof readPackFacts> {
  const dir = resolve(packsDir);
  return readPackFacts(
    packIds,
    {
      read: (pack, path) => (existsSync(join(dir, pack, path)) ? readFileSync(join(dir, pack, path)) : null),
      taskFiles: (pack) => (existsSync(join(dir, pack, 'tasks')) ? readdirSync(join(dir, pack, 'tasks')).sort() : []),
    },
    (bytes) => parseBlueprint(bytes),
  );
}

/** How a site that could not be built reads: the stored scores' own problem, or which runs of a run set could not be scored. */
function failure(spec: SiteSpec, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return spec.runs[0]?.runId === STORED_RUN ? message : `Could not score ${spec.runs.map((r) => r.runId).join(', ')}: ${message}`;
}

/** Keeps at most `max` entries, dropping the oldest. */
function bounded<V>(cache: Map<string, V>, max: number): void {
  while (cache.size > max) cache.delete(cache.keys().next().value as string);
}

/** Remembers a pending value under a key (dropped again if it fails), at most `max` of them. */
function remember<V>(cache: Map<string, Promise<V>>, key: string, max: number, make: () => Promise<V>): Promise<V> {
  let pending = cache.get(key);
  if (!pending) {
    pending = make();
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
    bounded(cache, max);
  }
  return pending;
}

/**
 * The results sites of the UI thread: each run's scores cached by its content key, each site's
 * model by the site's key, and its pages rendered from the model on request.
 */
export class UiSites {
  private readonly reports = new Map<string, Promise<RunVerdicts>>();
  private readonly models = new Map<string, Promise<ReportModel>>();
  private readonly config: UiConfig;
  private readonly tell: (event: UiEvent) => void;
  private readonly store: StoreRuns;

  /** `tell` hears each run scored on demand and each file of the store skipped. */
  constructor(config: UiConfig, tell: (event: UiEvent) => void) {
    this.config = config;
    this.tell = tell;
    this.store = new StoreRuns(config, (key, reason) => tell({ skipped: { key, reason } }));
  }

  /** The store's runs page (`runs.html`), its links relative to `base`. */
  async runsPage(base: string): Promise<string> {
    try {
      return renderStoreRunsPage(this.store.root, await this.store.listing(), base);
    } catch (err) {
      return renderStoreRunsPage(this.store.root, [], base, `The snapshot store could not be listed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async page(ref: SiteRef, name: string): Promise<PageAnswer> {
    const page = parsePageName(name);
    if (!page) return { notFound: 'No such page.' };
    const site = await this.site(ref);
    if ('problem' in site) return { notFound: site.problem };
    const { spec } = site;
    let model: ReportModel;
    try {
      model = await this.model(spec);
    } catch (err) {
      return { notFound: failure(spec, err) };
    }
    const source = this.store.source;
    const evidence = async (id: string) => {
      const v = model.conversations.get(id);
      if (!v) throw new Error('conversation vanished from the model');
      return loadConversationEvidence((key) => source.read(key), v, model.blueprints.get(v.pack) ?? null);
    };
    const html = await renderSitePage(model, page, evidence);
    return html === null ? { notFound: 'No such task or conversation in these scores.' } : { html };
  }

  async audio(ref: SiteRef, file: string): Promise<AudioAnswer> {
    const site = await this.site(ref);
    if ('problem' in site) return site;
    let model: ReportModel;
    try {
      model = await this.model(site.spec);
    } catch (err) {
      return { problem: failure(site.spec, err) };
    }
    const id = AUDIO_FILE.exec(file)?.[1];
    const v = id && SAFE_ID.test(id) ? model.conversations.get(id) : undefined;
    return { key: v && PACK_ID.test(v.pack) && v.evidence.audio_uri ? snapshotKey(v.pack, v.conversation_id, 'wav') : null };
  }

  private site(ref: SiteRef): Promise<{ spec: SiteSpec } | { problem: string }> {
    return 'stored' in ref ? Promise.resolve(storedSite(this.config)) : runSetSite(this.config, this.store, ref.profile, ref.runIds);
  }

  private model(spec: SiteSpec): Promise<ReportModel> {
    return remember(this.models, spec.key, MODELS, async () => {
      const runs = await Promise.all(spec.runs.map((run) => this.scores(run)));
      const reports = runs.map((r) => r.report);
      const runMeta = new Map<string, RunMeta>(runs.flatMap((r) => [...r.meta]));
      const { blueprints, taskInfo } = packFacts(spec.packsDir, reports.flatMap((r) => r.conversations.map((c) => c.pack)));
      return buildReportModel({ reports, runMeta, blueprints, taskInfo, origin: spec.origin });
    });
  }

  private scores(run: SiteRun): Promise<RunVerdicts> {
    const scores = run.scores;
    return remember(this.reports, run.key, REPORTS, async () => {
      if ('job' in scores) {
        this.tell({ scoring: { runId: run.runId, conversations: scores.job.calls.length } });
        return { report: await scoreStoredRun(scores.job), meta: new Map() };
      }
      const parsed = parseScoreFile(readFileSync(scores.scoresFile, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.problem);
      const all = runFileOf(scores.scoresFile);
      if (!scores.conversations) return { report: parsed.report, meta: all };
      const ids = new Set(scores.conversations);
      const meta = all.get(run.runId);
      return { report: { ...parsed.report, conversations: parsed.report.conversations.filter((v) => ids.has(v.conversation_id)) }, meta: new Map(meta ? [[run.runId, meta]] : []) };
    });
  }
}
