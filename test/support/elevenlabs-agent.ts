import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Outgoing } from '@elevenlabs/types';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { openingLineOf } from '../../src/caller/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';
import { RoutePlayer } from './route-player.ts';
import { decodeModemAll, encodeModem } from './text-modem.ts';

/**
 * A strict loopback ElevenLabs Agents conversation socket for `relay/elevenlabs`: every client
 * message is checked against `@elevenlabs/types` 0.23.0's outgoing types (the schemas below are
 * asserted to match them, so a renamed field fails `tsc`): an unknown or missing field, audio
 * before `conversation_initiation_client_data`, a `pong` for no ping or a `client_tool_result` for
 * no open call is a violation. The agent is autonomous: it answers the initiation with
 * `conversation_initiation_metadata` (PCM 16 kHz both ways), pings, greets in modem audio, decodes
 * the caller's opening line, finds the task and plays its reference route: hops as system
 * transfers it executes itself (`agent_tool_response` of `transfer_to_<node>`, the node named the
 * team's way), the expected calls as `client_tool_call`s awaiting their `client_tool_result`;
 * then it says goodbye, calls `end_call` as a client tool and closes the conversation.
 */

const GREETING = 'Thanks for calling Maple Lane Repairs. How can I help?';
const GOODBYE = 'Thank you for calling. Goodbye.';
const CHUNK_BYTES = 6_400;

const initiationSchema = z.strictObject({
  type: z.literal('conversation_initiation_client_data'),
  dynamic_variables: z.strictObject({ mivas_call_id: z.string().min(1) }),
  // The vendor's other optional fields (overrides, source info, tool mocks) change the agent under test: mivas sends none.
  custom_llm_extra_body: z.record(z.string(), z.unknown()).optional(),
  user_id: z.string().optional(),
});
const audioSchema = z.strictObject({ user_audio_chunk: z.base64().min(1) });
const pongSchema = z.strictObject({ type: z.literal('pong'), event_id: z.number().int() });
const toolResultSchema = z.strictObject({ type: z.literal('client_tool_result'), tool_call_id: z.string().min(1), result: z.string(), is_error: z.boolean() });
const clientMessageSchema = z.union([initiationSchema, audioSchema, pongSchema, toolResultSchema]);
type ClientMessage = z.infer<typeof clientMessageSchema>;

/** Each schema's output is assignable to the vendor's outgoing type (a `never` where one is not). */
type StandInSchemasAreTyped = [
  z.infer<typeof initiationSchema> extends Outgoing.ConversationInitiationClientToOrchestratorEvent ? true : never,
  z.infer<typeof audioSchema> extends Outgoing.UserAudio ? true : never,
  z.infer<typeof pongSchema> extends Outgoing.PongClientToOrchestratorEvent ? true : never,
  z.infer<typeof toolResultSchema> extends Outgoing.ClientToolResultClientToOrchestratorEvent ? true : never,
];

/** Compiles only while the schemas accept nothing the vendor's outgoing types would not: a renamed field fails `tsc` here. */
export const STAND_IN_SCHEMAS_TYPED: StandInSchemasAreTyped = [true, true, true, true];

export interface AgentOptions {
  readonly pack: Pack;
  /** The team's names for the pack's desks, as its transfers name them (the inverse of the desk map mivas reads). */
  readonly nodeOf?: Readonly<Record<string, string>>;
}

/** One conversation from the agent's side. */
export class AgentConversation {
  readonly violations: string[];
  callId: string | null = null;
  task: Task | null = null;
  readonly heard: string[] = [];
  /** Each client tool call and the result mivas answered. */
  readonly results: { name: string; result: string; isError: boolean }[] = [];
  private inbound: Buffer[] = [];
  private event = 0;
  private calls = 0;
  private readonly pings = new Set<number>();
  private readonly open = new Map<string, (r: { result: string; isError: boolean }) => void>();
  private routeStarted = false;
  private listening: NodeJS.Timeout | null = null;

  private readonly ws: WebSocket;
  private readonly options: AgentOptions;

  constructor(ws: WebSocket, options: AgentOptions, violations: string[]) {
    this.ws = ws;
    this.options = options;
    this.violations = violations;
    ws.on('message', (data: Buffer) => this.onFrame(data.toString('utf8')));
    ws.on('close', () => {
      if (this.listening) clearTimeout(this.listening);
    });
  }

