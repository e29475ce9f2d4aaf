import type { IncomingMessage } from 'node:http';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { CALL_ID_PATTERN, httpProblem, isPlainObject, mintId, MivasError, type HttpErrorCode } from '../core/index.ts';
import {
  aggregateMetrics,
  datasetRows,
  EpisodeDesk,
  openEnvMetadata,
  openEnvSchemas,
  OpenEnvSession,
  previewObservation,
  resetDataSchema,
  OpenEnvHttpSessions,
  rpcError,
  JSON_RPC,
  seedBodySchema,
  trailingAssistantText,
  offeredTools,
  verifyFields,
  noCallerEndpointNotice,
  NO_CALLER_ENDPOINT,
  openingLineTasks,
  actionSchema,
  REWARD_VERSION,
  type DeskPack,
} from '../episodes/index.ts';
import { callerEndpointConfigured } from '../config.ts';
import { loadPack } from '../packs/index.ts';
import { packDatabases } from '../store/index.ts';
import type { AppContext } from './app-context.ts';
import { bearerToken, credentialGate, secretMatches } from './auth.ts';
import type { OpenEnvSockets } from './openenv-sockets.ts';
import { sendProblem } from './problem.ts';
import { rolloutRoutes } from './rl-rollouts.ts';

/** The cookie a NeMo Gym session is tracked by (any client that keeps cookies carries it). */
export const EPISODE_COOKIE = 'mivas_episode';
/** Seconds a client refused at capacity should wait. */
const RETRY_AFTER_S = 5;

/** Where `takeRlUrlToken` keeps a token it took out of the URL, for `rlGate`. */
const URL_TOKEN = Symbol('mivas.rlUrlToken');
type TokenRequest = IncomingMessage & { originalUrl?: string; [URL_TOKEN]?: string };

/**
 * Fastify's `rewriteUrl` for the RL routes: takes the token out of the URL before routing, for
 * clients that cannot send headers (docs/rl.md "Turning it on"). Two forms under `/rl`: a path
 * segment, `/rl/~<token>/<the usual path>` (it survives clients that append paths to a base URL, as
 * OpenEnv's does with `/ws`), and the query `?token=<token>`. The token is kept on the raw request
 * for `rlGate`; neither the routed URL nor `originalUrl` (what logs and messages read) carries it.
 */
export function takeRlUrlToken(req: TokenRequest): string {
  const url = req.url ?? '/';
  if (!/^\/rl(?:[/?]|$)/.test(url)) return url;
  let token: string | undefined;
  let rest = url;
  const segment = /^\/rl\/~([^/?]*)(.*)$/.exec(url);
  if (segment) {
    token = decodedOrEmpty(segment[1] ?? '');
    rest = `/rl${segment[2] ?? ''}`;
  }
  const q = rest.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(rest.slice(q + 1));
    const fromQuery = params.get('token');
    if (fromQuery !== null) {
      token ??= fromQuery;
      params.delete('token');
      const query = params.toString();
      rest = `${rest.slice(0, q)}${query ? `?${query}` : ''}`;
    }
  }
  if (token === undefined) return url;
  req[URL_TOKEN] = token;
  req.originalUrl = rest;
  return rest;
}

