import websocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { httpProblem, type HttpProblem } from '../core/index.ts';
import { closeAppContext, type AppContext } from './app-context.ts';
import { basicAuthHook } from './auth.ts';
import { chirpRoutes } from './chirp-routes.ts';
import { filesRunningOut, openFileCount } from './file-budget.ts';
import { sendProblem } from './problem.ts';
import { rlRoutes, takeRlUrlToken } from './rl-routes.ts';
import { toolRoutes } from './tool-routes.ts';
import { platformRoutes } from './platform-routes.ts';
import { uiRoutes } from './ui-routes.ts';

/** Largest CHIRP message and HTTP body accepted (wire.md §1.10). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Fastify's keep-alive default, kept: an idle connection is closed no sooner than this. */
const KEEP_ALIVE_MS = 72_000;
/** A refused upgrade's socket still open this long after its answer is destroyed. */
const REFUSED_LINGER_MS = 1_000;

function healthBody(ctx: AppContext): Record<string, unknown> {
  const backlog = ctx.outbox.backlog();
  const openFiles = openFileCount();
  const filesLow = filesRunningOut(openFiles, ctx.caps.fileLimit);
  return {
    status: ctx.registry.isDraining() ? 'draining' : filesLow ? 'files_low' : 'ok',
    version: ctx.version,
    pack: ctx.pack.id,
    pack_version: ctx.pack.packVersion,
    harness: ctx.callHarnesses.served.name,
    live_calls: ctx.registry.count(),
    harness_sessions: ctx.harnessSessions.count(),
    capacity: ctx.registry.maxCalls,
    snapshot_backlog: backlog.count,
    snapshot_oldest_pending_s: Math.round(backlog.oldestMs / 1000),
    snapshot_unspooled: backlog.unspooled,
    snapshot_spool_failures: backlog.spoolFailures,
    harness_sessions_max: ctx.harnessSessions.max,
    openenv_sockets: ctx.rl.openEnvSockets.count(),
    openenv_sockets_max: ctx.rl.openEnvSockets.max,
    open_files: openFiles,
    open_files_limit: ctx.caps.fileLimit,
  };
}

/**
 * Every refusal (a 4xx or 5xx answer) closes its connection, so a client that keeps sending (a
 * body after its 401, more requests on a keep-alive socket) holds no handle. A WebSocket
 * upgrade's answer is written on the raw socket by the plugin, outside Node's keep-alive
 * handling: that socket is ended once the answer is out, and destroyed if the peer lingers.
 */
function closeOnRefusal() {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (reply.statusCode < 400) return payload;
    reply.header('Connection', 'close');
    if (request.ws) {
      const socket = request.raw.socket;
      reply.raw.once('finish', () => {
        socket.end();
        setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      });
    }
    return payload;
  };
}

/**
 * Refuses new calls (503 with Retry-After), waits for live and reserved calls to finish up to
 * MIVAS_DRAIN_S on the injected clock (or until `cut` resolves: the operator's second Ctrl-C),
 * then ends the rest with `drain_deadline` (architecture.md §10) and waits for their snapshots to be stored.
 */
export async function drainCalls(ctx: AppContext, cut?: Promise<void>): Promise<void> {
  ctx.registry.startDraining();
  let timer: { cancel(): void } | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = ctx.clock.setTimer(ctx.config.drainMs, resolve);
  });
  await Promise.race([ctx.registry.whenIdle(), deadline, ...(cut ? [cut] : [])]);
  timer?.cancel();
  const cutShort = ctx.registry.sessions();
  for (const session of cutShort) session.end('drain_deadline', 1011);
  await Promise.all(cutShort.map((session) => session.finished()));
}

/**
 * The SIGTERM path: drain while the server still routes (so upgrades get our 503 with
 * Retry-After, `/health` answers 503 and probes are still answered), then close: Fastify's own
 * close would stop routing upgrades before `preClose` runs.
 */
export async function drainAndClose(app: FastifyInstance, ctx: AppContext, cut?: Promise<void>): Promise<void> {
  await drainCalls(ctx, cut);
  await app.close();
}

