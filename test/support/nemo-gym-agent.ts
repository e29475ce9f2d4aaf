/**
 * NeMo Gym's simple agent, emulated request by request in our own TypeScript: what its resources
 * server (here mivas) receives, in the order and with the cookies NeMo Gym sends them. Followed from
 * NVIDIA-NeMo/Gym at commit 07d6b0d07b22fcf530b4c211dae2ee23100428e4 (2026-08-22):
 *
 * - `nemo_gym/server_utils.py`: one global aiohttp `ClientSession` with `cookie_jar=DummyCookieJar()`
 *   and no default headers (`set_global_aiohttp_client`); `ServerClient.request` calls
 *   `http://{host}:{port}{url_path}`, and puts `/ng-rollout/<rollout_id>` first on resources-server
 *   paths only when observability is on (`rollout_path_prefix`). So: no jar, no custom header, no
 *   path of our own before the route.
 * - `responses_api_agents/simple_agent/app.py` `SimpleAgent.run`: POSTs `body.model_dump()` (the row,
 *   its create params dumped with every unset field null) to `/seed_session` with the cookies of the
 *   `/run` request (rollout collection sends none), then `cookies = seed_session_response.cookies`.
 * - `SimpleAgent.responses` / `_create_episode`: the tool loop starts from the cookies the agent's
 *   own `/v1/responses` call carried (the seed's); each function call is
 *   `POST /<name>` with the parsed arguments and `cookies=resources_server_cookies`, after which
 *   `resources_server_cookies = api_response.cookies`: the cookies of THAT response's Set-Cookie
 *   headers only (none: none). A call whose arguments are not JSON is not sent and keeps them. The
 *   loop ends at an assistant message with no function call. `responses` sets the last resources
 *   cookies on its answer, and `run` verifies with `cookies = response.cookies`:
 *   `POST /verify` with `verify_request.model_dump()` (the row dumped again, plus `response`).
 *   Every tool answer is read as text whatever its status; seed and verify must be 2xx
 *   (`raise_for_status`), else the rollout fails.
 * - `nemo_gym/openai_utils.py` `NeMoGymResponseCreateParamsNonStreaming` (the fields and defaults
 *   below) and `NeMoGymEasyInputMessage` (`type: "message"` added to each input message).
 */

import type { Pack, Task } from '../../src/packs/index.ts';
import { RoutePlayer } from './route-player.ts';

/** What the model does next, given the conversation so far (the row's input plus its outputs): function calls, or a final message. */
export type AgentModel = (input: readonly Record<string, unknown>[]) => { readonly calls: readonly { readonly name: string; readonly arguments: string }[] } | { readonly message: string };

/** One rollout's requests as the resources server saw them: path, the Cookie header sent, the status and the Set-Cookie got. */
export interface SentRequest {
  readonly path: string;
  readonly cookie: string | null;
  readonly status: number;
  readonly setCookie: readonly string[];
}

/** The result of one emulated rollout: the verify response (NeMo Gym's result row) and every request made. */
export interface RolloutResult {
  readonly verify: Record<string, unknown>;
  readonly requests: readonly SentRequest[];
}

/** `NeMoGymResponseCreateParamsNonStreaming.model_dump()`: every field the row did not set, at its default (null for the Optional ones). */
export function dumpCreateParams(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const input = Array.isArray(params.input) ? params.input.map((m: Record<string, unknown>) => ({ content: m.content, role: m.role, type: 'message' })) : params.input;
  return {
    background: null,
    include: null,
    input,
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    metadata: null,
    model: null,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt: null,
    reasoning: null,
    service_tier: null,
    store: null,
    temperature: null,
    text: null,
    tool_choice: 'auto',
    tools: [],
    top_logprobs: null,
    top_p: null,
    truncation: null,
    user: null,
    stream: null,
    ...params,
    ...(input === undefined ? {} : { input }),
  };
}

/** aiohttp's `ClientResponse.cookies`: the name=value pairs of this response's Set-Cookie headers, nothing else. */
function cookiesOf(res: Response): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const header of res.headers.getSetCookie()) {
    const pair = header.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return cookies;
}