  private onFrame(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return void this.violations.push(`not JSON: ${text.slice(0, 60)}`);
    }
    const parsed = clientMessageSchema.safeParse(json);
    if (!parsed.success) return void this.violations.push(`${JSON.stringify(json).slice(0, 80)}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    const problem = this.orderProblem(parsed.data);
    if (problem) return void this.violations.push(problem);
    this.act(parsed.data);
  }

  private orderProblem(m: ClientMessage): string | null {
    if ('user_audio_chunk' in m) return this.callId ? null : 'user_audio_chunk before conversation_initiation_client_data';
    if (m.type === 'conversation_initiation_client_data') return this.callId ? 'a second initiation' : null;
    if (!this.callId) return `${m.type} before conversation_initiation_client_data`;
    if (m.type === 'pong') return this.pings.delete(m.event_id) ? null : `pong for ${m.event_id}, which was never pinged`;
    return this.open.has(m.tool_call_id) ? null : `client_tool_result for ${m.tool_call_id}, which is not an open call`;
  }

  private act(m: ClientMessage): void {
    if ('user_audio_chunk' in m) {
      this.inbound.push(Buffer.from(m.user_audio_chunk, 'base64'));
      this.listening ??= setTimeout(() => {
        this.listening = null;
        this.listen();
      }, 100);
      return;
    }
    if (m.type === 'conversation_initiation_client_data') {
      this.callId = m.dynamic_variables.mivas_call_id;
      this.send({ type: 'conversation_initiation_metadata', conversation_initiation_metadata_event: { conversation_id: `conv_${this.callId}`, agent_output_audio_format: 'pcm_16000', user_input_audio_format: 'pcm_16000' } });
      const ping = ++this.event;
      this.pings.add(ping);
      this.send({ type: 'ping', ping_event: { event_id: ping, ping_ms: 20 } });
      this.say(GREETING);
      return;
    }
    if (m.type === 'client_tool_result') {
      this.open.get(m.tool_call_id)?.({ result: m.result, isError: m.is_error });
      this.open.delete(m.tool_call_id);
    }
  }

  private listen(): void {
    const lines = decodeModemAll(Buffer.concat(this.inbound), 16_000);
    if (lines.length <= this.heard.length) return;
    this.heard.push(...lines.slice(this.heard.length));
    if (this.routeStarted) return;
    this.routeStarted = true;
    void this.playRoute(lines[0] ?? '').catch((err: unknown) => this.violations.push(`route: ${err instanceof Error ? err.message : String(err)}`));
  }

  private say(text: string): void {
    const pcm = encodeModem(text, 16_000);
    for (let i = 0; i < pcm.length; i += CHUNK_BYTES) this.send({ type: 'audio', audio_event: { audio_base_64: pcm.subarray(i, i + CHUNK_BYTES).toString('base64'), event_id: ++this.event } });
  }

  private send(message: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private callTool(name: string, parameters: Record<string, unknown>): Promise<{ result: string; isError: boolean }> {
    const id = `toolu_${++this.calls}`;
    const answered = new Promise<{ result: string; isError: boolean }>((resolve) => this.open.set(id, resolve));
    this.send({ type: 'client_tool_call', client_tool_call: { tool_name: name, tool_call_id: id, parameters, event_id: ++this.event } });
    return answered.then((r) => {
      this.results.push({ name, ...r });
      return r;
    });
  }

  /** A transfer the platform executes itself, reported as its system tool's response. */
  private transfer(desk: string): void {
    const node = this.options.nodeOf?.[desk] ?? desk;
    this.send({ type: 'agent_tool_response', agent_tool_response: { tool_name: `transfer_to_${node}`, tool_call_id: `sys_${++this.calls}`, tool_type: 'system', is_error: false, is_called: true, event_id: ++this.event } });
  }

  private async playRoute(opening: string): Promise<void> {
    const task = [...this.options.pack.tasks.values()].find((t) => openingLineOf(t.intent) === opening) ?? null;
    this.task = task;
    if (!task) throw new Error(`no task opens with ${JSON.stringify(opening)}`);
    const player = new RoutePlayer(this.options.pack, task);
    for (let move = player.move(); move.kind === 'call'; move = player.move()) {
      if (move.hop) {
        this.transfer(move.name.slice('transfer_to_'.length));
        continue;
      }
      const { result } = await this.callTool(move.name, move.args);
      player.record(move.name, result);
    }
    this.say(GOODBYE);
    await this.callTool('end_call', { reason: 'caller_done' });
    this.ws.close(1000, 'conversation ended');
  }
}

/** The stand-in server: `/v1/convai/conversation?agent_id=<id>` on loopback, port 0. */
export class ElevenLabsStandIn {
  readonly violations: string[] = [];
  readonly conversations: AgentConversation[] = [];
  readonly agentId = 'agent_standin_0001';

  private readonly server: Server;
  private readonly wss: WebSocketServer;
  readonly baseUrl: string;

  private constructor(server: Server, wss: WebSocketServer, baseUrl: string) {
    this.server = server;
    this.wss = wss;
    this.baseUrl = baseUrl;
  }

  static async start(options: AgentOptions): Promise<ElevenLabsStandIn> {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const standIn = new ElevenLabsStandIn(server, wss, `ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('upgrade', (request: IncomingMessage, socket, head) => {
      if (request.url !== `/v1/convai/conversation?agent_id=${standIn.agentId}`) {
        standIn.violations.push(`upgrade on ${request.url}`);
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => standIn.conversations.push(new AgentConversation(ws, options, standIn.violations)));
    });
    return standIn;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
