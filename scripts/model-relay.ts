/**
 * A chat-completions endpoint answered by hand: the text policy (`text/openai-chat`) and the `llm`
 * caller post to it as they would to a model, and a person or a language-model helper reads each
 * request and types the answer. This is how a model with no endpoint of its own plays either side
 * of a text episode (docs/task-audit.md). The agent side sees exactly what a deployed model sees:
 * the active agent's instructions, its tools, their results and the caller's words.
 *
 * Usage: `npx tsx scripts/model-relay.ts --help` (the text is USAGE below).
 *
 * Requests are files (D/<role>-<lane>/<seq>.request.json); answers are files beside them. A retried
 * request with the same body joins the pending one or gets the answer already given.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Message {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}
interface Tool {
  readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown };
}
interface Body {
  readonly messages: readonly Message[];
  readonly tools?: readonly Tool[];
  readonly tool_choice?: unknown;
}
interface Answer {
  readonly say?: string;
  readonly tool?: { readonly name: string; readonly args: string };
}

const USAGE = `usage: npx tsx scripts/model-relay.ts <command> --dir D [flags]

  serve  [--port 8799]
      serves http://127.0.0.1:PORT/agent/<lane>/v1 and /caller/<lane>/v1 (chat completions);
      every request waits for a player's answer
  lane   --lane L [--port 8799] -- <command...>
      runs one lane's conversations (e.g. node bin/mivas.js run ...) with MIVAS_POLICY_BASE_URL
      and MIVAS_CALLER_BASE_URL pointed at lane L of the relay (unless already set), and marks the
      lane done when the command ends, so players' next stops waiting
  next   --watch agent:L1,caller:L2 [--full] [--wait 540]
      waits for the next request on those seats and prints what is new since the lane's last one
      (--full: the whole request, for a player taking over a seat mid-conversation); prints
      NO MORE CONVERSATIONS once every watched lane is done
  answer --as agent:L1 [--say TEXT] [--tool NAME --args JSON] [--watch ...]
      answers that seat's pending request, then (with --watch) waits for and prints the next one
  done   --lane L
      marks lane L done by hand (a run that was stopped, or dialled without lane)

  --help  this text`;

/** A bad flag or command: the message and the usage, exit 2. */
class UsageError extends Error {}

const KEEPALIVE_MS = 20_000;
const POLL_MS = 250;

function laneDir(dir: string, role: string, lane: string): string {
  const path = join(dir, `${role}-${lane}`);
  mkdirSync(path, { recursive: true });
  return path;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function completion(answer: Answer, seq: number): string {
  const calls = answer.tool ? [{ id: `call_${seq}`, type: 'function', function: { name: answer.tool.name, arguments: answer.tool.args } }] : undefined;
  const message = { role: 'assistant', content: answer.say ?? null, ...(calls ? { tool_calls: calls } : {}) };
  return JSON.stringify({ id: `relay-${seq}`, object: 'chat.completion', model: 'relay', choices: [{ index: 0, finish_reason: calls ? 'tool_calls' : 'stop', message }] });
}

/** The server side: each request becomes a file; the response waits (with keep-alive whitespace) for its answer file. */
function serve(dir: string, port: number): void {
  const pendingByHash = new Map<string, number>();
  const nextSeq = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/(agent|caller)\/([\w-]+)\/v1\/chat\/completions$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end('{"error":"POST /<agent|caller>/<lane>/v1/chat/completions"}');
      return;
    }
    const [, role, lane] = match as unknown as [string, string, string];
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(role, lane, Buffer.concat(chunks).toString('utf8'), res));
  });
  async function handle(role: string, lane: string, text: string, res: ServerResponse): Promise<void> {
    const path = laneDir(dir, role, lane);
    const hash = createHash('sha256').update(text).digest('hex');
    const key = `${role}/${lane}/${hash}`;
    // Only a retry of the lane's latest request joins it: a later conversation that opens with the same
    // words (a task and its correction variant) is a new request, answered anew, never from an old one.
    let seq = pendingByHash.get(key);
    if (seq !== undefined && seq !== nextSeq.get(`${role}/${lane}`)) seq = undefined;
    if (seq === undefined) {
      seq = (nextSeq.get(`${role}/${lane}`) ?? existingSeqs(path).length) + 1;
      nextSeq.set(`${role}/${lane}`, seq);
      pendingByHash.set(key, seq);
      writeAtomic(join(path, `${seq}.request.json`), text);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    let open = true;
    res.on('close', () => (open = false));
    const keepalive = setInterval(() => open && res.write(' '), KEEPALIVE_MS);
    const answerPath = join(path, `${seq}.answer.json`);
    while (open && !existsSync(answerPath)) await sleep(POLL_MS);
    clearInterval(keepalive);
    if (open) res.end(completion(JSON.parse(readFileSync(answerPath, 'utf8')) as Answer, seq));
  }
  server.listen(port, '127.0.0.1', () => console.log(`relay on http://127.0.0.1:${port} (files in ${dir})`));
}

