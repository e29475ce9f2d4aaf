import { z } from 'zod';
import { openingLineOf } from '../caller/index.ts';
import type { ToolSpec } from '../conversation/index.ts';
import { isPlainObject, MivasError } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import type { EpisodeDesk } from './episode-desk.ts';
import { episodeInstructions, offeredTools, SAY_TO_CALLER, type HandoffMode } from './framing.ts';
import { REWARD_VERSION } from './reward.ts';
import type { EpisodeResult, EpisodeView, StepResult, TextEpisode } from './text-episode.ts';

/**
 * The OpenEnv contract (huggingface/OpenEnv 385de5e `src/openenv/core/env_server/http_server.py`,
 * `types.py`, `mcp_types.py`, `serialization.py`; clients `env_client.py`, `generic_client.py`,
 * `mcp_client.py`): one episode per WebSocket session, MCP-style actions (`list_tools`,
 * `call_tool`), OpenEnv's JSON-RPC `tools/list` and `tools/call` with its HTTP session methods.
 * Observations carry mivas's facts in `metadata`, the one field every OpenEnv client keeps.
 * Transport-free: the server feeds messages to `OpenEnvSession` and `OpenEnvHttpSessions`.
 */

/** OpenEnv's WebSocket error codes mivas sends (`WSErrorCode`), plus its own catalog codes for episode errors. */
export type WsErrorCode = 'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED' | 'EPISODE_NOT_FOUND' | 'EPISODE_ENDED' | 'EPISODE_INVALID';

/** JSON-RPC 2.0 error codes (OpenEnv `JsonRpcErrorCode`). */
export const JSON_RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603, serverError: -32000 } as const;

const metadata = z.record(z.string(), z.unknown()).optional();
/** OpenEnv `ListToolsAction`. */
export const listToolsActionSchema = z.object({ type: z.literal('list_tools'), metadata }).strict();
/** OpenEnv `CallToolAction`: a tool of the offered list by name, with its JSON arguments. */
export const callToolActionSchema = z.object({ type: z.literal('call_tool'), tool_name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}), metadata }).strict();
export const actionSchema = z.discriminatedUnion('type', [listToolsActionSchema, callToolActionSchema]);

/** What reset's `data` may carry (OpenEnv `ResetRequest`: `seed`, `episode_id`, plus mivas's episode settings). */
export const resetDataSchema = z
  .object({
    seed: z.number().int().nonnegative().optional(),
    episode_id: z.string().max(255).optional(),
    task_id: z.string().min(1).max(64).optional(),
    handoff_mode: z.enum(['native', 'soft']).optional(),
    caller: z.string().min(1).max(32).optional(),
    max_turns: z.number().int().positive().optional(),
  })
  .strict();

const toolSchema = z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) }).strict();
const componentsSchema = z.object({ state: z.number(), tools: z.number(), handoff: z.number(), route: z.number() }).strict();
/**
 * What mivas tells the policy after reset and every step. It travels in the observation's
 * `metadata`, the one field OpenEnv's `MCPToolClient._parse_result` keeps besides `tool_name`,
 * `result`, `error` and `tools`, so both OpenEnv clients see the same facts.
 */
export const episodeInfoSchema = z
  .object({
    episode_id: z.string().nullable(),
    pack: z.string(),
    task_id: z.string(),
    agent: z.string().describe('The active desk.'),
    handoff_mode: z.enum(['native', 'soft']),
    instructions: z.string().nullable().describe('The active desk instructions: on reset and after a native handoff, else null.'),
    available_tools: z.array(toolSchema).describe('The tools the active desk offers now.'),
    caller_said: z.string().nullable().describe('The caller opening line on reset, its reply after say_to_caller, else null.'),
    handoff: z.object({ from: z.string(), to: z.string() }).nullable(),
    turn: z.number().int(),
    max_turns: z.number().int(),
    end_reason: z.string().nullable(),
    reward: z.number().nullable().describe('Set once done, with the other reward fields.'),
    reward_components: componentsSchema.nullable(),
    status: z.string().nullable(),
    valid: z.boolean().nullable(),
    reasons: z.array(z.string()).nullable(),
    reward_version: z.string(),
  })
  .strict();
