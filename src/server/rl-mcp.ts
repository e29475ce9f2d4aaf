import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpProblem, MivasError, type HttpErrorCode, type Timer } from '../core/index.ts';
import { callToolResult, JSON_RPC, resetDataSchema, rewardReport, type EpisodeDesk, type TextEpisode } from '../episodes/index.ts';
import type { AppContext } from './app-context.ts';

/** The resource an MCP client reads the episode's state and reward from. */
export const EPISODE_RESOURCE = 'mivas://episode';
const SESSION_HEADER = 'mcp-session-id';
/** Seconds a client refused at capacity should wait (as the other RL routes). */
const RETRY_AFTER_S = 5;

interface McpSession {
  readonly episode: TextEpisode;
  readonly transport: StreamableHTTPServerTransport;
  lastUsedMs: number;
}

/** The query fields of an initialize request (strings in a URL) as reset fields. */
const QUERY_NUMBERS = new Set(['seed', 'max_turns']);
function queryResetData(query: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (key === 'token') continue; // the RL gate's query token, not an episode field
    fields[key] = QUERY_NUMBERS.has(key) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return fields;
}

/** A JSON-RPC error answered over plain HTTP (before any transport owns the request), with the catalogued code in `data`. */
export function refuse(reply: FastifyReply, code: HttpErrorCode, message: string, rpcCode: number = JSON_RPC.serverError): FastifyReply {
  const status = httpProblem(code, message).status;
  if (code === 'EPISODES_FULL') reply.header('Retry-After', String(RETRY_AFTER_S));
  return reply.code(status).send({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message, data: { code } } });
}