/** A percent-decoded path segment; a malformed one reads as empty (and so never matches a token). */
function decodedOrEmpty(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/**
 * The one gate of every RL route (NeMo Gym, OpenEnv HTTP and its WebSocket upgrade, MCP, rollouts):
 * off without MIVAS_RL_TOKEN (loopback only, config.ts); with it, the request needs the token as
 * `Authorization: Bearer`, or in its URL (`takeRlUrlToken`). Compared in constant time.
 */
function rlGate(token: string | undefined) {
  return credentialGate((request) =>
    token === undefined || secretMatches(bearerToken(request.headers.authorization) ?? (request.raw as TokenRequest)[URL_TOKEN], token)
      ? null
      : { problem: httpProblem('RL_UNAUTHORIZED', 'the RL routes need MIVAS_RL_TOKEN: Authorization: Bearer <token>, or in the URL as /rl/~<token>/… or ?token=<token>'), challenge: 'Bearer realm="mivas-rl"' },
  );
}

/** The Set-Cookie value that names an episode (sent on every answer about it: see nemoGymRoutes). */
function episodeCookie(id: string): string {
  return `${EPISODE_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`;
}

/** The episode id a request names: the path's, else the session cookie's. */
function episodeIdOf(request: FastifyRequest): string | null {
  const fromPath = (request.params as { episode_id?: string } | undefined)?.episode_id;
  if (fromPath) return fromPath;
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === EPISODE_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return null;
}

/** Answers a desk or episode error as its catalogued problem; anything else is rethrown (a 500). */
function sendEpisodeError(reply: FastifyReply, err: unknown): FastifyReply {
  if (!(err instanceof MivasError)) throw err;
  const code = err.code as HttpErrorCode;
  if (code === 'EPISODES_FULL') reply.header('Retry-After', String(RETRY_AFTER_S));
  return sendProblem(reply, httpProblem(code, err.message));
}

function requireEpisodeId(request: FastifyRequest): string {
  const id = episodeIdOf(request);
  if (!id) throw new MivasError('EPISODE_NOT_FOUND', `no episode: seed_session first and send its ${EPISODE_COOKIE} cookie`);
  if (!CALL_ID_PATTERN.test(id)) throw new MivasError('EPISODE_NOT_FOUND', 'that is not an episode id');
  return id;
}

/** The desk's packs: the served pack on the app's own databases, others on a template and folder of their own. */
async function deskPacks(ctx: AppContext): Promise<Map<string, DeskPack>> {
  const packs = new Map<string, DeskPack>();
  for (const id of ctx.config.rl.packs) {
    if (id === ctx.pack.id) {
      packs.set(id, { pack: ctx.pack, databases: ctx.databases, templateDump: ctx.templateDump });
      continue;
    }
    const pack = await loadPack(resolve(ctx.config.packsDir), id, resolve(ctx.config.migrationsDir));
    packs.set(id, { pack, ...packDatabases(resolve(ctx.config.dataDir), pack, join('episodes', id)) });
  }
  return packs;
}

/** Sets the episode's cookie on an answer about an episode this desk knows (see nemoGymRoutes). */
function renewCookie(reply: FastifyReply, desk: EpisodeDesk, id: string): void {
  if (desk.knows(id)) reply.header('Set-Cookie', episodeCookie(id));
}

/**
 * The NeMo Gym resources-server routes of one pack under `prefix` (docs/rl.md "NeMo Gym"):
 * seed_session (a fresh episode, tracked by cookie), one POST per tool (a path parameter takes any
 * name, so an unknown one is refused by the engine like a model's), verify, aggregate_metrics and
 * reverify_mode. Every answer about an episode sets its cookie again: NeMo Gym's simple agent keeps
 * no cookie jar but replaces its cookies with each response's Set-Cookie, so an answer without it
 * would lose the episode for the next call and for verify.
 */
function nemoGymRoutes(app: FastifyInstance, desk: EpisodeDesk, packId: string, prefix: string): void {
  app.post(`${prefix}/seed_session`, async (request, reply) => {
    if (!isPlainObject(request.body)) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'seed_session takes the dataset row as a JSON object'));
    const body = seedBodySchema.safeParse(request.body);
    if (!body.success) return sendProblem(reply, httpProblem('EPISODE_INVALID', body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
    if (body.data.pack && body.data.pack !== packId) return sendProblem(reply, httpProblem('EPISODE_INVALID', `this row is for pack ${body.data.pack}; this route serves ${packId}`));
    try {
      const previous = episodeIdOf(request);
      if (previous && desk.get(previous)) await desk.finish(previous, 'client_closed');
      const { episode, callerSaid } = await desk.open({
        pack: packId,
        taskId: body.data.task_id,
        seed: body.data.seed ?? body.data._ng_rollout_index,
        handoffMode: body.data.handoff_mode ?? 'soft',
        caller: body.data.caller,
        maxTurns: body.data.max_turns,
        policy: 'nemo-gym',
        reapUntouched: true,
        model: body.data.responses_create_params?.model ?? null,
      });
      const view = episode.view();
      reply.header('Set-Cookie', episodeCookie(episode.id));
      return reply.send({ episode_id: episode.id, task_id: view.task_id, agent: view.agent, handoff_mode: view.handoff_mode, caller_said: callerSaid, done: view.done });
    } catch (err) {
      return sendEpisodeError(reply, err);
    }
  });

  app.post(`${prefix}/verify`, async (request, reply) => {
    if (!isPlainObject(request.body)) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'verify takes {responses_create_params, response, ...row} as a JSON object'));
    try {
      const id = requireEpisodeId(request);
      renewCookie(reply, desk, id);
      const live = desk.get(id);
      if (live) {
        const trailing = trailingAssistantText(request.body.response);
        if (trailing) live.speakWithoutReply(trailing);
      }
      const result = await desk.finish(id, 'policy_stopped');
      return reply.send({ ...request.body, ...verifyFields(result) });
    } catch (err) {
      return sendEpisodeError(reply, err);
    }
  });

  app.post(`${prefix}/aggregate_metrics`, async (request, reply) => {
    const responses = isPlainObject(request.body) ? request.body.verify_responses : undefined;
    if (!Array.isArray(responses) || !responses.every(isPlainObject)) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'aggregate_metrics takes {verify_responses: [object, ...]}'));
    return reply.send(aggregateMetrics(responses));
  });

  // verify reads the episode this server holds, so a stored rollout cannot be re-verified elsewhere.
  app.get(`${prefix}/reverify_mode`, async (_request, reply) => reply.type('application/json').send(JSON.stringify('unsupported')));

  const tool = async (request: FastifyRequest, reply: FastifyReply, name: string): Promise<FastifyReply> => {
    if (!isPlainObject(request.body)) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'a tool takes its arguments as a JSON object'));
    try {
      const id = requireEpisodeId(request);
      renewCookie(reply, desk, id);
      const step = await desk.step(id, { name, arguments: request.body });
      return reply.send(step.output);
    } catch (err) {
      return sendEpisodeError(reply, err);
    }
  };
  app.post<{ Params: { tool: string } }>(`${prefix}/:tool`, (request, reply) => tool(request, reply, request.params.tool));
}