/**
 * The observation of reset (`metadata` only: OpenEnv's `MCPToolClient` reads any observation with
 * a `tool_name` key as a `CallToolObservation`, whose `tool_name` must be a string), of a
 * `call_tool` step (OpenEnv `CallToolObservation`: `tool_name`, `result`, `error`) and of a
 * `list_tools` step (OpenEnv `ListToolsObservation`: `tools`). Reward and done sit beside it.
 */
export const observationSchema = z
  .object({
    tool_name: z.string().optional(),
    result: z.unknown().optional().describe('The tool result: an MCP CallToolResult whose data is the mivas envelope.'),
    error: z.null().optional().describe('Transport errors only; a tool refusal is a result with isError.'),
    tools: z.array(toolSchema).optional().describe('Only in the answer to list_tools.'),
    metadata: episodeInfoSchema.optional().describe('Absent only in the answer to list_tools.'),
  })
  .strict();
/** The state message's data (OpenEnv `State`: episode_id and step_count, plus mivas's fields). */
export const stateSchema = z
  .object({
    episode_id: z.string().nullable(),
    step_count: z.number().int(),
    pack: z.string(),
    task_id: z.string().nullable(),
    agent: z.string().nullable(),
    done: z.boolean(),
    end_reason: z.string().nullable(),
    reward: z.number().nullable(),
  })
  .loose();

/** `/schema`: the action, observation and state JSON Schemas (OpenEnv `SchemaResponse`). */
export function openEnvSchemas(): { action: unknown; observation: unknown; state: unknown } {
  return { action: z.toJSONSchema(actionSchema), observation: z.toJSONSchema(observationSchema, { unrepresentable: 'any' }), state: z.toJSONSchema(stateSchema) };
}

/** `/metadata` (OpenEnv `EnvironmentMetadata`). */
export function openEnvMetadata(pack: Pack, version: string): Record<string, unknown> {
  return {
    name: `mivas-${pack.id}`,
    description: `${pack.blueprint.company}: ${pack.tasks.size} voice-agent tasks as text episodes over the pack's specialist graph (MIVAS Bench), scored by the deterministic mivas scorer.`,
    readme_content: null,
    version: `${version}+${pack.packVersion.slice(0, 12)}`,
    author: 'mivas',
    documentation_url: null,
  };
}

/** A tool as OpenEnv's `Tool` model dumps it. */
function openEnvTool(t: ToolSpec): { name: string; description: string; input_schema: Readonly<Record<string, unknown>> } {
  return { name: t.name, description: t.description, input_schema: t.parameters };
}

/** An MCP `CallToolResult` around a mivas envelope: text content, structured content, `data` (what OpenEnv's MCP clients return) and `isError`. */
export function callToolResult(output: Readonly<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output, data: output, isError: output.ok === false, ...extra };
}

/** A reply on the socket: OpenEnv's `{type, data}` messages. */
export type WsReply = { readonly type: 'observation' | 'state' | 'error' | 'mcp'; readonly data: Record<string, unknown> };

/** OpenEnv `StepResponse`-shaped data: the observation, reward (null until done) and done. */
export interface ObservationData {
  readonly observation: Record<string, unknown>;
  readonly reward: number | null;
  readonly done: boolean;
}

function doneFields(result: EpisodeResult | undefined): Record<string, unknown> {
  return result
    ? { end_reason: result.end_reason, reward: result.reward, reward_components: { ...result.reward_components }, status: result.status, valid: result.valid, reasons: [...result.reasons] }
    : { reward: null, reward_components: null, status: null, valid: null, reasons: null };
}

/**
 * Where an episode stands and, once done, its reward: what `get_reward` answers (OpenEnv HTTP
 * sessions), the MCP `mivas://episode` resource and a session close return. While the episode
 * is live it names the active desk and its instructions: after a native handoff a client that
 * sees only tool results (`MCPToolClient.call_tool` over HTTP) reads them here.
 */