function cookieHeader(cookies: ReadonlyMap<string, string>): string | null {
  return cookies.size ? [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') : null;
}

/**
 * Runs one rollout of `row` against the resources server at `base` (host and port, as NeMo Gym
 * addresses it), `prefix` being `/ng-rollout/<id>` when observability is on, else empty.
 */
export async function simpleAgentRollout(base: string, row: Readonly<Record<string, unknown>>, model: AgentModel, options: { readonly prefix?: string; readonly maxSteps?: number } = {}): Promise<RolloutResult> {
  const requests: SentRequest[] = [];
  const post = async (path: string, body: unknown, cookies: ReadonlyMap<string, string>): Promise<{ res: Response; text: string }> => {
    const cookie = cookieHeader(cookies);
    const res = await fetch(`${base}${options.prefix ?? ''}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    const text = await res.text();
    requests.push({ path, cookie, status: res.status, setCookie: res.headers.getSetCookie() });
    return { res, text };
  };
  const dumped = { ...row, responses_create_params: dumpCreateParams(row.responses_create_params as Record<string, unknown>) };

  // SimpleAgent.run: seed with the /run request's cookies (none), keep only the seed answer's.
  const seed = await post('/seed_session', dumped, new Map());
  if (!seed.res.ok) throw new Error(`seed_session ${seed.res.status}: ${seed.text}`);
  let resourcesCookies = cookiesOf(seed.res);

  // SimpleAgent._create_episode: the tool loop, cookies replaced by each tool answer's.
  const input = (dumped.responses_create_params.input as Record<string, unknown>[]) ?? [];
  const outputs: Record<string, unknown>[] = [];
  for (let step = 1; ; step++) {
    const next = model([...input, ...outputs]);
    if ('message' in next) {
      outputs.push({ id: `msg_${step}`, content: [{ annotations: [], text: next.message, type: 'output_text', logprobs: null }], role: 'assistant', status: 'completed', type: 'message' });
      break;
    }
    for (const [i, call] of next.calls.entries()) {
      const callId = `call_${step}_${i}`;
      outputs.push({ arguments: call.arguments, call_id: callId, name: call.name, type: 'function_call', id: `fc_${step}_${i}`, status: 'completed' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(call.arguments);
      } catch (err) {
        outputs.push({ call_id: callId, output: JSON.stringify({ error: `Invalid tool call arguments: ${String(err)}` }), type: 'function_call_output', id: null, status: null });
        continue;
      }
      const tool = await post(`/${call.name}`, parsed, resourcesCookies);
      resourcesCookies = cookiesOf(tool.res);
      outputs.push({ call_id: callId, output: tool.text, type: 'function_call_output', id: null, status: null });
    }
    if (options.maxSteps && step >= options.maxSteps) break;
  }

  // SimpleAgent.run: verify with the cookies the /v1/responses answer set (the last resources cookies).
  const response = { id: 'resp_emulated', created_at: 0, error: null, incomplete_details: null, instructions: null, metadata: null, model: 'policy', object: 'response', output: outputs, parallel_tool_calls: false, temperature: null, tool_choice: 'auto', tools: [], top_p: null, usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10 * outputs.length, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 100 + 10 * outputs.length } };
  const verify = await post('/verify', { ...dumped, response }, resourcesCookies);
  if (!verify.res.ok) throw new Error(`verify ${verify.res.status}: ${verify.text}`);
  return { verify: JSON.parse(verify.text) as Record<string, unknown>, requests };
}

/** A model that plays a task's reference route: a line to the caller, the route's calls and hops, end_call, then a final message. */
export function routeModel(pack: Pack, task: Task): AgentModel {
  const player = new RoutePlayer(pack, task);
  let phase: 'bridge' | 'route' | 'goodbye' = 'bridge';
  let lastName: string | null = null;
  const call = (name: string, args: unknown) => {
    lastName = name;
    return { calls: [{ name, arguments: JSON.stringify(args) }] };
  };
  return (input) => {
    const last = input.at(-1);
    if (lastName && last?.type === 'function_call_output') player.record(lastName, String(last.output));
    if (phase === 'bridge') {
      phase = 'route';
      return call('say_to_caller', { text: 'Sure, let me look into that for you.' });
    }
    if (phase === 'route') {
      const move = player.move();
      if (move.kind === 'call') return call(move.name, move.args);
      phase = 'goodbye';
      return call('end_call', { reason: 'caller_done' });
    }
    return { message: 'Goodbye.' };
  };
}