function existingSeqs(path: string): number[] {
  return readdirSync(path)
    .map((f) => /^(\d+)\.request\.json$/.exec(f)?.[1])
    .filter((s): s is string => s !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function pendingOf(path: string): number | undefined {
  return existingSeqs(path).find((s) => !existsSync(join(path, `${s}.answer.json`)));
}

function renderMessage(m: Message): string {
  if (m.role === 'tool') return `[tool result] ${m.content ?? ''}`;
  if (m.role === 'assistant') {
    const calls = (m.tool_calls ?? []).map((c) => `\n[you called] ${c.function.name} ${c.function.arguments}`).join('');
    return `[you said] ${m.content ?? ''}${calls}`;
  }
  if (m.role === 'system') return `[instructions]\n${m.content ?? ''}`;
  return `[${m.role === 'user' ? 'other party' : m.role}] ${m.content ?? ''}`;
}

function renderTools(tools: readonly Tool[]): string {
  return tools.map((t) => `- ${t.function.name}: ${t.function.description ?? ''}\n  parameters: ${JSON.stringify(t.function.parameters ?? {})}`).join('\n');
}

/**
 * A new conversation whose instructions differ from the lane's last one (another pack, another
 * company) says so in its title, with the instructions' first line: a player who had answered for
 * one company for hours answered a whole airline lane as that company (audit round 4, lane L1).
 */
function newConversationTitle(previous: Body | undefined, body: Body): string {
  const now = body.messages[0]?.content ?? '';
  if (previous === undefined || previous.messages[0]?.content === now) return 'NEW CONVERSATION';
  const first = now.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#')) ?? '';
  return `NEW CONVERSATION, NEW INSTRUCTIONS: not those of your last conversation; read them before you answer. They begin: ${first.slice(0, 200)}`;
}

/** What is new in this request against the lane's previous one (all of it when the conversation is new). */
function readRequest(path: string, seq: number): Body {
  return JSON.parse(readFileSync(join(path, `${seq}.request.json`), 'utf8')) as Body;
}

function view(path: string, seq: number, body: Body, full: boolean): string {
  const previous = seq > 1 && existsSync(join(path, `${seq - 1}.request.json`)) ? readRequest(path, seq - 1) : undefined;
  const tools = body.tools ?? [];
  const continues = previous !== undefined && previous.messages.length < body.messages.length && previous.messages.slice(1).every((m, i) => JSON.stringify(m) === JSON.stringify(body.messages[i + 1]));
  if (!continues || full) return `=== ${continues ? 'THE WHOLE CONVERSATION SO FAR' : newConversationTitle(previous, body)} ===\n[tools]\n${renderTools(tools)}\n${body.messages.map(renderMessage).join('\n')}`;
  const lines: string[] = [];
  if (previous.messages[0]?.content !== body.messages[0]?.content) lines.push(`=== YOUR INSTRUCTIONS CHANGED ===\n${body.messages[0]?.content ?? ''}`);
  if (JSON.stringify(previous.tools ?? []) !== JSON.stringify(tools)) lines.push(`=== YOUR TOOLS CHANGED ===\n${renderTools(tools)}`);
  // The previous request's messages plus the answer given to it are already known; show the rest.
  lines.push(...body.messages.slice(previous.messages.length + 1).map(renderMessage));
  return lines.join('\n');
}

/**
 * A request that must be answered with a tool call (the `llm` caller sends `tool_choice: "required"`)
 * says so after every view, with the tools' names: a player who answers in words alone is heard as
 * plain words, never as a scripted line, a closing line or silence.
 */
function toolHint(body: Body): string {
  if (body.tool_choice !== 'required' || !body.tools?.length) return '';
  const names = body.tools.map((t) => t.function.name).join(', ');
  return `\n(this seat answers with exactly one tool call: --tool NAME --args JSON, NAME one of ${names}; for example --tool say_pin --args '{"pin":3}' or --tool stay_silent. --say alone is taken as plain words.)`;
}

/** A role on a lane, written `agent:L1` or `caller:L2`. */
interface Seat {
  readonly role: 'agent' | 'caller';
  readonly lane: string;
}

function seatsOf(spec: string): Seat[] {
  return spec
    .split(',')
    .filter(Boolean)
    .map((s) => {
      const [role, lane] = s.split(':');
      if ((role !== 'agent' && role !== 'caller') || !lane) throw new UsageError(`"${s}" is not agent:LANE or caller:LANE`);
      return { role, lane };
    });
}

async function next(dir: string, seats: readonly Seat[], waitS: number, full: boolean): Promise<void> {
  const deadline = Date.now() + waitS * 1000;
  for (;;) {
    for (const { role, lane } of seats) {
      const path = laneDir(dir, role, lane);
      const seq = pendingOf(path);
      if (seq !== undefined) {
        const body = readRequest(path, seq);
        console.log(`######## YOU ARE THE ${role.toUpperCase()} on lane ${lane} (request ${seq}); answer with --as ${role}:${lane} ########\n${view(path, seq, body, full)}${toolHint(body)}`);
        return;
      }
    }
    if (seats.every(({ lane }) => existsSync(doneMarker(dir, lane)))) {
      console.log('=== NO MORE CONVERSATIONS: every lane is finished ===');
      return;
    }
    if (Date.now() > deadline) {
      console.log(`(nothing yet after ${waitS} s; run next again)`);
      return;
    }
    await sleep(POLL_MS);
  }
}

function answer(dir: string, role: string, lane: string, say: string | undefined, tool: string | undefined, args: string | undefined): void {
  const path = laneDir(dir, role, lane);
  const seq = pendingOf(path);
  if (seq === undefined) throw new Error(`lane ${lane} has no pending ${role} request`);
  if (!say && !tool) throw new Error('give --say TEXT, --tool NAME [--args JSON], or both');
  if (args !== undefined) JSON.parse(args); // a typo in the JSON is the helper's to fix, not the episode's
  writeAtomic(join(path, `${seq}.answer.json`), JSON.stringify({ ...(say ? { say } : {}), ...(tool ? { tool: { name: tool, args: args ?? '{}' } } : {}) }));
}

function doneMarker(dir: string, lane: string): string {
  return join(dir, `done-${lane}`);
}

/** Runs one lane's command against the relay and marks the lane done when it exits, whatever its exit code. */
function runLane(dir: string, lane: string, port: number, command: readonly string[]): Promise<number> {
  const [file, ...args] = command;
  if (!file) throw new UsageError('lane needs the command to run after --');
  const base = `http://127.0.0.1:${port}`;
  const env = { MIVAS_POLICY_BASE_URL: `${base}/agent/${lane}/v1`, MIVAS_CALLER_BASE_URL: `${base}/caller/${lane}/v1`, ...process.env };
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: 'inherit' });
    const finish = (code: number): void => {
      writeAtomic(doneMarker(dir, lane), `${JSON.stringify({ lane, exit_code: code })}\n`);
      resolve(code);
    };
    child.on('error', (error) => {
      console.error(`model-relay: ${error.message}`);
      finish(127);
    });
    child.on('exit', (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

function parse(argv: readonly string[]): ReturnType<typeof parseFlags> {
  try {
    return parseFlags(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function parseFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      dir: { type: 'string' },
      port: { type: 'string', default: '8799' },
      lane: { type: 'string' },
      watch: { type: 'string' },
      as: { type: 'string' },
      full: { type: 'boolean' },
      say: { type: 'string' },
      tool: { type: 'string' },
      args: { type: 'string' },
      wait: { type: 'string', default: '540' },
      help: { type: 'boolean' },
    },
  });
}

function laneName(value: string | undefined, command: string): string {
  if (!value || !/^[\w-]+$/.test(value)) throw new UsageError(`${command} needs --lane NAME (letters, digits, - and _)`);
  return value;
}

async function main(argv: readonly string[]): Promise<number> {
  const split = argv.indexOf('--');
  const { positionals, values } = parse(split < 0 ? argv : argv.slice(0, split));
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = positionals[0];
  const dir = values.dir;
  if (!command) throw new UsageError('give a command');
  if (!dir) throw new UsageError('--dir is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${values.port} is not a port`);
  mkdirSync(dir, { recursive: true });
  if (command === 'serve') {
    serve(dir, port);
    return -1;
  }
  if (command === 'lane') return runLane(dir, laneName(values.lane, 'lane'), port, split < 0 ? [] : argv.slice(split + 1));
  if (command === 'done') {
    writeAtomic(doneMarker(dir, laneName(values.lane, 'done')), `${JSON.stringify({ lane: values.lane, exit_code: null })}\n`);
    return 0;
  }
  const seats = seatsOf(values.watch ?? '');
  if (command === 'answer') {
    const [seat] = seatsOf(values.as ?? '');
    if (!seat) throw new UsageError('answer needs --as agent:LANE or caller:LANE');
    answer(dir, seat.role, seat.lane, values.say, values.tool, values.args);
    if (!seats.length) return 0;
  } else if (command !== 'next') throw new UsageError(`unknown command "${command}"`);
  if (!seats.length) throw new UsageError('--watch agent:LANE[,caller:LANE] is required');
  await next(dir, seats, Number(values.wait), values.full ?? false);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`model-relay: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof UsageError) console.error(USAGE);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