export function rewardReport(episodeId: string, live: EpisodeView | undefined, result: EpisodeResult | null): Record<string, unknown> {
  return {
    episode_id: episodeId,
    task_id: live?.task_id ?? result?.task_id ?? null,
    agent: live?.agent ?? null,
    instructions: live && !live.done ? live.instructions : null,
    done: !live || live.done,
    turn: live?.turn ?? result?.turns ?? null,
    truncated: result?.truncated ?? null,
    ...doneFields(result ?? undefined),
    end_reason: result?.end_reason ?? live?.end_reason ?? null,
    reward_version: REWARD_VERSION,
  };
}

type ResetView = EpisodeView | (Omit<EpisodeView, 'episode_id'> & { episode_id: null });

/** The episode facts of an observation's `metadata` (episodeInfoSchema). */
function episodeInfo(view: ResetView, now: { agent: string; instructions: string | null; tools: readonly ToolSpec[]; callerSaid: string | null; handoff: StepResult['handoff']; turn: number; endReason: string | null; result?: EpisodeResult }): Record<string, unknown> {
  return {
    episode_id: view.episode_id,
    pack: view.pack,
    task_id: view.task_id,
    agent: now.agent,
    handoff_mode: view.handoff_mode,
    instructions: now.instructions,
    available_tools: now.tools.map(openEnvTool),
    caller_said: now.callerSaid,
    handoff: now.handoff,
    turn: now.turn,
    max_turns: view.max_turns,
    end_reason: now.endReason,
    ...doneFields(now.result),
    reward_version: REWARD_VERSION,
  };
}

/** The observation an episode opens with: its facts in `metadata`, no tool keys. */
export function resetObservation(view: ResetView, callerSaid: string | null): ObservationData {
  const metadata = episodeInfo(view, { agent: view.agent, instructions: view.instructions, tools: view.tools, callerSaid, handoff: null, turn: view.turn, endReason: view.end_reason });
  return { observation: { metadata }, reward: null, done: view.done };
}

/** The caller's words a say_to_caller step returned, else null. */
function callerWords(step: StepResult): string | null {
  return step.tool_name === SAY_TO_CALLER ? ((step.output.data as { caller_said?: string | null } | undefined)?.caller_said ?? null) : null;
}

/** The observation a call_tool step returns (no `tools` key: OpenEnv's MCP client reads that as a tool listing). */
export function stepObservation(view: EpisodeView, step: StepResult): ObservationData {
  const metadata = episodeInfo(view, {
    agent: step.agent,
    instructions: step.instructions ?? null,
    tools: step.tools ?? view.tools,
    callerSaid: callerWords(step),
    handoff: step.handoff,
    turn: step.turn,
    endReason: step.end_reason,
    result: step.result,
  });
  return { observation: { tool_name: step.tool_name, result: callToolResult(step.output), error: null, metadata }, reward: step.result ? step.result.reward : null, done: step.done };
}

/** The opening observation of a task without opening an episode (OpenEnv's stateless HTTP `/reset`). */
export function previewObservation(desk: EpisodeDesk, packId: string, data: z.infer<typeof resetDataSchema>): ObservationData {
  const deskPack = desk.deskPack(packId);
  if (!deskPack) throw new MivasError('EPISODE_INVALID', `pack ${packId} is not mounted here`);
  const { pack } = deskPack;
  const task = desk.taskFor(pack, data.task_id, data.seed);
  const mode: HandoffMode = data.handoff_mode ?? 'native';
  const view = {
    episode_id: null,
    pack: pack.id,
    task_id: task.task_id,
    agent: pack.entryAgent,
    handoff_mode: mode,
    instructions: episodeInstructions(pack, pack.entryAgent, mode),
    tools: offeredTools(pack, pack.entryAgent, mode),
    turn: 0,
    max_turns: data.max_turns ?? 60,
    done: false,
    end_reason: null,
  };
  return resetObservation(view, openingLineOf(task.intent));
}

function refuse(code: WsErrorCode, message: string, extra: Record<string, unknown> = {}): WsReply {
  return { type: 'error', data: { message, code, ...extra } };
}

