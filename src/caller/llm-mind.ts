import { createHash } from 'node:crypto';
import { CacheMissError, requestKey, throughCache, type CallerCache } from './caller-cache.ts';
import type { CallerLog } from './caller-log.ts';
import type { CallerMind, CallerTurn } from './caller-mind.ts';
import { chatResponseSchema, chatUsageOf, replyOf, type ChatCompleter, type ChatMessage, type ChatRequest, type ChatResponse, type ParsedToolCall } from './chat-completions.ts';
import { callerInstructions, callerTools, turnPinsOf } from './instructions.ts';
import { sameWords, type CallerScript } from '../packs/index.ts';

/** The longest free line the caller says; a model that rambles is cut at a sentence end within it. */
export const FREE_LINE_MAX_CHARS = 240;

/** sha256 hex of a text or bytes. */
export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The seed of one (task, trial): the same pair always gets the same seed, and trials of a task
 * differ. `base` (`--caller-seed`, MIVAS_CALLER_SEED) shifts every seed of a run at once.
 */
export function callerSeed(base: number, taskId: string, trial: number): number {
  return Number.parseInt(sha256Hex(`mivas-caller:${base}:${taskId}:${trial}`).slice(0, 8), 16) & 0x7fffffff;
}

export interface LlmMindOptions {
  readonly script: CallerScript;
  readonly model: string;
  readonly seed: number;
  readonly chat: ChatCompleter;
  readonly cache: CallerCache | null;
  readonly log: CallerLog;
  /** After this many caller lines the next reply hangs up with `turn_cap`. */
  readonly maxTurns: number;
  readonly maxTokens?: number;
}

/**
 * The `llm` caller (architecture.md §17): a digital human built from the task JSON on any
 * OpenAI-compatible chat endpoint, temperature 0 and a fixed seed. The opening line is the
 * task's, said without asking the model; each later turn asks the model which scripted line
 * applies (pins and closing lines are then said verbatim from the task) or for a short line of
 * its own. Every request goes through the cache and into the log.
 */
export class LlmMind implements CallerMind {
  readonly kind = 'llm' as const;
  readonly instructions: string;
  readonly promptHash: string;
  private readonly history: ChatMessage[] = [];
  private readonly pinUses = new Map<number, number>();
  private spoken = 0;
  private ended = false;

  private readonly options: LlmMindOptions;

  constructor(options: LlmMindOptions) {
    this.options = options;
    this.instructions = callerInstructions(options.script);
    this.promptHash = sha256Hex(this.instructions);
  }

  async open(): Promise<CallerTurn> {
    return this.said({ text: this.options.script.openingLine, hangUp: null, source: 'opening' });
  }

  observe(agentText: string): void {
    if (agentText.trim()) this.heard(agentText);
  }

  saidOver(line: string): void {
    this.history.push({ role: 'assistant', content: line });
  }

  async reply(agentText: string): Promise<CallerTurn> {
    if (this.ended) return { text: null, hangUp: null };
    if (!agentText.trim()) return { text: null, hangUp: null };
    this.heard(agentText);
    if (this.spoken >= this.options.maxTurns) return this.end({ text: null, hangUp: 'turn_cap' });
    const request = this.request();
    const key = requestKey('chat', { model: request.model, seed: request.seed, temperature: request.temperature, tools: request.tools, tool_choice: request.tool_choice, messages: request.messages });
    const turnSeq = this.options.log.lastAgentSeq();
    let response: ChatResponse;
    let cached: boolean;
    try {
      ({ value: response, cached } = await throughCache(this.options.cache, key, request, () => this.options.chat.complete(request), (stored) => {
        const parsed = chatResponseSchema.safeParse(stored);
        return parsed.success ? parsed.data : undefined;
      }));
    } catch (err) {
      this.record(turnSeq, key, request, null, false, err instanceof Error ? err.message : String(err));
      return this.end({ text: null, hangUp: err instanceof CacheMissError ? 'cache_miss' : 'mind_error' });
    }
    this.record(turnSeq, key, request, response, cached, null);
    const turn = this.interpret(replyOf(response));
    return turn.hangUp ? this.end(this.said(turn)) : this.said(turn);
  }