/**
 * A socket message queue: messages are answered one at a time, in order. The socket's bounds
 * (idle, pings, back-pressure both ways) are kept by its watch (src/server/openenv-sockets.ts).
 */
function openEnvSocket(desk: EpisodeDesk, packId: string, socket: WebSocket, log: FastifyRequest['log'], sockets: OpenEnvSockets): void {
  if (desk.isFull()) {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'error', data: { message: `${desk.maxEpisodes} episodes are live in this process`, code: 'CAPACITY_REACHED', active_sessions: desk.count(), max_sessions: desk.maxEpisodes } }));
    socket.close(1013, 'at capacity');
    return;
  }
  const session = new OpenEnvSession(desk, packId);
  const watch = sockets.watch(socket, () => session.hasLiveEpisode());
  const send = (data: unknown): void => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(data));
    watch.sent();
  };
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  socket.on('message', (raw: Buffer, isBinary: boolean) => {
    watch.received();
    queue = queue.then(async () => {
      // One message per turn of the event loop, at a bounded rate: a burst read in one chunk
      // (thousands of tiny messages) never holds the loop, so calls' pacers and /health keep theirs.
      await watch.turn();
      if (closed) return;
      try {
        const { reply, close } = await session.handle(isBinary ? '' : raw.toString('utf8'));
        if (reply) send(reply);
        if (close) {
          closed = true;
          socket.close(1000, 'closed');
        }
      } catch (err) {
        log.error({ err }, 'openenv message failed');
        send({ type: 'error', data: { message: err instanceof Error ? err.message : String(err), code: 'EXECUTION_ERROR' } });
      } finally {
        watch.answered();
      }
    });
  });
  socket.on('close', () => {
    closed = true;
    queue = queue.then(() => session.end()).catch((err: unknown) => log.warn({ err }, 'openenv episode did not finish cleanly'));
  });
}