function issues(error: z.ZodError): { loc: (string | number)[]; msg: string }[] {
  return error.issues.map((i) => ({ loc: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), msg: i.message }));
}

/** Maps an episode error to the code sent over the socket. */
function episodeErrorReply(err: unknown): WsReply | null {
  if (!(err instanceof MivasError)) return null;
  if (err.code === 'EPISODES_FULL') return refuse('CAPACITY_REACHED', err.message);
  if (err.code === 'EPISODE_ENDED' || err.code === 'EPISODE_NOT_FOUND' || err.code === 'EPISODE_INVALID') return refuse(err.code, err.message);
  return null;
}

/** A JSON-RPC response. */
export function rpcResult(id: unknown, result: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: id ?? null, result };
}

export function rpcError(id: unknown, code: number, message: string, data?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, data: data ?? null } };
}

/** The socket's client messages, built once (a socket may send hundreds a second). */
const stateMessageSchema = z.object({ type: z.literal('state') }).strict();
const closeMessageSchema = z.object({ type: z.literal('close') }).strict();
const resetMessageSchema = z.object({ type: z.literal('reset'), data: resetDataSchema.default({}) }).strict();
const stepMessageSchema = z.object({ type: z.literal('step'), data: z.record(z.string(), z.unknown()) }).strict();
const mcpMessageSchema = z.object({ type: z.literal('mcp'), data: z.record(z.string(), z.unknown()) }).strict();

const rpcRequestSchema = z.object({ jsonrpc: z.literal('2.0'), method: z.string(), params: z.record(z.string(), z.unknown()).default({}), id: z.union([z.string(), z.number()]).nullable().optional() }).strict();

/**
 * The MCP methods over one episode (or none yet): `tools/list` (the offered tools; before reset,
 * the entry agent's) and `tools/call` (one action). Tool-level refusals are results with
 * `isError`; an action the episode cannot take is a JSON-RPC server error carrying the code.
 */
export async function mcpCall(desk: EpisodeDesk, packId: string, episode: TextEpisode | null, raw: unknown): Promise<{ response: Record<string, unknown>; step?: StepResult }> {
  const parsed = rpcRequestSchema.safeParse(raw);
  if (!parsed.success) return { response: rpcError((raw as { id?: unknown } | null)?.id, JSON_RPC.invalidRequest, `Invalid request: ${parsed.error.issues.map((i) => i.message).join('; ')}`) };
  const { method, params, id } = parsed.data;
  if (method === 'tools/list') {
    const deskPack = desk.deskPack(packId);
    const tools = episode ? episode.view().tools : deskPack ? offeredTools(deskPack.pack, deskPack.pack.entryAgent, 'native') : [];
    return { response: rpcResult(id, { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })) }) };
  }
  if (method !== 'tools/call') return { response: rpcError(id, JSON_RPC.methodNotFound, `Method not found: ${method}`) };
  const name = params.name;
  if (typeof name !== 'string' || !name) return { response: rpcError(id, JSON_RPC.invalidParams, "Missing 'name' in params") };
  if (!episode) return { response: rpcError(id, JSON_RPC.invalidParams, 'tools/call needs an episode: reset first (or openenv/session/create over HTTP)', { code: 'EPISODE_NOT_FOUND' }) };
  try {
    const step = await desk.step(episode.id, { name, arguments: params.arguments ?? {} });
    return { response: rpcResult(id, callToolResult(step.output, { _meta: { 'mivas/done': step.done, 'mivas/reward': step.result?.reward ?? null } })), step };
  } catch (err) {
    if (err instanceof MivasError) return { response: rpcError(id, JSON_RPC.serverError, err.message, { code: err.code }) };
    throw err;
  }
}

/**
 * One OpenEnv WebSocket session: at most one episode at a time (reset finishes the previous one
 * as `client_closed`), messages answered in order. `close` finishes the episode and asks the
 * transport to close the socket; so does the transport going away (`end`).
 */
export class OpenEnvSession {
  private episode: TextEpisode | null = null;
  private steps = 0;
  private lastResult: EpisodeResult | null = null;