/** Hands a request to an MCP transport: from here the SDK writes the response. */
export async function passToTransport(transport: StreamableHTTPServerTransport, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.hijack();
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

/**
 * The MCP server of one pack at `/rl/<pack>/mcp` (docs/rl.md "MCP"), Streamable HTTP on the
 * official SDK (`Server` + `StreamableHTTPServerTransport`). The MCP session is the episode:
 * `initialize` opens it (the task, seed and settings from the URL's query), its id is the
 * session id, `tools/list` offers the active desk's tools with `say_to_caller`, `tools/call` runs
 * one action through the episode desk (`notifications/tools/list_changed` after a native
 * handoff), the `mivas://episode` resource reports the reward, and DELETE (or idling past
 * MIVAS_RL_IDLE_S) ends the episode and forgets the session. Sessions count against
 * MIVAS_RL_MAX_EPISODES, ended ones included until they are closed or reaped.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private reaper: Timer;
  private closed = false;

  private readonly ctx: AppContext;
  private readonly desk: EpisodeDesk;

  constructor(ctx: AppContext, desk: EpisodeDesk) {
    this.ctx = ctx;
    this.desk = desk;
    this.reaper = this.schedule();
  }

  /** Mounts the MCP route of a pack. */
  mount(app: FastifyInstance, packId: string, path: string): void {
    app.route({ method: ['GET', 'POST', 'DELETE'], url: path, handler: (request, reply) => this.handle(packId, request, reply) });
  }

  /** Ends every session's episode and closes its transport (the server is closing). */
  async close(): Promise<void> {
    this.closed = true;
    this.reaper.cancel();
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.drop(id, 'server_closing')));
  }

  private async handle(packId: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const sessionId = request.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session || session.episode.pack.id !== packId) return refuse(reply, 'EPISODE_NOT_FOUND', `no MCP session ${sessionId.slice(0, 40)} on this pack: initialize a new one`, -32001);
      session.lastUsedMs = this.ctx.clock.nowMs();
      return passToTransport(session.transport, request, reply);
    }
    if (!isInitializeRequest(request.body)) return refuse(reply, 'MCP_SESSION_REQUIRED', 'send initialize first, then the Mcp-Session-Id it returns on every request', JSON_RPC.serverError);
    let opened: Awaited<ReturnType<McpSessions['open']>>;
    try {
      opened = await this.open(packId, request.query);
    } catch (err) {
      if (!(err instanceof MivasError)) throw err;
      return refuse(reply, err.code as HttpErrorCode, err.message);
    }
    await passToTransport(opened.transport, request, reply);
    // An initialize the transport refused (an Accept or Content-Type it does not serve) handed out no session: nothing can reach the episode.
    if (!opened.transport.sessionId) await this.drop(opened.episodeId, 'client_closed');
  }

  /** Opens the episode an initialize asks for (query fields) and the session serving it. */
  private async open(packId: string, query: unknown): Promise<{ transport: StreamableHTTPServerTransport; episodeId: string }> {
    if (this.closed || this.sessions.size >= this.desk.maxEpisodes) throw new MivasError('EPISODES_FULL', `${this.desk.maxEpisodes} MCP sessions are open in this process`);
    const data = resetDataSchema.safeParse(queryResetData(query));
    if (!data.success) throw new MivasError('EPISODE_INVALID', data.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const f = data.data;
    const { episode, callerSaid } = await this.desk.open({ pack: packId, taskId: f.task_id, seed: f.seed, handoffMode: f.handoff_mode, caller: f.caller, maxTurns: f.max_turns, episodeId: f.episode_id, policy: 'mcp', reapUntouched: true });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => episode.id,
      onsessionclosed: async (id) => {
        await this.drop(id, 'client_closed');
      },
    });
    this.sessions.set(episode.id, { episode, transport, lastUsedMs: this.ctx.clock.nowMs() });
    const view = episode.view();
    const opening = callerSaid === null ? 'The caller has not said anything yet.' : `The caller said: ${JSON.stringify(callerSaid)}`;
    const server = new Server({ name: `mivas-${packId}`, version: this.ctx.version }, { capabilities: { tools: { listChanged: true }, resources: {} }, instructions: `${view.instructions}\n\n${opening}` });
    this.serve(server, episode);
    await server.connect(transport);
    return { transport, episodeId: episode.id };
  }

  /** The session's MCP methods, all on its one episode. */
  private serve(server: Server, episode: TextEpisode): void {
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: episode.isDone() ? [] : episode.view().tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as { type: 'object' } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (episode.isDone()) throw new McpError(JSON_RPC.serverError, `episode ${episode.id} has ended; read ${EPISODE_RESOURCE} for its reward`, { code: 'EPISODE_ENDED' });
      let step;
      try {
        step = await this.desk.step(episode.id, { name: request.params.name, arguments: request.params.arguments ?? {} });
      } catch (err) {
        if (err instanceof MivasError) throw new McpError(JSON_RPC.serverError, err.message, { code: err.code });
        throw err;
      }
      if (step.tools) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      const meta = { 'mivas/done': step.done, 'mivas/reward': step.result?.reward ?? null, 'mivas/agent': step.agent, 'mivas/instructions': step.instructions ?? null };
      return callToolResult(step.output, { _meta: meta }) as CallToolResult;
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{ uri: EPISODE_RESOURCE, name: 'episode', mimeType: 'application/json', description: 'This session\'s episode: the active desk, whether it is done and, once done, its reward and components.' }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      if (request.params.uri !== EPISODE_RESOURCE) throw new McpError(JSON_RPC.invalidParams, `no resource ${request.params.uri.slice(0, 80)}: read ${EPISODE_RESOURCE}`);
      const result = episode.isDone() ? await episode.result() : null;
      const report = rewardReport(episode.id, episode.isDone() && result ? undefined : episode.view(), result);
      return { contents: [{ uri: EPISODE_RESOURCE, mimeType: 'application/json', text: JSON.stringify(report) }] };
    });
  }

  /** Ends a session: its episode finished (if still live) and its transport closed. */
  private async drop(id: string, cause: 'client_closed' | 'idle' | 'server_closing'): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    try {
      if (!session.episode.isDone()) await this.desk.finish(id, cause);
    } finally {
      await session.transport.close();
    }
  }

  /** Drops the sessions idle for MIVAS_RL_IDLE_S (their episodes end as `idle`). */
  private schedule(): Timer {
    const idleMs = this.ctx.config.rl.idleMs;
    return this.ctx.clock.setTimer(Math.max(1000, idleMs / 4), () => {
      const cutoff = this.ctx.clock.nowMs() - idleMs;
      const idle = [...this.sessions].filter(([, s]) => s.lastUsedMs <= cutoff).map(([id]) => id);
      void Promise.allSettled(idle.map((id) => this.drop(id, 'idle'))).finally(() => {
        if (!this.closed) this.reaper = this.schedule();
      });
    });
  }
}
