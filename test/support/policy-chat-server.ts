import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CarryForward, handoffArguments, planRoute } from '../../src/conversation/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';

/** A chat-completions request as the stand-in reads it. */
export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly content?: string | null; readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[]; readonly tool_call_id?: string }[];
  readonly tools?: readonly { readonly type: string; readonly function: { readonly name: string } }[];
}

/** What the brain answers: text, tool calls, or both. */
export interface BrainReply {
  readonly content?: string | null;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: unknown }[];
}

/** Decides the next assistant message from the conversation so far (deterministic: no model). */
export type ChatBrain = (request: ChatRequest) => BrainReply;

/**
 * A scriptable OpenAI-compatible chat-completions server on loopback (`POST /v1/chat/completions`),
 * the stand-in for a policy model: it checks the request shape, records every request, and answers
 * with whatever the brain decides, in the real response shape (choices, tool_calls, usage).
 */
export class PolicyChatServer {
  readonly requests: ChatRequest[] = [];
  private calls = 0;

  private readonly server: Server;
  readonly port: number;
  private brain: ChatBrain;
  private readonly apiKey: string | null;

  private constructor(
    server: Server,
    port: number,
    brain: ChatBrain,
    apiKey: string | null,
  ) {
    this.server = server;
    this.port = port;
    this.brain = brain;
    this.apiKey = apiKey;
  }

  static async start(brain: ChatBrain, options: { apiKey?: string } = {}): Promise<PolicyChatServer> {
    let self: PolicyChatServer | null = null;
    const server = createServer((req, res) => void self?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    self = new PolicyChatServer(server, (server.address() as AddressInfo).port, brain, options.apiKey ?? null);
    return self;
  }

  /** http://127.0.0.1:<port>/v1 */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  useBrain(brain: ChatBrain): void {
    this.brain = brain;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) return send(401, { error: { message: 'bad key' } });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: ChatRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    } catch {
      return send(400, { error: { message: 'not JSON' } });
    }
    const wellFormed = typeof body.model === 'string' && Array.isArray(body.messages) && body.messages.every((m) => typeof m.role === 'string') && (body.tools ?? []).every((t) => t.type === 'function' && typeof t.function?.name === 'string');
    if (!wellFormed) return send(400, { error: { message: 'malformed chat request' } });
    this.requests.push(body);
    const reply = this.brain(body);
    const toolCalls = (reply.toolCalls ?? []).map((c) => ({ id: `call_${++this.calls}`, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } }));
    send(200, {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      created: 1_790_000_000,
      model: body.model,
      choices: [{ index: 0, finish_reason: toolCalls.length ? 'tool_calls' : 'stop', message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });
  }
}

/**
 * A brain that replays a task's reference route one tool call per completion: a bridge line to
 * the caller, the route's hops and expected calls (arguments resolved as replay resolves them,
 * carried fields read from the tool results in the conversation), then end_call. It reads only
 * the request, so it works for any client that keeps the conversation (the Python example too).
 */
export function routeBrain(pack: Pack, task: Task, options: { bridge?: string; asText?: boolean } = {}): ChatBrain {
  const steps = planRoute(pack, task).steps;
  return (request) => {
    const carry = new CarryForward();
    let made = 0;
    let lastCall: string | null = null;
    for (const m of request.messages) {
      if (m.role === 'assistant') {
        made++;
        lastCall = m.tool_calls?.[0]?.function.name ?? null;
      }
      if (m.role === 'tool' && lastCall) {
        try {
          carry.record(pack, { name: lastCall, output: JSON.parse(m.content ?? '{}') as { ok: boolean; data?: unknown } });
        } catch {
          /* not JSON: nothing to carry */
        }
      }
    }
    // The greeting in the input is an assistant message the policy did not make.
    const index = made - 1;
    if (index === 0) return options.asText ? { content: options.bridge ?? 'Sure, let me take care of that.' } : { toolCalls: [{ name: 'say_to_caller', arguments: { text: options.bridge ?? 'Sure, let me take care of that.' } }] };
    const step = steps[index - 1];
    if (!step) return index - 1 === steps.length ? { toolCalls: [{ name: 'end_call', arguments: { reason: 'caller_done' } }] } : { content: null };
    if (step.kind === 'call') return { toolCalls: [{ name: step.call.name, arguments: carry.argumentsFor(pack, step.call) }] };
    const following = steps.slice(index).find((s) => s.kind === 'hop');
    return { toolCalls: [{ name: step.tool, arguments: handoffArguments(pack, step.tool, following?.kind === 'hop' ? following.to : undefined) }] };
  };
}