  private readonly desk: EpisodeDesk;
  private readonly packId: string;

  constructor(
    desk: EpisodeDesk,
    packId: string,
  ) {
    this.desk = desk;
    this.packId = packId;
  }

  /** Answers one text message: the reply to send (null for close) and whether to close the socket. */
  async handle(text: string): Promise<{ reply: WsReply | null; close: boolean }> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (err) {
      return { reply: refuse('INVALID_JSON', `Invalid JSON: ${err instanceof Error ? err.message : String(err)}`), close: false };
    }
    const type = (message as { type?: unknown } | null)?.type;
    try {
      switch (type) {
        case 'reset':
          return { reply: await this.reset(message), close: false };
        case 'step':
          return { reply: await this.step(message), close: false };
        case 'state':
          return { reply: this.validate(stateMessageSchema, message) ?? { type: 'state', data: this.state() }, close: false };
        case 'close': {
          const invalid = this.validate(closeMessageSchema, message);
          if (invalid) return { reply: invalid, close: false };
          await this.end();
          return { reply: null, close: true };
        }
        case 'mcp':
          return { reply: await this.mcp(message), close: false };
        default:
          return { reply: refuse('UNKNOWN_TYPE', `Unknown message type: ${String(type)}`), close: false };
      }
    } catch (err) {
      const mapped = episodeErrorReply(err);
      if (mapped) return { reply: mapped, close: err instanceof MivasError && err.code === 'EPISODES_FULL' };
      throw err;
    }
  }

  /** True while the session holds an episode that has not ended (the socket's idle limit depends on it). */
  hasLiveEpisode(): boolean {
    return this.episode !== null && !this.episode.isDone();
  }

  /** Finishes a live episode (the socket closed or the session ended). */
  async end(): Promise<void> {
    const episode = this.episode;
    this.episode = null;
    if (episode && !episode.isDone()) this.lastResult = await this.desk.finish(episode.id, 'client_closed');
  }

  private validate(schema: z.ZodType, message: unknown): WsReply | null {
    const parsed = schema.safeParse(message);
    return parsed.success ? null : refuse('VALIDATION_ERROR', 'Invalid message', { errors: issues(parsed.error) });
  }

  private async reset(message: unknown): Promise<WsReply> {
    const parsed = resetMessageSchema.safeParse(message);
    if (!parsed.success) return refuse('VALIDATION_ERROR', 'Invalid message', { errors: issues(parsed.error) });
    await this.end();
    const data = parsed.data.data;
    const { episode, callerSaid } = await this.desk.open({
      pack: this.packId,
      taskId: data.task_id,
      seed: data.seed,
      handoffMode: data.handoff_mode,
      caller: data.caller,
      maxTurns: data.max_turns,
      episodeId: data.episode_id,
      policy: 'openenv',
    });
    this.episode = episode;
    this.steps = 0;
    this.lastResult = null;
    const opened = resetObservation(episode.view(), callerSaid);
    return { type: 'observation', data: { ...opened } };
  }

  private async step(message: unknown): Promise<WsReply> {
    const parsed = stepMessageSchema.safeParse(message);
    if (!parsed.success) return refuse('VALIDATION_ERROR', 'Invalid message', { errors: issues(parsed.error) });
    const action = actionSchema.safeParse(parsed.data.data);
    if (!action.success) return refuse('VALIDATION_ERROR', 'Invalid action', { errors: issues(action.error) });
    if (action.data.type === 'list_tools') {
      const view = this.episode?.view();
      const deskPack = this.desk.deskPack(this.packId);
      const tools = view ? view.tools : deskPack ? offeredTools(deskPack.pack, deskPack.pack.entryAgent, 'native') : [];
      return { type: 'observation', data: { observation: { tools: tools.map(openEnvTool) }, reward: null, done: view?.done ?? false } };
    }
    const episode = this.episode;
    if (!episode) return refuse('EPISODE_NOT_FOUND', 'no episode on this session: send reset first');
    const step = await this.desk.step(episode.id, { name: action.data.tool_name, arguments: action.data.arguments });
    this.steps++;
    if (step.result) this.lastResult = step.result;
    return { type: 'observation', data: { ...stepObservation(episode.view(), step) } };
  }

  private async mcp(message: unknown): Promise<WsReply> {
    const parsed = mcpMessageSchema.safeParse(message);
    if (!parsed.success) return refuse('VALIDATION_ERROR', 'Invalid message', { errors: issues(parsed.error) });
    const { response, step } = await mcpCall(this.desk, this.packId, this.episode, parsed.data.data);
    if (step) {
      this.steps++;
      if (step.result) this.lastResult = step.result;
    }
    return { type: 'mcp', data: response };
  }

  private state(): Record<string, unknown> {
    const view = this.episode?.view();
    return {
      episode_id: view?.episode_id ?? this.lastResult?.episode_id ?? null,
      step_count: this.steps,
      pack: this.packId,
      task_id: view?.task_id ?? this.lastResult?.task_id ?? null,
      agent: view?.agent ?? null,
      done: view?.done ?? this.lastResult !== null,
      end_reason: view?.end_reason ?? this.lastResult?.end_reason ?? null,
      reward: this.lastResult?.reward ?? null,
    };
  }
}