/** Refuses an OpenEnv upgrade before its 101 when MIVAS_RL_MAX_SOCKETS sockets are open (503, and the connection is closed). */
function socketCapGate(sockets: OpenEnvSockets) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!request.ws || !sockets.isFull()) return;
    await sendProblem(reply.header('Retry-After', String(RETRY_AFTER_S)), httpProblem('OPENENV_SOCKETS_FULL', `${sockets.max} OpenEnv sockets are open in this process`));
  };
}

/** The OpenEnv routes of one pack under `prefix` (docs/rl.md "OpenEnv"). */
function openEnvRoutes(app: FastifyInstance, ctx: Pick<AppContext, 'rl' | 'version' | 'ids'>, desk: EpisodeDesk, packId: string, prefix: string): void {
  const deskPack = desk.deskPack(packId) as DeskPack;
  app.get(`${prefix}/ws`, { websocket: true, config: { takesUpgrade: true }, preValidation: socketCapGate(ctx.rl.openEnvSockets) }, (socket: WebSocket, request: FastifyRequest) => openEnvSocket(desk, packId, socket, request.log, ctx.rl.openEnvSockets));
  app.get(`${prefix}/health`, async () => ({ status: 'healthy' }));
  app.get(`${prefix}/schema`, async () => openEnvSchemas());
  app.get(`${prefix}/metadata`, async () => openEnvMetadata(deskPack.pack, ctx.version));
  // HTTP reset, step and state are stateless in OpenEnv (a fresh environment per request): multi-turn needs /ws.
  app.get(`${prefix}/state`, async () => ({ episode_id: null, step_count: 0, pack: packId, task_id: null, agent: null, done: false, end_reason: null, reward: null }));
  app.post(`${prefix}/reset`, async (request, reply) => {
    const body = isPlainObject(request.body) ? request.body : {};
    const parsed = resetDataSchema.safeParse(Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'timeout_s' && k !== 'request_id')));
    if (!parsed.success) return sendProblem(reply, httpProblem('VALIDATION_ERROR', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
    try {
      return reply.send(previewObservation(desk, packId, parsed.data));
    } catch (err) {
      return sendEpisodeError(reply, err);
    }
  });
  app.post(`${prefix}/step`, async (request, reply) => {
    const action = actionSchema.safeParse(isPlainObject(request.body) ? request.body.action : undefined);
    if (!action.success) return sendProblem(reply, httpProblem('VALIDATION_ERROR', action.error.issues.map((i) => `action.${i.path.join('.')}: ${i.message}`).join('; ')));
    if (action.data.type === 'call_tool') return sendProblem(reply, httpProblem('EPISODE_NOT_FOUND', 'HTTP /step is stateless (a fresh environment per request): run episodes over /ws, or MCP sessions on POST /mcp'));
    return reply.send({ observation: { tools: entryToolsOf(desk, packId) }, reward: null, done: false });
  });
  const sessions = new OpenEnvHttpSessions(desk, packId, () => mintId(ctx.ids, 'session'));
  app.post(`${prefix}/mcp`, async (request, reply) => reply.send(isPlainObject(request.body) ? await sessions.handle(request.body) : rpcError(null, JSON_RPC.parseError, 'Parse error')));
}

