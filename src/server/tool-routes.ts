import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CALL_ID_PATTERN, isPlainObject } from '../core/index.ts';
import { agentOwnsTool } from '../packs/index.ts';
import { dumpDatabase } from '../store/index.ts';
import { executeTool } from '../tools/index.ts';
import type { AppContext } from './app-context.ts';

function problem(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ error: { code, message } });
}

/** Answers 400 unless the id may name a call (and so a file). */
function invalidCallId(reply: FastifyReply, callId: string): FastifyReply | null {
  return CALL_ID_PATTERN.test(callId) ? null : problem(reply, 400, 'CALL_ID_INVALID', `call ids must match ${CALL_ID_PATTERN.source}`);
}

/** Runs a dispatchable tool for a call: through the live call's graph, or on its database directly. */
function runTool(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, callId: string | undefined, name: string): FastifyReply {
  if (!callId) return problem(reply, 400, 'CALL_ID_MISSING', 'the X-Mivas-Call-Id header is required');
  const badId = invalidCallId(reply, callId);
  if (badId) return badId;
  const tool = ctx.pack.catalog.get(name);
  if (!tool?.definition) return problem(reply, 404, 'UNKNOWN_TOOL', `no HTTP tool named ${JSON.stringify(name.slice(0, 64))} in pack ${ctx.pack.id}`);
  if (!isPlainObject(request.body)) return problem(reply, 422, 'BODY_NOT_OBJECT', 'the body must be a JSON object of tool arguments');
  const live = ctx.registry.get(callId)?.runtimeOrNull();
  if (live) return reply.send(live.dispatch({ toolCallId: null, name, rawArguments: request.body }).output);
  const header = request.headers['x-mivas-agent'];
  const requested = typeof header === 'string' ? header : undefined;
  const agent = requested ?? ctx.pack.blueprint.agents.find((a) => agentOwnsTool(ctx.pack, a.name, name))?.name ?? ctx.pack.entryAgent;
  if (!agentOwnsTool(ctx.pack, agent, name)) {
    return reply.send({ ok: false, error_code: 'TOOL_NOT_AVAILABLE', safe_message: 'That is handled by another desk, so I cannot do it from here.' });
  }
  const database = ctx.databases.acquireTransient(callId);
  return reply.send(executeTool({ pack: ctx.pack, callId, database, nowMs: () => ctx.clock.nowMs() }, agent, tool, request.body).output);
}

/** Tool and state routes over HTTP (DESIGN.md §1); they share the credentialed context. */
export async function toolRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<{ Params: { name: string } }>('/tools/:name', async (request, reply) => {
    const header = request.headers['x-mivas-call-id'];
    return runTool(ctx, request, reply, typeof header === 'string' ? header.trim() : undefined, request.params.name);
  });
  app.post<{ Params: { callId: string; name: string } }>('/calls/:callId/tools/:name', async (request, reply) =>
    runTool(ctx, request, reply, request.params.callId, request.params.name),
  );
  app.get<{ Params: { callId: string } }>('/calls/:callId/state', async (request, reply) => {
    const { callId } = request.params;
    const badId = invalidCallId(reply, callId);
  if (badId) return badId;
    if (!ctx.registry.get(callId) && !ctx.databases.exists(callId)) return problem(reply, 404, 'CALL_NOT_FOUND', `no database for call ${callId}`);
    return reply.send(dumpDatabase(ctx.databases.acquireTransient(callId).sqlite));
  });
}
