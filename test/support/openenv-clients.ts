import WebSocket from 'ws';
import { z } from 'zod';

/**
 * OpenEnv's Python clients re-told in TypeScript, message for message, so tests can drive mivas
 * exactly as they do, and OpenEnv's pydantic models as strict zod schemas, so every observation
 * those clients build is checked the way pydantic would check it. Source: huggingface/OpenEnv at
 * commit 385de5ebb8d08d51d000d7dfc19de5f3c6a9c215 (openenv 0.3.2.dev0), read with `fetch`:
 * - `src/openenv/core/env_client.py` `EnvClient`: `reset`, `step`, `state`, `disconnect`, `_send_and_receive`
 * - `src/openenv/core/generic_client.py` `GenericEnvClient`: `_step_payload`, `_parse_result`, `_parse_state`
 * - `src/openenv/core/mcp_client.py` `MCPClientBase` / `MCPToolClient`: `_parse_result`, `_parse_state`,
 *   `list_tools`, `call_tool`, `close`, `_ensure_production_session`, `_production_mcp_url`
 * - `src/openenv/core/env_server/types.py` `Observation`, `State`, `ResetResponse`, `StepResponse`,
 *   `WSObservationResponse`, `WSStateResponse`; `mcp_types.py` `Tool`, `ToolError`, `ToolErrorType`,
 *   `ListToolsObservation`, `CallToolObservation`, `JsonRpcResponse`, `JsonRpcError`
 * - `src/openenv/core/utils.py` `convert_to_ws_url`
 */

const metadata = z.record(z.string(), z.unknown());
/** `types.py` `Observation` (extra="forbid"): done, reward (bool | int | float | None), metadata. */
export const openEnvObservation = z.object({ done: z.boolean(), reward: z.union([z.boolean(), z.number()]).nullable(), metadata }).strict();
/** `mcp_types.py` `Tool` (extra="forbid"). */
export const openEnvTool = z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) }).strict();
/** `mcp_types.py` `ToolError` (extra="forbid"), `ToolErrorType` values. */
export const openEnvToolError = z.object({ error_type: z.enum(['execution_error', 'invalid_args', 'transport_error', 'tool_not_found', 'timeout']), message: z.string() }).strict();
/** `mcp_types.py` `ListToolsObservation`: Observation + tools. */
export const openEnvListToolsObservation = openEnvObservation.extend({ tools: z.array(openEnvTool) }).strict();
/** `mcp_types.py` `CallToolObservation`: Observation + tool_name (a str: None is refused), result, error. */
export const openEnvCallToolObservation = openEnvObservation.extend({ tool_name: z.string(), result: z.unknown(), error: openEnvToolError.nullable() }).strict();
/** `types.py` `State` as `MCPClientBase._parse_state` builds it: episode_id and step_count (ge=0) only. */
export const openEnvState = z.object({ episode_id: z.string().nullable(), step_count: z.number().int().nonnegative() }).strict();
/** `types.py` `StepResponse` / `ResetResponse` (extra="forbid"): what the server's `serialize_observation` sends as `data`. */
export const openEnvStepResponse = z.object({ observation: z.record(z.string(), z.unknown()), reward: z.number().nullable(), done: z.boolean() }).strict();
/** `types.py` `WSObservationResponse` / `WSStateResponse` (extra="forbid"). */
export const openEnvWsObservation = z.object({ type: z.literal('observation'), data: openEnvStepResponse }).strict();
export const openEnvWsState = z.object({ type: z.literal('state'), data: z.record(z.string(), z.unknown()) }).strict();
/** `mcp_types.py` `JsonRpcResponse.model_dump`: jsonrpc, id, and result or error (`JsonRpcError`, extra="forbid"). */
export const openEnvJsonRpcResponse = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).nullable(), result: z.unknown() }).strict(),
  z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).nullable(), error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown() }).strict() }).strict(),
]);