  /** The request for the conversation so far. */
  private request(): ChatRequest {
    return {
      model: this.options.model,
      messages: [{ role: 'system', content: this.instructions }, ...this.history],
      tools: callerTools(this.options.script),
      tool_choice: 'required',
      temperature: 0,
      seed: this.options.seed,
      max_tokens: this.options.maxTokens ?? 200,
      n: 1,
      stream: false,
    };
  }

  /** Turns the model's choice into words: scripted lines come from the task, never from the model. */
  private interpret(reply: { toolCalls: ParsedToolCall[]; content: string }): CallerTurn {
    const script = this.options.script;
    const call = reply.toolCalls[0];
    if (!call) return reply.content ? this.freeLine(reply.content) : { text: null, hangUp: null };
    switch (call.name) {
      case 'say_pin': {
        const pin = turnPinsOf(script).find((p) => p.number === Number(call.args.pin));
        if (!pin || (pin.maxUses !== null && (this.pinUses.get(pin.number) ?? 0) >= pin.maxUses)) return { text: null, hangUp: null };
        this.pinUses.set(pin.number, (this.pinUses.get(pin.number) ?? 0) + 1);
        return { text: pin.line, hangUp: pin.closes ? 'closing_line' : null, source: pin.closes ? 'closing' : 'pin', pin: pin.number };
      }
      case 'say_closing_line': {
        const line = script.closingLines[(Number(call.args.line) || 1) - 1] ?? script.closingLines[0];
        return line ? { text: line, hangUp: 'closing_line', source: 'closing' } : { text: null, hangUp: null };
      }
      case 'say_line':
        return this.freeLine(typeof call.args.text === 'string' ? call.args.text : '');
      case 'hang_up':
        return { text: null, hangUp: 'model_hangup' };
      default:
        return { text: null, hangUp: null };
    }
  }

  /** A line of the model's own; one that is a scripted line in other words is said as that line. */
  private freeLine(raw: string): CallerTurn {
    const text = clipLine(raw);
    if (!text) return { text: null, hangUp: null };
    const script = this.options.script;
    const closing = script.closingLines.find((l) => sameWords(l, text));
    if (closing) return { text: closing, hangUp: 'closing_line', source: 'closing' };
    const pin = script.pins.find((p) => sameWords(p.line, text));
    if (pin) return { text: pin.line, hangUp: pin.closes ? 'closing_line' : null, source: pin.closes ? 'closing' : 'pin', pin: pin.number };
    return { text, hangUp: null, source: 'free' };
  }

  private heard(agentText: string): void {
    const last = this.history.at(-1);
    if (last?.role === 'user') this.history[this.history.length - 1] = { role: 'user', content: `${last.content}\n${agentText.trim()}` };
    else this.history.push({ role: 'user', content: agentText.trim() });
  }

  private said(turn: CallerTurn): CallerTurn {
    if (turn.text) this.spoken++;
    this.history.push({ role: 'assistant', content: turn.text ?? '(you said nothing)' });
    return turn;
  }

  private end(turn: CallerTurn): CallerTurn {
    this.ended = true;
    return turn;
  }

  private record(turnSeq: number | null, key: string, request: ChatRequest, response: ChatResponse | null, cached: boolean, error: string | null): void {
    const usage = response ? chatUsageOf(response) : null;
    this.options.log.exchange({
      kind: 'chat',
      turn_seq: turnSeq,
      model: request.model,
      seed: request.seed,
      prompt_hash: this.promptHash,
      request_hash: key,
      cached,
      request: { ...request, messages: request.messages.map((m) => (m.role === 'system' ? { role: 'system', content: `sha256:${this.promptHash}` } : m)) },
      response,
      system_fingerprint: response?.system_fingerprint ?? null,
      usage,
      error,
    });
  }
}

/** One or two short sentences: trimmed, quotes stripped, cut at a sentence end within the cap. */
export function clipLine(raw: string): string {
  const text = raw.replace(/\s+/g, ' ').trim().replace(/^["“]+|["”]+$/g, '').trim();
  if (text.length <= FREE_LINE_MAX_CHARS) return text;
  const head = text.slice(0, FREE_LINE_MAX_CHARS);
  const end = Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! '));
  return end > 0 ? head.slice(0, end + 1) : head.trimEnd();
}
