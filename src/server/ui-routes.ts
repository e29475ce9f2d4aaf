import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { httpProblem } from '../core/index.ts';
import type { Blueprint } from '../packs/index.ts';
import { buildReportModel, loadConversationEvidence, parseBlueprint, parsePageName, parseScoreFile, renderSitePage, SAFE_ID, type ReportModel } from '../report/index.ts';
import { snapshotKey } from '../snapshot/index.ts';
import type { AppContext } from './app-context.ts';
import { sendProblem } from './problem.ts';

/** Same policy as the pages' meta tag: nothing leaves the origin. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const AUDIO_FILE = /^([A-Za-z0-9_-]{1,64})\.wav$/;
const PACK_ID = /^[a-z][a-z0-9-]*$/;

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

interface LoadedModel {
  readonly file: string;
  readonly mtimeMs: number;
  readonly model: ReportModel;
}

/** Loads (and keeps, until the file changes) the model of the configured or newest scores. */
function modelLoader(ctx: AppContext): () => { model: ReportModel } | { problem: string } {
  let cached: LoadedModel | null = null;
  return () => {
    const dir = ctx.config.scoresDir ? resolve(ctx.config.scoresDir) : latestScoresDir(ctx.config.dataDir);
    const file = dir ? join(dir, 'scores.json') : null;
    if (!file || !existsSync(file)) return { problem: `No scores found${dir ? ` in ${dir}` : ` under ${resolve(ctx.config.dataDir, 'scores')}`}. Run mivas run, or mivas score --out, and set MIVAS_SCORES_DIR.` };
    const mtimeMs = statSync(file).mtimeMs;
    if (cached?.file === file && cached.mtimeMs === mtimeMs) return { model: cached.model };
    const parsed = parseScoreFile(readFileSync(file, 'utf8'));
    if (!parsed.ok) return { problem: parsed.problem };
    cached = { file, mtimeMs, model: buildReportModel(parsed.report) };
    return { model: cached.model };
  };
}

function blueprintOf(ctx: AppContext, pack: string): Blueprint | null {
  if (!PACK_ID.test(pack)) return null;
  const file = resolve(ctx.config.packsDir, pack, 'blueprint.json');
  return existsSync(file) ? parseBlueprint(readFileSync(file)) : null;
}

function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(body);
}

function notFound(reply: FastifyReply, message: string): FastifyReply {
  const text = message.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return sendHtml(reply, 404, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mivas: not found</title></head><body><p>${text}</p><p><a href="index.html">Leaderboard</a></p></body></html>\n`);
}

/** One byte range of a `Range: bytes=a-b` header, clamped to the body; null when absent or unusable. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return null;
  const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] !== '' && m[2] !== '' ? Math.min(size - 1, Number(m[2])) : size - 1;
  return start <= end && start < size ? { start, end } : null;
}

async function sendAudio(ctx: AppContext, model: ReportModel, file: string, range: string | undefined, reply: FastifyReply): Promise<FastifyReply> {
  const id = AUDIO_FILE.exec(file)?.[1];
  const v = id && SAFE_ID.test(id) ? model.conversations.get(id) : undefined;
  // The key is built from the scored conversation's own pack and id: never a path from the request.
  const bytes = v && PACK_ID.test(v.pack) && v.evidence.audio_uri ? await ctx.sink.get(snapshotKey(v.pack, v.conversation_id, 'wav')) : null;
  if (!bytes) return sendProblem(reply, httpProblem('AUDIO_NOT_FOUND', 'no recording for that conversation'));
  reply.header('content-type', 'audio/wav').header('accept-ranges', 'bytes').header('cache-control', 'no-store');
  const part = byteRange(range, bytes.length);
  if (!part) return reply.code(200).send(bytes);
  return reply.code(206).header('content-range', `bytes ${part.start}-${part.end}/${bytes.length}`).send(bytes.subarray(part.start, part.end + 1));
}

/**
 * The results UI under `/ui` (docs/ui.md), registered inside the credentialed context. Pages are
 * the same files `mivas report` writes, so every link is relative and works in both places.
 */
export async function uiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const load = modelLoader(ctx);
  app.get('/ui', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get('/ui/', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get<{ Params: { file: string } }>('/ui/audio/:file', async (request, reply) => {
    const loaded = load();
    if ('problem' in loaded) return sendProblem(reply, httpProblem('SCORES_NOT_FOUND', loaded.problem));
    return sendAudio(ctx, loaded.model, request.params.file, request.headers.range, reply);
  });
  app.get<{ Params: { page: string } }>('/ui/:page', async (request, reply) => {
    const page = parsePageName(request.params.page);
    if (!page) return notFound(reply, 'No such page.');
    const loaded = load();
    if ('problem' in loaded) return notFound(reply, loaded.problem);
    const evidence = async (id: string) => {
      const v = loaded.model.conversations.get(id);
      if (!v) throw new Error('conversation vanished from the model');
      return loadConversationEvidence((key) => ctx.sink.get(key), v, blueprintOf(ctx, v.pack));
    };
    const body = await renderSitePage(loaded.model, page, evidence);
    return body === null ? notFound(reply, 'No such task or conversation in these scores.') : sendHtml(reply, 200, body);
  });
}