export type OpenEnvObservation = z.infer<typeof openEnvObservation>;
export type ParsedObservation = (OpenEnvObservation & { kind: 'observation' }) | (z.infer<typeof openEnvCallToolObservation> & { kind: 'call_tool' }) | (z.infer<typeof openEnvListToolsObservation> & { kind: 'list_tools' });

/** Python's `dict.get(key, default)`: the default only when the key is missing (a present None stays None). */
function get(obj: Record<string, unknown>, key: string, fallback: unknown): unknown {
  return key in obj ? obj[key] : fallback;
}

/** `client_types.py` `StepResult`. */
export interface StepResult<O> {
  readonly observation: O;
  readonly reward: number | null;
  readonly done: boolean;
}

/** `utils.py` `convert_to_ws_url` + `EnvClient.__init__`: the WebSocket URL a base URL becomes. */
export function wsUrlOf(baseUrl: string): string {
  let url = baseUrl.replace(/\/+$/, '');
  if (url.startsWith('http://')) url = `ws://${url.slice(7)}`;
  else if (url.startsWith('https://')) url = `wss://${url.slice(8)}`;
  else if (!url.startsWith('ws://') && !url.startsWith('wss://')) url = `ws://${url}`;
  return `${url}/ws`;
}

/** The WebSocket of `EnvClient`: connect on first send, one message out and one in (`_send_and_receive`). */
class EnvSocket {
  private ws: WebSocket | null = null;
  private readonly inbox: string[] = [];
  private readonly waiting: ((raw: string) => void)[] = [];

  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  private async connect(): Promise<WebSocket> {
    if (this.ws) return this.ws;
    const ws = new WebSocket(this.url);
    ws.on('message', (raw) => {
      const text = String(raw);
      const next = this.waiting.shift();
      if (next) next(text);
      else this.inbox.push(text);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.ws = ws;
    return ws;
  }

  async send(message: unknown): Promise<void> {
    (await this.connect()).send(JSON.stringify(message));
  }

  /** `_send_and_receive`: a reply of type "error" raises RuntimeError("Server error: … (code: …)"). */
  async sendAndReceive(message: unknown): Promise<Record<string, unknown>> {
    await this.send(message);
    const ready = this.inbox.shift();
    const raw = ready ?? (await new Promise<string>((resolve) => this.waiting.push(resolve)));
    const reply = JSON.parse(raw) as Record<string, unknown>;
    if (reply.type === 'error') {
      const data = (reply.data ?? {}) as { message?: string; code?: string };
      throw new Error(`Server error: ${data.message ?? 'Unknown error'} (code: ${data.code ?? 'UNKNOWN'})`);
    }
    return reply;
  }

  /** `disconnect`: best-effort `{"type": "close"}`, then close the socket. */
  async disconnect(): Promise<void> {
    if (!this.ws) return;
    const ws = this.ws;
    this.ws = null;
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'close' }));
    await new Promise<void>((resolve) => {
      if (ws.readyState === ws.CLOSED) resolve();
      ws.once('close', () => resolve());
      ws.close();
    });
  }
}

/** Every wire message the clients received, for tests to validate. */
export type WireLog = { readonly type: string; readonly message: Record<string, unknown> }[];

/** `GenericEnvClient`: raw dictionaries; observation, reward and done read off the payload as sent. */
export class GenericEnvClient {
  readonly wire: WireLog = [];
  private readonly socket: EnvSocket;

  constructor(baseUrl: string) {
    this.socket = new EnvSocket(wsUrlOf(baseUrl));
  }

  private async exchange(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reply = await this.socket.sendAndReceive(message);
    this.wire.push({ type: String(message.type), message: reply });
    return reply;
  }

  /** `_parse_result`. */
  private parse(payload: Record<string, unknown>): StepResult<Record<string, unknown>> {
    return { observation: get(payload, 'observation', {}) as Record<string, unknown>, reward: get(payload, 'reward', null) as number | null, done: get(payload, 'done', false) as boolean };
  }

  async reset(kwargs: Record<string, unknown> = {}): Promise<StepResult<Record<string, unknown>>> {
    return this.parse(((await this.exchange({ type: 'reset', data: kwargs })).data ?? {}) as Record<string, unknown>);
  }

