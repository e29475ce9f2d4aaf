import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CallSession } from '../call/index.ts';
import { callToolResult, JSON_RPC } from '../episodes/index.ts';
import type { AppContext } from './app-context.ts';
import { passToTransport, refuse } from './rl-mcp.ts';

const SESSION_HEADER = 'mcp-session-id';
/** MCP sessions open at once across all calls (a platform opens one or two per call). */
const MAX_SESSIONS = 256;

interface CallMcpSession {
  readonly callId: string;
  readonly call: CallSession;
  readonly transport: StreamableHTTPServerTransport;
}

/**
 * A standard MCP tool server per live call at `/platform/calls/<call id>/mcp` (docs/platforms.md),
 * for platforms that take an MCP tool server: Streamable HTTP on the official SDK, the same
 * transport hand-off and refusals as the RL endpoint (`rl-mcp.ts`). `tools/list` offers the call's
 * active desk's tools; `tools/call` runs one through that call's conversation like any external
 * call (recorded with origin `http`, its effect applied to the call), then announces
 * `notifications/tools/list_changed` when the desk changed. An id that is not a live call is
 * refused and nothing is opened; a session dies with its call.
 */
export class CallMcpSessions {
  private readonly sessions = new Map<string, CallMcpSession>();
  private closed = false;

  private readonly ctx: AppContext;
  private readonly bound: (callId: string) => CallSession | null;

  constructor(ctx: AppContext, bound: (callId: string) => CallSession | null) {
    this.ctx = ctx;
    this.bound = bound;
  }

  /** Mounts the per-call route (its path has a `:callId` parameter). */
  mount(app: FastifyInstance, path: string): void {
    app.route<{ Params: { callId: string } }>({ method: ['GET', 'POST', 'DELETE'], url: path, handler: (request, reply) => this.handle(request.params.callId, request, reply) });
  }

  /** Closes every session's transport (the server is closing). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.drop(id)));
  }

  private async handle(callId: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    await this.dropEnded();
    const call = this.bound(callId);
    if (!call) return refuse(reply, 'CALL_NOT_BOUND', `call ${JSON.stringify(callId.slice(0, 64))} is not a live call; nothing was opened`);
    const sessionId = request.headers[SESSION_HEADER];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session || session.callId !== callId) return refuse(reply, 'EPISODE_NOT_FOUND', `no MCP session ${sessionId.slice(0, 40)} on call ${callId}: initialize a new one`, -32001);
      return passToTransport(session.transport, request, reply);
    }
    if (!isInitializeRequest(request.body)) return refuse(reply, 'MCP_SESSION_REQUIRED', 'send initialize first, then the Mcp-Session-Id it returns on every request');
    if (this.closed || this.sessions.size >= MAX_SESSIONS) return refuse(reply, 'EPISODES_FULL', `${MAX_SESSIONS} MCP sessions are open in this process`);
    const transport = await this.open(callId, call);
    await passToTransport(transport, request, reply);
    if (!transport.sessionId) await transport.close();
  }

  private async open(callId: string, call: CallSession): Promise<StreamableHTTPServerTransport> {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { callId, call, transport });
      },
      onsessionclosed: async (id) => {
        await this.drop(id);
      },
    });
    const server = new Server({ name: `mivas-${this.ctx.pack.id}-call`, version: this.ctx.version }, { capabilities: { tools: { listChanged: true } } });
    this.serve(server, call);
    await server.connect(transport);
    return transport;
  }

  /** The session's methods, all on its one call. */
  private serve(server: Server, call: CallSession): void {
    server.setRequestHandler(ListToolsRequestSchema, () => {
      const conversation = call.conversationOrNull();
      if (!conversation || call.hasEnded()) return { tools: [] };
      return { tools: conversation.agentSetup().tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as { type: 'object' } })) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const before = call.conversationOrNull()?.activeAgent();
      const result = call.dispatchFromHarness({ toolCallId: null, name: request.params.name, rawArguments: request.params.arguments ?? {} });
      if (!result) throw new McpError(JSON_RPC.serverError, `call ${call.identity.callId} has ended; its evidence is frozen`, { code: 'CALL_ENDED' });
      if (call.conversationOrNull()?.activeAgent() !== before) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      return callToolResult(result.output) as CallToolResult;
    });
  }

  /** Sessions of calls that have ended are closed (a session never outlives its call). */
  private async dropEnded(): Promise<void> {
    const ended = [...this.sessions].filter(([, s]) => s.call.hasEnded()).map(([id]) => id);
    await Promise.allSettled(ended.map((id) => this.drop(id)));
  }

  private async drop(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.transport.close();
  }
}
