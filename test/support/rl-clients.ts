import WebSocket from 'ws';
import type { EpisodeAction, PlayableEpisode } from '../../src/episodes/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';

/** A JSON reply: status, parsed body and headers. */
export interface JsonReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

/** POSTs JSON (or GETs without a body) and parses the reply. */
export async function request(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** The `name=value` of a Set-Cookie header, ready for a Cookie header. */
export function cookieOf(reply: JsonReply): string {
  return (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/**
 * A NeMo Gym session as NeMo Gym's simple agent drives it: seed, tools, verify, with no cookie jar:
 * after each answer the client holds only that answer's Set-Cookie (NVIDIA-NeMo/Gym 07d6b0d,
 * `responses_api_agents/simple_agent/app.py` `_create_episode`: `resources_server_cookies =
 * api_response.cookies`), so an answer without the cookie loses the episode. The full request
 * path is emulated in `nemo-gym-agent.ts`.
 */
export class NemoGymClient implements PlayableEpisode {
  cookie = '';
  private ended = false;

  readonly base: string;
  readonly pack: Pack;
  readonly task: Task;

  constructor(
    base: string,
    pack: Pack,
    task: Task,
  ) {
    this.base = base;
    this.pack = pack;
    this.task = task;
  }

  async seed(row: Record<string, unknown>): Promise<JsonReply> {
    const reply = await request(`${this.base}/seed_session`, row);
    this.cookie = cookieOf(reply);
    return reply;
  }

  async call(name: string, args: unknown): Promise<JsonReply> {
    const reply = await request(`${this.base}/${name}`, args, this.cookie ? { cookie: this.cookie } : {});
    this.cookie = cookieOf(reply);
    return reply;
  }

  isDone(): boolean {
    return this.ended;
  }

  async step(action: EpisodeAction): Promise<{ output: Record<string, unknown>; done: boolean }> {
    const reply = await this.call(action.name, action.arguments);
    if (reply.status !== 200) throw new Error(`${action.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const output = reply.body;
    const data = output.data as { caller_hung_up?: boolean } | undefined;
    if (action.name === 'end_call' || (action.name === 'transfer_to_human' && output.ok === true) || data?.caller_hung_up) this.ended = true;
    return { output, done: this.ended };
  }

  async verify(row: Record<string, unknown>, response: Record<string, unknown> = { output: [] }): Promise<JsonReply> {
    const reply = await request(`${this.base}/verify`, { ...row, response }, this.cookie ? { cookie: this.cookie } : {});
    this.cookie = cookieOf(reply);
    return reply;
  }
}

/** An OpenEnv WebSocket client: one message out, one reply in, in order. */
export class OpenEnvClient implements PlayableEpisode {
  private readonly replies: unknown[] = [];
  private readonly waiting: ((m: unknown) => void)[] = [];
  private ended = false;
  closeCode: number | null = null;
  readonly closed: Promise<number>;

  private readonly ws: WebSocket;
  readonly pack: Pack;
  readonly task: Task;

  private constructor(
    ws: WebSocket,
    pack: Pack,
    task: Task,
  ) {
    this.ws = ws;
    this.pack = pack;
    this.task = task;
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as unknown;
      const next = this.waiting.shift();
      if (next) next(msg);
      else this.replies.push(msg);
    });
    this.closed = new Promise((resolve) => ws.on('close', (code) => resolve((this.closeCode = code))));
  }

  static async connect(url: string, pack: Pack, task: Task, headers: Record<string, string> = {}): Promise<OpenEnvClient> {
    const ws = new WebSocket(url, { headers });
    const client = new OpenEnvClient(ws, pack, task);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    return client;
  }

  /** The next message from the server. */
  next(): Promise<Record<string, unknown>> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready as Record<string, unknown>);
    return new Promise((resolve) => this.waiting.push((m) => resolve(m as Record<string, unknown>)));
  }

  async send(message: unknown): Promise<Record<string, unknown>> {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    return this.next();
  }

  sendOnly(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  isDone(): boolean {
    return this.ended;
  }

  async step(action: EpisodeAction): Promise<{ output: Record<string, unknown>; done: boolean }> {
    const reply = await this.send({ type: 'step', data: { type: 'call_tool', tool_name: action.name, arguments: action.arguments } });
    if (reply.type !== 'observation') throw new Error(`${action.name}: ${JSON.stringify(reply)}`);
    const data = reply.data as { observation: { result: { data: Record<string, unknown> } }; done: boolean };
    this.ended = data.done;
    return { output: data.observation.result.data, done: data.done };
  }

  close(): void {
    this.ws.close();
  }
}