  /** `_step_payload`: a dict action is sent as is. */
  async step(action: Record<string, unknown>): Promise<StepResult<Record<string, unknown>>> {
    return this.parse(((await this.exchange({ type: 'step', data: action })).data ?? {}) as Record<string, unknown>);
  }

  /** `_parse_state`: the payload as is. */
  async state(): Promise<Record<string, unknown>> {
    return ((await this.exchange({ type: 'state' })).data ?? {}) as Record<string, unknown>;
  }

  async close(): Promise<void> {
    await this.socket.disconnect();
  }
}

/**
 * `MCPToolClient`. WebSocket mode (`use_production_mode` false, the default): reset, list_tools
 * and call_tool are `reset`/`step` messages, parsed by `MCPClientBase._parse_result` into pydantic
 * models (here: the strict schemas; a parse that pydantic would refuse throws). HTTP mode
 * (`use_production_mode = True`): list_tools, call_tool and close go to `POST <base>/mcp` with
 * OpenEnv's session methods (`openenv/session/create` with empty params on first use); reset
 * still goes over the WebSocket, as in the Python client.
 */
export class MCPToolClient {
  useProductionMode = false;
  readonly wire: WireLog = [];
  private toolsCache: z.infer<typeof openEnvTool>[] | null = null;
  private sessionId: string | null = null;
  private rpcId = 0;
  private readonly socket: EnvSocket;

  constructor(baseUrl: string) {
    this.socket = new EnvSocket(wsUrlOf(baseUrl));
  }

  /** `_production_mcp_url`: the WebSocket URL back to http(s), `/ws` dropped, `/mcp` added. */
  get mcpUrl(): string {
    let url = this.socket.url.replace('ws://', 'http://').replace('wss://', 'https://');
    if (url.endsWith('/ws')) url = url.slice(0, -3);
    return `${url.replace(/\/+$/, '')}/mcp`;
  }

  /** `_parse_result`: "tools" → ListToolsObservation, else "tool_name" → CallToolObservation, else Observation; metadata is all else it keeps. */
  parse(payload: Record<string, unknown>): StepResult<ParsedObservation> {
    const obs = get(payload, 'observation', {}) as Record<string, unknown>;
    const base = { done: get(payload, 'done', false), reward: get(payload, 'reward', null), metadata: get(obs, 'metadata', {}) };
    const reward = get(payload, 'reward', null) as number | null;
    const done = get(payload, 'done', false) as boolean;
    if ('tools' in obs) {
      const tools = (get(obs, 'tools', []) as Record<string, unknown>[]).map((t) => ({ name: get(t, 'name', ''), description: get(t, 'description', ''), input_schema: get(t, 'input_schema', get(t, 'inputSchema', {})) }));
      return { observation: { ...openEnvListToolsObservation.parse({ ...base, tools }), kind: 'list_tools' }, reward, done };
    }
    if ('tool_name' in obs) {
      // `ToolError(**obs_data["error"])` only when the error is truthy.
      const error = get(obs, 'error', null) ? openEnvToolError.parse(obs.error) : null;
      const observation = openEnvCallToolObservation.parse({ ...base, tool_name: get(obs, 'tool_name', ''), result: get(obs, 'result', null), error });
      return { observation: { ...observation, kind: 'call_tool' }, reward, done };
    }
    return { observation: { ...openEnvObservation.parse(base), kind: 'observation' }, reward, done };
  }

  private async exchange(message: Record<string, unknown>): Promise<StepResult<ParsedObservation>> {
    const reply = await this.socket.sendAndReceive(message);
    this.wire.push({ type: String(message.type), message: reply });
    return this.parse((reply.data ?? {}) as Record<string, unknown>);
  }

  async reset(kwargs: Record<string, unknown> = {}): Promise<StepResult<ParsedObservation>> {
    return this.exchange({ type: 'reset', data: kwargs });
  }

