import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CallSession } from '../call/index.ts';
import { httpProblem, isCallId, isPlainObject } from '../core/index.ts';
import { loadDeskMap, packToolName, type DeskMap } from '../providers/index.ts';
import type { AppContext } from './app-context.ts';
import { bearerGate } from './auth.ts';
import { CallMcpSessions } from './call-mcp.ts';
import { sendProblem } from './problem.ts';

/**
 * The routes a platform under test calls back on (docs/platforms.md): a relay bot's tools, the
 * Vapi `tool-calls` webhook and a standard MCP endpoint per call, behind their own bearer token
 * (`MIVAS_PLATFORM_TOKEN`). Unlike the external-harness tool routes they reach live calls only: an
 * id no one dialed (or a platform id no relay bound) is refused and nothing is opened, so a bad id
 * mapping can never have an agent confirm a booking that is not graded.
 */

/** Off unless MIVAS_PLATFORM_TOKEN is set; then every request needs that bearer token. */
function platformGate(token: string | undefined) {
  return bearerGate(token, {
    off: httpProblem('PLATFORM_ROUTES_OFF', 'the platform routes are off; set MIVAS_PLATFORM_TOKEN to turn them on'),
    unauthorized: httpProblem('PLATFORM_UNAUTHORIZED', 'the platform routes need Authorization: Bearer <MIVAS_PLATFORM_TOKEN>'),
    realm: 'mivas-platform',
  });
}

/** The live call with this id, or null (never a scratch conversation). */
export function boundCall(ctx: AppContext, callId: string): CallSession | null {
  if (!isCallId(callId)) return null;
  const live = ctx.registry.get(callId);
  return live && !live.hasEnded() ? live : null;
}

/** The live call a relay bound this platform call id to before its audio started, or null. */
function callOfPlatformId(ctx: AppContext, platformCallId: string): CallSession | null {
  return ctx.registry.sessions().find((s) => !s.hasEnded() && s.platformCallId() === platformCallId) ?? null;
}

/** Tool arguments from a body: the object itself, or the `{"arguments": {...}}` form some bridges send. */
export function toolArguments(body: unknown): Record<string, unknown> | null {
  if (!isPlainObject(body)) return null;
  const keys = Object.keys(body);
  if (keys.length === 1 && keys[0] === 'arguments') {
    const inner: unknown = body.arguments;
    if (isPlainObject(inner)) return inner;
    if (typeof inner === 'string') return parseObject(inner);
    return null;
  }
  return body;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : null;
  } catch {
    return null;
  }
}

function notBound(reply: FastifyReply, what: string): FastifyReply {
  return sendProblem(reply, httpProblem('CALL_NOT_BOUND', `${what} is not a live call a relay dialed; nothing was opened`));
}

/** `POST /platform/calls/:callId/tools/:name`: a relay bot's tool call on its own call. */
function relayTool(ctx: AppContext, desks: DeskMap, request: FastifyRequest<{ Params: { callId: string; name: string } }>, reply: FastifyReply): FastifyReply {
  const { callId } = request.params;
  const name = packToolName(desks, request.params.name);
  const call = boundCall(ctx, callId);
  if (!call) return notBound(reply, `call ${JSON.stringify(callId.slice(0, 64))}`);
  if (!ctx.pack.catalog.has(name)) return sendProblem(reply, httpProblem('UNKNOWN_TOOL', `no tool named ${JSON.stringify(name.slice(0, 64))} in pack ${ctx.pack.id}`));
  const args = toolArguments(request.body);
  if (!args) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'the body must be a JSON object of tool arguments, or {"arguments": {...}}'));
  const result = call.dispatchFromHarness({ toolCallId: null, name, rawArguments: args });
  if (!result) return sendProblem(reply, httpProblem('CALL_ENDED', `call ${callId} has ended; its evidence is frozen`));
  return reply.send(result.output);
}

/** The part of Vapi's `ServerMessageToolCalls` mivas reads (`@vapi-ai/server-sdk` 2.0.1, `api/types/ServerMessageToolCalls.d.ts`, `ToolCall`, `ToolCallFunction`). */
const vapiToolCallsSchema = z.object({
  message: z.object({
    type: z.literal('tool-calls'),
    call: z.object({ id: z.string().min(1).max(200) }),
    toolCallList: z
      .array(z.object({ id: z.string().min(1), function: z.object({ name: z.string().min(1), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) }) }))
      .min(1)
      .max(32),
  }),
});

/**
 * `POST /platform/vapi/tool-calls`: Vapi's server-URL message for the tools the assistant called.
 * Vapi's call id is mapped to the mivas call a relay bound it to; each call is dispatched there and
 * answered as Vapi's `ServerMessageResponseToolCalls` (`results`: `toolCallId`, `name`, `result` as text).
 */
function vapiToolCalls(ctx: AppContext, desks: DeskMap, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const parsed = vapiToolCallsSchema.safeParse(request.body);
  if (!parsed.success) return sendProblem(reply, httpProblem('PLATFORM_BODY_INVALID', `not a Vapi tool-calls message: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ').slice(0, 300)}`));
  const { call: vapiCall, toolCallList } = parsed.data.message;
  const call = callOfPlatformId(ctx, vapiCall.id);
  if (!call) return notBound(reply, `Vapi call ${JSON.stringify(vapiCall.id.slice(0, 64))}`);
  const results = toolCallList.map((tc) => {
    const args = typeof tc.function.arguments === 'string' ? parseObject(tc.function.arguments) : tc.function.arguments;
    const result = call.dispatchFromHarness({ toolCallId: tc.id, name: packToolName(desks, tc.function.name), rawArguments: args ?? tc.function.arguments });
    return { toolCallId: tc.id, name: tc.function.name, result: JSON.stringify(result?.output ?? { ok: false, error_code: 'CALL_ENDED' }) };
  });
  return reply.send({ results });
}

/** The platform routes (docs/platforms.md), behind MIVAS_PLATFORM_TOKEN. */
export async function platformRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addHook('onRequest', platformGate(ctx.config.platformToken));
  // The team's names for its desks (MIVAS_RELAY_DESK_MAP): a transfer named the platform's way reaches the pack's.
  const desks = loadDeskMap(ctx.config.providers.relay.deskMapFile, ctx.pack);
  app.post<{ Params: { callId: string; name: string } }>('/platform/calls/:callId/tools/:name', async (request, reply) => relayTool(ctx, desks, request, reply));
  app.post('/platform/vapi/tool-calls', async (request, reply) => vapiToolCalls(ctx, desks, request, reply));
  const mcp = new CallMcpSessions(ctx, (callId) => boundCall(ctx, callId));
  mcp.mount(app, '/platform/calls/:callId/mcp');
  app.addHook('onClose', async () => mcp.close());
}