/** The tools an OpenEnv HTTP session answers besides the desk's (not listed by tools/list, so a policy never sees them). */
export const START_EPISODE = 'start_episode';
export const GET_REWARD = 'get_reward';

/**
 * OpenEnv's HTTP MCP sessions on `POST /mcp` (`http_server.py` `mcp_handler`): `openenv/session/create`,
 * `tools/list`, `tools/call`, `openenv/session/close`; a session holds one episode. OpenEnv's
 * `MCPToolClient` creates its session with empty params and sends `reset` over the WebSocket
 * instead, so a session created without params waits for its first `tools/call`: `start_episode`
 * with the reset fields (task_id, seed, episode_id, handoff_mode, caller, max_turns) opens that
 * episode, any other tool opens the default one (seed 0). `get_reward` answers the reward report,
 * since the client's `call_tool` returns only a result's `data` and its `close` discards what the
 * close answers. Sessions beyond `maxEpisodes` forget their oldest without a live episode.
 */
export class OpenEnvHttpSessions {
  /** Session id → its episode's id, null until the first tools/call opens one. */
  private readonly sessions = new Map<string, string | null>();

  private readonly desk: EpisodeDesk;
  private readonly packId: string;
  private readonly newId: () => string;

  constructor(desk: EpisodeDesk, packId: string, newId: () => string) {
    this.desk = desk;
    this.packId = packId;
    this.newId = newId;
  }