/**
 * A WebSocket upgrade may only reach a route that takes one (CHIRP, OpenEnv's `/ws`; their
 * config says `takesUpgrade`): on `/health`, `/metrics`, `/ui` or a tool route the plugin would
 * answer 101 (and then close) before any check. Refused with 400 instead.
 */
function refuseUpgradeOffChirp() {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!request.ws || (request.routeOptions.config as { takesUpgrade?: boolean } | undefined)?.takesUpgrade) return;
    await sendProblem(reply.header('Connection', 'close'), httpProblem('NOT_A_CHIRP_PATH', `${request.url.split('?')[0]?.slice(0, 100) ?? ''} is an HTTP route; only CHIRP paths take a WebSocket upgrade`));
  };
}

/** Maps Fastify's own errors (FST_ERR_*) to ours: no code of another library reaches a client. */
function mapError(error: FastifyError): HttpProblem {
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return httpProblem('BODY_NOT_OBJECT', 'the body must be a JSON object');
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return httpProblem('BODY_TOO_LARGE', `bodies are limited to ${MAX_MESSAGE_BYTES} bytes`);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return httpProblem('UNSUPPORTED_MEDIA_TYPE', 'send application/json');
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  return status === 500 ? httpProblem('INTERNAL_ERROR', 'internal error') : { ...httpProblem('BAD_REQUEST', error.message), status };
}

/** Builds the Fastify app without listening (architecture.md convention 14). */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const timeoutMs = ctx.config.httpTimeoutMs;
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    // An RL token sent in the URL (clients that cannot send headers) is taken out before routing and logging.
    rewriteUrl: (req) => takeRlUrlToken(req),
    bodyLimit: MAX_MESSAGE_BYTES,
    // A request (headers and body) must arrive within the timeout, and a connection idle past the
    // keep-alive is closed: a slow or stalled client never holds a socket (and a file) open.
    // Upgraded sockets are not affected (ws clears the socket timeout); calls watch their own.
    requestTimeout: timeoutMs,
    connectionTimeout: Math.max(timeoutMs, KEEP_ALIVE_MS + 5_000),
    keepAliveTimeout: KEEP_ALIVE_MS,
    http: { connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.round(timeoutMs / 4))) },
    // Calls log their own boundaries; per-request lines would drown them.
    logController: new LogController({ disableRequestLogging: true }),
    // A malformed URL is refused before routing, outside the error handler: answer it as ours too.
    frameworkErrors: (error, _request, reply) => {
      void sendProblem(reply, mapError(error));
    },
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, httpProblem('ROUTE_NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]?.slice(0, 100) ?? ''}`)));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapError(error);
    if (mapped.status === 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, mapped);
  });
  app.server.headersTimeout = Math.min(timeoutMs, 60_000);
  await app.register(websocket, {
    options: { maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false },
    preClose: async () => {
      await drainCalls(ctx);
      for (const client of app.websocketServer.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });
  app.addHook('onRequest', refuseUpgradeOffChirp());
  app.addHook('onSend', closeOnRefusal());
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await ctx.ops.metrics.scrape();
    return reply.type(contentType).send(body);
  });
  app.get('/health', async (_request, reply) => {
    const body = healthBody(ctx);
    return reply.code(body.status === 'ok' ? 200 : 503).send(body);
  });
  // The tool routes answer an external harness, not callers: their own bearer token, off by default.
  await app.register(async (tools) => toolRoutes(tools, ctx));
  // A platform under test calls back here (docs/platforms.md): live calls only, their own bearer token, off by default.
  await app.register(async (platform) => platformRoutes(platform, ctx));
  // The RL environment routes (docs/rl.md): off unless MIVAS_RL=1, behind their own bearer token.
  await app.register(async (rl) => rlRoutes(rl, ctx));
  await app.register(async (secured) => {
    secured.addHook('onRequest', basicAuthHook(ctx.config.auth));
    await chirpRoutes(secured, ctx);
    await uiRoutes(secured, ctx);
  });
  app.addHook('onClose', () => closeAppContext(ctx));
  return app;
}
