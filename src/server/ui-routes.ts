import type { FastifyInstance, FastifyReply } from 'fastify';
import { httpProblem, ID_CHARS } from '../core/index.ts';
import type { AppContext } from './app-context.ts';
import { sendProblem } from './problem.ts';
import { ScoreThread, UiBusyError } from './score-thread.ts';
import type { SiteRef } from './ui-site.ts';
import { PROFILES, type Profile } from './score-job.ts';

/** Same policy as the pages' meta tag: nothing leaves the origin. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A run set in a URL: run ids joined by `+` (at most 12). */
const RUN_SET = new RegExp(`^${ID_CHARS}(\\+${ID_CHARS}){0,11}$`);
/** Seconds a request refused because the UI thread is full is told to wait. */
const RETRY_AFTER_S = 5;
const STORED: SiteRef = { stored: true };

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

/** Asks the UI thread; a full thread is answered 503 UI_BUSY with Retry-After here, and null returned. */
async function ask<T>(reply: FastifyReply, question: () => Promise<T>): Promise<T | null> {
  try {
    return await question();
  } catch (err) {
    if (!(err instanceof UiBusyError)) throw err;
    await sendProblem(reply.header('Retry-After', String(RETRY_AFTER_S)), httpProblem('UI_BUSY', err.message));
    return null;
  }
}

async function sendAudio(thread: ScoreThread, read: (key: string) => Promise<Buffer | Uint8Array | null | undefined>, site: SiteRef, file: string, range: string | undefined, reply: FastifyReply): Promise<FastifyReply> {
  const answer = await ask(reply, () => thread.audio(site, file));
  if (!answer) return reply;
  if ('problem' in answer) return sendProblem(reply, httpProblem('SCORES_NOT_FOUND', answer.problem));
  // The key is built by the UI thread from the scored conversation's own pack and id: never a path from the request.
  const found = answer.key ? await read(answer.key) : null;
  if (!found) return sendProblem(reply, httpProblem('AUDIO_NOT_FOUND', 'no recording for that conversation'));
  const bytes = Buffer.from(found.buffer, found.byteOffset, found.byteLength);
  reply.header('content-type', 'audio/wav').header('accept-ranges', 'bytes').header('cache-control', 'no-store');
  const part = byteRange(range, bytes.length);
  if (!part) return reply.code(200).send(bytes);
  return reply.code(206).header('content-range', `bytes ${part.start}-${part.end}/${bytes.length}`).send(bytes.subarray(part.start, part.end + 1));
}

async function sendPage(thread: ScoreThread, site: SiteRef, name: string, reply: FastifyReply): Promise<FastifyReply> {
  const answer = await ask(reply, () => thread.page(site, name));
  if (!answer) return reply;
  return 'html' in answer ? sendHtml(reply, 200, answer.html) : notFound(reply, answer.notFound);
}

async function sendRunsPage(thread: ScoreThread, base: string, reply: FastifyReply): Promise<FastifyReply> {
  const html = await ask(reply, () => thread.runsPage(base));
  return html === null ? reply : sendHtml(reply, 200, html);
}

/**
 * The results UI under `/ui` (docs/ui.md), registered inside the credentialed context. Pages are
 * the same files `mivas report` writes, so every link is relative and works in both places.
 * `/ui/<page>` shows the stored scores (`MIVAS_SCORES_DIR` or the newest); `/ui/runs.html` lists
 * the runs of the snapshot store; `/ui/r/<profile>/<run+run…>/<page>` is the site of chosen runs,
 * from their stored scores or scored on demand. The store's listing, the scoring, the models and
 * the pages are all the UI thread's (`score-thread.ts`), never the event loop's; recordings are
 * read from the snapshot sink here, by the key the thread gives.
 */
export async function uiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const thread = new ScoreThread(ctx.config, (event) => {
    if ('scoring' in event) ctx.log.info(event.scoring, 'scoring a run on demand for the results UI');
    else ctx.log.warn(event.skipped, 'the results UI skipped a file of the snapshot store');
  });
  app.addHook('onClose', async () => thread.close());
  app.get('/ui', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get('/ui/', async (_request, reply) => reply.redirect('/ui/index.html'));
  app.get<{ Params: { file: string } }>('/ui/audio/:file', async (request, reply) => sendAudio(thread, (key) => ctx.sink.get(key), STORED, request.params.file, request.headers.range, reply));
  app.get<{ Params: { page: string } }>('/ui/:page', async (request, reply) => (request.params.page === 'runs.html' ? sendRunsPage(thread, 'r/default/', reply) : sendPage(thread, STORED, request.params.page, reply)));
  const runSetOf = (profile: string, runs: string): SiteRef | null => (profile in PROFILES && RUN_SET.test(runs) ? { profile: profile as Profile, runIds: [...new Set(runs.split('+'))] } : null);
  app.get<{ Params: { profile: string; runs: string } }>('/ui/r/:profile/:runs', async (request, reply) => reply.redirect(`/ui/r/${encodeURIComponent(request.params.profile)}/${encodeURIComponent(request.params.runs)}/index.html`));
  app.get<{ Params: { profile: string; runs: string; file: string } }>('/ui/r/:profile/:runs/audio/:file', async (request, reply) => {
    const site = runSetOf(request.params.profile, request.params.runs);
    if (!site) return sendProblem(reply, httpProblem('AUDIO_NOT_FOUND', 'no such run set'));
    return sendAudio(thread, (key) => ctx.sink.get(key), site, request.params.file, request.headers.range, reply);
  });
  app.get<{ Params: { profile: string; runs: string; page: string } }>('/ui/r/:profile/:runs/:page', async (request, reply) => {
    const site = runSetOf(request.params.profile, request.params.runs);
    if (!site) return notFound(reply, 'No such run set: /ui/r/<default|fast>/<run_id>[+<run_id>…]/<page>.');
    if (request.params.page === 'runs.html') return sendRunsPage(thread, '../../default/', reply);
    return sendPage(thread, site, request.params.page, reply);
  });
}