  /** Answers one JSON-RPC request body. */
  async handle(body: unknown): Promise<Record<string, unknown>> {
    const parsed = rpcRequestSchema.safeParse(body);
    if (!parsed.success) return rpcError((body as { id?: unknown } | null)?.id, JSON_RPC.invalidRequest, `Invalid request: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    const { method, params, id } = parsed.data;
    try {
      if (method === 'openenv/session/create') return rpcResult(id, { session_id: await this.create(params) });
      const { session_id: sessionId, ...rest } = params;
      if (sessionId === undefined && method === 'openenv/session/close') return rpcError(id, JSON_RPC.invalidParams, "Invalid params - 'session_id' is required");
      if (sessionId === undefined) return (await mcpCall(this.desk, this.packId, null, { ...parsed.data, params: rest })).response;
      if (typeof sessionId !== 'string' || !this.sessions.has(sessionId)) return rpcError(id, JSON_RPC.invalidParams, `Unknown session_id: ${String(sessionId).slice(0, 80)}`);
      if (method === 'openenv/session/close') return rpcResult(id, await this.close(sessionId));
      const episodeId = this.sessions.get(sessionId) ?? null;
      if (method === 'tools/call' && rest.name === START_EPISODE) return await this.start(id, sessionId, episodeId, rest.arguments);
      if (method === 'tools/call' && rest.name === GET_REWARD) return rpcResult(id, callToolResult(await this.report(episodeId)));
      if (episodeId === null && method === 'tools/call') return (await mcpCall(this.desk, this.packId, await this.open(sessionId, {}), { ...parsed.data, params: rest })).response;
      const episode = episodeId === null ? null : this.desk.get(episodeId);
      if (episodeId !== null && !episode) return rpcError(id, JSON_RPC.serverError, `episode ${episodeId} has ended; ${GET_REWARD} gives its reward`, { code: 'EPISODE_ENDED' });
      return (await mcpCall(this.desk, this.packId, episode ?? null, { ...parsed.data, params: rest })).response;
    } catch (err) {
      if (err instanceof MivasError) return rpcError(id, JSON_RPC.serverError, err.message, { code: err.code });
      throw err;
    }
  }

  /** A session: its episode opened at once when the params carry reset fields, else at its first call. */
  private async create(params: Record<string, unknown>): Promise<string> {
    const data = resetDataOf(params);
    const sessionId = this.newId();
    if (Object.keys(data).length > 0) await this.open(sessionId, data);
    else this.sessions.set(sessionId, null);
    this.forgetOldest();
    return sessionId;
  }

  private async open(sessionId: string, data: z.infer<typeof resetDataSchema>): Promise<TextEpisode> {
    const { episode } = await this.openWith(sessionId, data);
    return episode;
  }

  private async openWith(sessionId: string, data: z.infer<typeof resetDataSchema>): Promise<{ episode: TextEpisode; callerSaid: string | null }> {
    const opened = await this.desk.open({ pack: this.packId, taskId: data.task_id, seed: data.seed, handoffMode: data.handoff_mode, caller: data.caller, maxTurns: data.max_turns, episodeId: data.episode_id, policy: 'openenv', reapUntouched: true });
    this.sessions.set(sessionId, opened.episode.id);
    return opened;
  }

  /** start_episode: the session's episode as the reset fields ask, answered with the reset observation. */
  private async start(id: unknown, sessionId: string, episodeId: string | null, args: unknown): Promise<Record<string, unknown>> {
    if (episodeId !== null) return rpcError(id, JSON_RPC.serverError, `${START_EPISODE} picks the task before a session's first call; close this session and create another`, { code: 'EPISODE_INVALID' });
    const { episode, callerSaid } = await this.openWith(sessionId, resetDataOf(isPlainObject(args) ? args : {}));
    return rpcResult(id, callToolResult(resetObservation(episode.view(), callerSaid).observation));
  }

  private async report(episodeId: string | null): Promise<Record<string, unknown>> {
    if (episodeId === null) throw new MivasError('EPISODE_NOT_FOUND', `no episode in this session yet: call ${START_EPISODE} or a tool first`);
    const live = this.desk.get(episodeId);
    return rewardReport(episodeId, live?.view(), live ? null : ((await this.desk.result(episodeId)) ?? null));
  }

  /** Ends the session (its live episode finished as `client_closed`) and answers the reward report. */
  private async close(sessionId: string): Promise<Record<string, unknown>> {
    const episodeId = this.sessions.get(sessionId) ?? null;
    this.sessions.delete(sessionId);
    if (episodeId === null) return { session_id: sessionId, closed: true };
    const result = await this.desk.finish(episodeId, 'client_closed');
    return { session_id: sessionId, closed: true, ...rewardReport(episodeId, undefined, result) };
  }

  /** Keeps at most `maxEpisodes` sessions: the oldest without a live episode goes first. */
  private forgetOldest(): void {
    for (const [sessionId, episodeId] of this.sessions) {
      if (this.sessions.size <= this.desk.maxEpisodes) return;
      if (episodeId === null || !this.desk.get(episodeId)) this.sessions.delete(sessionId);
    }
  }
}

/** The reset fields of a params or arguments object; EPISODE_INVALID for anything else. */
function resetDataOf(fields: Record<string, unknown>): z.infer<typeof resetDataSchema> {
  const data = resetDataSchema.safeParse(fields);
  if (!data.success) throw new MivasError('EPISODE_INVALID', data.error.issues.map((i) => `${i.path.join('.') || 'fields'}: ${i.message}`).join('; '));
  return data.data;
}
