import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CALL_ID_PATTERN, EPISODE_ID_PREFIX, httpProblem, isCallId, isPlainObject, type HttpProblem } from '../core/index.ts';
import type { AppContext } from './app-context.ts';
import { bearerGate } from './auth.ts';
import { sendProblem } from './problem.ts';

/** Off unless MIVAS_TOOLS_TOKEN is set; then every request needs that bearer token (not the callers' Basic pair). */
function toolsGate(token: string | undefined) {
  return bearerGate(token, {
    off: httpProblem('HTTP_TOOLS_OFF', 'the HTTP tool routes are off; set MIVAS_TOOLS_TOKEN to turn them on'),
    unauthorized: httpProblem('TOOLS_UNAUTHORIZED', 'the tool routes need Authorization: Bearer <MIVAS_TOOLS_TOKEN>'),
    realm: 'mivas-tools',
  });
}

/** Answers 400 unless the id may name a call (and so a file). */
function invalidCallId(reply: FastifyReply, callId: string | undefined): FastifyReply | null {
  if (!callId) return sendProblem(reply, httpProblem('CALL_ID_MISSING', 'the X-Mivas-Call-Id header is required'));
  return isCallId(callId) ? null : sendProblem(reply, httpProblem('CALL_ID_INVALID', `call ids must match ${CALL_ID_PATTERN.source} and not start with ${EPISODE_ID_PREFIX} (RL episodes)`));
}

/** Why an id that is not live cannot take HTTP tool calls, or null when it may. */
function closedProblem(ctx: AppContext, callId: string): HttpProblem | null {
  const use = ctx.callIds.useOf(callId);
  if (use === 'ended') return httpProblem('CALL_ENDED', `call ${callId} has ended; its evidence is frozen`);
  return use ? httpProblem('CALL_ID_USED', `call ${callId} is starting or its id was used before`) : null;
}

/**
 * Runs a tool for a call through its conversation (docs/operations.md "HTTP tool routes"): a live
 * call's own, with the effect applied to the call; else the id's scratch conversation.
 */
function runTool(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, callId: string | undefined, name: string): FastifyReply {
  const badId = invalidCallId(reply, callId);
  if (badId || !callId) return badId ?? reply;
  // Unknown names are counted under one label, so a scan cannot grow the series without bound.
  const known = ctx.pack.catalog.has(name);
  const count = (result: 'live' | 'scratch' | 'ended' | 'refused'): void => ctx.ops.metrics.httpToolCall(known ? name : '(unknown)', result);
  const refuse = (problem: HttpProblem): FastifyReply => {
    count(problem.code === 'CALL_ENDED' ? 'ended' : 'refused');
    return sendProblem(reply, problem);
  };
  if (!known) return refuse(httpProblem('UNKNOWN_TOOL', `no tool named ${JSON.stringify(name.slice(0, 64))} in pack ${ctx.pack.id}`));
  if (!isPlainObject(request.body)) return refuse(httpProblem('BODY_NOT_OBJECT', 'the body must be a JSON object of tool arguments'));
  const dispatch = { toolCallId: null, name, rawArguments: request.body };
  const live = ctx.registry.get(callId);
  if (live) {
    const result = live.dispatchFromHarness(dispatch);
    if (!result) return refuse(httpProblem('CALL_ENDED', `call ${callId} has ended; its evidence is frozen`));
    count('live');
    return reply.send(result.output);
  }
  let conversation = ctx.harnessSessions.get(callId);
  if (!conversation) {
    const closed = closedProblem(ctx, callId);
    if (closed) return refuse(closed);
    if (ctx.harnessSessions.isFull()) {
      reply.header('Retry-After', '60');
      return refuse(httpProblem('HARNESS_SESSIONS_FULL', `${ctx.harnessSessions.max} scratch conversations are open; idle ones are reaped after MIVAS_TOOLS_IDLE_S`));
    }
    conversation = ctx.harnessSessions.open(callId);
  }
  count('scratch');
  // A scratch conversation has no call to end: its effects (handoffs included) stay on its own timeline.
  return reply.send(conversation.dispatch({ ...dispatch, origin: 'http' }).output);
}

/** Tool and state routes for an external harness (architecture.md §1, §16), behind their own bearer token. */
export async function toolRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addHook('onRequest', toolsGate(ctx.config.toolsToken));
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
    const conversation = ctx.registry.get(callId)?.conversationOrNull() ?? ctx.harnessSessions.get(callId);
    if (!conversation || conversation.isClosed()) return sendProblem(reply, httpProblem('CALL_NOT_FOUND', `no open conversation for call ${callId}`));
    return reply.send(conversation.state());
  });
}