  /** `step(CallToolAction | ListToolsAction)` via `_step_payload`. */
  async step(action: { type: 'list_tools' } | { type: 'call_tool'; tool_name: string; arguments: Record<string, unknown> }): Promise<StepResult<ParsedObservation>> {
    return this.exchange({ type: 'step', data: action.type === 'list_tools' ? { type: 'list_tools' } : { type: 'call_tool', tool_name: action.tool_name, arguments: action.arguments } });
  }

  /** `_parse_state`: State(episode_id, step_count); every other field is dropped. */
  async state(): Promise<z.infer<typeof openEnvState>> {
    const reply = await this.socket.sendAndReceive({ type: 'state' });
    this.wire.push({ type: 'state', message: reply });
    const data = get(reply, 'data', {}) as Record<string, unknown>;
    return openEnvState.parse({ episode_id: get(data, 'episode_id', null), step_count: get(data, 'step_count', 0) });
  }

  /** `_production_mcp_request`: one JSON-RPC POST (raise_for_status, then the JSON). */
  async rpc(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const res = await fetch(this.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method, params, id: ++this.rpcId }) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = (await res.json()) as Record<string, unknown>;
    this.wire.push({ type: `rpc:${method}`, message: body });
    return body;
  }

  private async ensureSession(): Promise<string> {
    if (this.sessionId) return this.sessionId;
    const data = await this.rpc('openenv/session/create');
    if (data.error) throw new Error(`Failed to create MCP session: ${(data.error as { message?: string }).message ?? 'unknown error'}`);
    const id = (data.result as { session_id?: string } | undefined)?.session_id;
    if (!id) throw new Error('Failed to create MCP session: missing session_id');
    this.sessionId = id;
    return id;
  }

  /** `list_tools`: the cache unless `useCache` is false; HTTP errors give an empty list. */
  async listTools(useCache = true): Promise<z.infer<typeof openEnvTool>[]> {
    if (useCache && this.toolsCache) return this.toolsCache;
    if (this.useProductionMode) {
      try {
        const data = await this.rpc('tools/list', { session_id: await this.ensureSession() });
        if (data.error) throw new Error('list_tools failed');
        const tools = ((data.result as { tools?: Record<string, unknown>[] } | undefined)?.tools ?? []).map((t) => openEnvTool.parse({ name: get(t, 'name', ''), description: get(t, 'description', ''), input_schema: get(t, 'input_schema', get(t, 'inputSchema', {})) }));
        this.toolsCache = tools;
        return tools;
      } catch {
        return [];
      }
    }
    const result = await this.step({ type: 'list_tools' });
    this.toolsCache = result.observation.kind === 'list_tools' ? result.observation.tools : [];
    return this.toolsCache;
  }

  /** `call_tool`: only the result's `data` comes back (reward and done are not returned). */
  async callTool(name: string, kwargs: Record<string, unknown> = {}): Promise<unknown> {
    if (this.useProductionMode) {
      const data = await this.rpc('tools/call', { name, arguments: kwargs, session_id: await this.ensureSession() });
      if (data.error) throw new Error(`Tool '${name}' failed: ${(data.error as { message?: string }).message ?? 'unknown error'}`);
      const result = data.result as Record<string, unknown> | undefined;
      return result && typeof result === 'object' && 'data' in result ? result.data : result;
    }
    const { observation } = await this.step({ type: 'call_tool', tool_name: name, arguments: kwargs });
    if (observation.kind === 'call_tool' && observation.error) throw new Error(`Tool '${name}' failed: ${observation.error.message} (type: ${observation.error.error_type})`);
    if (observation.kind !== 'call_tool') return observation;
    const result = observation.result as Record<string, unknown> | null;
    return result && typeof result === 'object' && 'data' in result ? result.data : result;
  }

  /** `close`: the HTTP session closed best-effort (its answer discarded), then the WebSocket. */
  async close(): Promise<void> {
    if (this.sessionId) {
      try {
        await this.rpc('openenv/session/close', { session_id: this.sessionId });
      } catch {
        // best effort, as in the client
      } finally {
        this.sessionId = null;
      }
    }
    await this.socket.disconnect();
  }
}