/** What list_tools answers before any episode: the entry desk's tools (native), as on the WebSocket. */
function entryToolsOf(desk: EpisodeDesk, packId: string): { name: string; description: string; input_schema: unknown }[] {
  const pack = desk.deskPack(packId)?.pack;
  if (!pack) return [];
  return offeredTools(pack, pack.entryAgent, 'native').map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * The RL routes (docs/rl.md), mounted when MIVAS_RL=1: per pack under `/rl/<pack>/` the NeMo Gym
 * resources server (also under `/rl/<pack>/episodes/:episode_id/` and NeMo Gym's
 * `/ng-rollout/:rollout_id/` prefix) and the dataset, OpenEnv under `/rl/<pack>/openenv/`, the MCP
 * server at `/rl/<pack>/mcp`, and the
 * served pack's NeMo Gym routes at the root (NeMo Gym addresses a server by host and port).
 */
export async function rlRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (!ctx.config.rl.enabled) return;
  const packs = await deskPacks(ctx);
  const caller = rlCallerFacts(ctx, packs);
  if (caller.notice) ctx.log.warn({ opening_line_tasks: caller.opening_line_tasks }, `RL episodes: ${caller.notice}`);
  const desk = new EpisodeDesk({
    packs,
    maxEpisodes: ctx.caps.episodes,
    idleMs: ctx.config.rl.idleMs,
    untouchedMs: ctx.config.rl.untouchedMs,
    defaultCaller: caller.default,
    llmUnavailable: caller.llm ? undefined : (pack) => `caller llm: ${noCallerEndpointNotice(pack)}`,
    clock: ctx.clock,
    ids: ctx.ids,
    callers: ctx.rl.callers,
    replica: ctx.config.rl.replica,
    conversationIds: ctx.callIds,
    store: (pack, callId, parts) => {
      // Spooled asynchronously (docs/reliability.md); the episode scores from the parts it holds.
      ctx.outbox.store(pack, callId, parts).catch((err: unknown) => ctx.log.error({ err, callId }, 'an episode snapshot could not be stored'));
    },
  });
  app.addHook('onRequest', rlGate(ctx.config.rl.token));
  // The MCP SDK loads only when RL is on (docs/performance.md, "Boot").
  const { McpSessions } = await import('./rl-mcp.ts');
  const mcp = new McpSessions(ctx, desk);
  app.addHook('preClose', async () => {
    await mcp.close();
    await desk.close();
  });
  app.get('/rl', async () => ({ packs: desk.packIds(), replica: ctx.config.rl.replica ?? null, live_episodes: desk.count(), max_episodes: desk.maxEpisodes, reward_version: REWARD_VERSION, caller }));
  for (const packId of desk.packIds()) {
    const base = `/rl/${packId}`;
    const pack = (desk.deskPack(packId) as DeskPack).pack;
    app.get(`${base}/dataset.jsonl`, async (_request, reply) => reply.type('application/jsonl').send(`${datasetRows(pack, { caller: caller.default }).map((r) => JSON.stringify(r)).join('\n')}\n`));
    for (const prefix of [base, `${base}/ng-rollout/:rollout_id`, `${base}/episodes/:episode_id`]) nemoGymRoutes(app, desk, packId, prefix);
    openEnvRoutes(app, ctx, desk, packId, `${base}/openenv`);
    mcp.mount(app, packId, `${base}/mcp`);
  }
  rolloutRoutes(app, ctx);
  for (const prefix of ['', '/ng-rollout/:rollout_id']) nemoGymRoutes(app, desk, ctx.pack.id, prefix);
}

/** What `GET /rl` says of the caller: the default kind, whether `llm` can be had, and without it the notice and the tasks passable by the opening line. */
interface RlCallerFacts {
  readonly default: 'llm' | 'scripted';
  readonly llm: boolean;
  readonly notice: string | null;
  readonly opening_line_tasks: Record<string, string[]> | null;
}

/** The episodes' caller: `llm` when a caller endpoint is configured (MIVAS_CALLER_*), else `scripted`, said plainly. */
function rlCallerFacts(ctx: AppContext, packs: ReadonlyMap<string, DeskPack>): RlCallerFacts {
  if (callerEndpointConfigured(ctx.config.caller)) return { default: 'llm', llm: true, notice: null, opening_line_tasks: null };
  const deskPacks = [...packs.values()].map((p) => p.pack);
  return {
    default: 'scripted',
    llm: false,
    notice: NO_CALLER_ENDPOINT,
    opening_line_tasks: Object.fromEntries(deskPacks.map((pack) => [pack.id, openingLineTasks(pack)])),
  };
}
