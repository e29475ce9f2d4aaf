import { createInterface } from 'node:readline';
import type { CallerFile } from '../snapshot/index.ts';
import type { CallerMind, CallerTurn } from './caller-mind.ts';

/** What the outside is asked for: the caller's first line (agentText null) or its answer to one agent utterance. */
export interface ExternalPrompt {
  readonly agentText: string | null;
}

/**
 * The hand-off point of an `external` caller: the mind asks, and whoever plays the caller (a
 * person at a terminal, the RL text episodes, a test) answers. Pull style, so a program can loop
 * `const p = await turns.next(); turns.answer(...)` without callbacks.
 */
export class ExternalTurns {
  private waiting: { prompt: ExternalPrompt; resolve: (turn: CallerTurn) => void } | null = null;
  private readonly askers: ((prompt: ExternalPrompt) => void)[] = [];
  private closed = false;

  /** Called by the mind: resolves with the outside's answer. */
  ask(prompt: ExternalPrompt): Promise<CallerTurn> {
    if (this.closed) return Promise.resolve({ text: null, hangUp: 'external_hangup' });
    return new Promise((resolve) => {
      this.waiting = { prompt, resolve };
      this.askers.shift()?.(prompt);
    });
  }

  /** The next prompt the outside must answer (waits for one). */
  next(): Promise<ExternalPrompt> {
    if (this.waiting) return Promise.resolve(this.waiting.prompt);
    return new Promise((resolve) => this.askers.push(resolve));
  }

  /** Answers the waiting prompt: a line to say, null for silence, or a hang-up. */
  answer(turn: { text: string | null; hangUp?: boolean }): void {
    const waiting = this.waiting;
    if (!waiting) throw new Error('no caller turn is waiting for an answer');
    this.waiting = null;
    waiting.resolve({ text: turn.text?.trim() || null, hangUp: turn.hangUp ? 'external_hangup' : null, source: 'external' });
  }

  /** Ends the outside's part: the waiting prompt and every later one hang up. */
  close(): void {
    this.closed = true;
    this.waiting?.resolve({ text: null, hangUp: 'external_hangup' });
    this.waiting = null;
  }
}

/** The `external` caller: every line, the first included, comes from outside. */
export class ExternalMind implements CallerMind {
  readonly kind = 'external' as const;

  private readonly turns: ExternalTurns;

  constructor(turns: ExternalTurns) {
    this.turns = turns;
  }

  open(): Promise<CallerTurn> {
    return this.turns.ask({ agentText: null });
  }

  reply(agentText: string): Promise<CallerTurn> {
    return this.turns.ask({ agentText });
  }
}

/**
 * A terminal plays the caller: each agent utterance is printed and the typed line is said. An
 * empty line stays silent; `/hangup` (or end of input) hangs up.
 */
export function terminalTurns(input: NodeJS.ReadableStream, output: { write(text: string): unknown }): ExternalTurns {
  const turns = new ExternalTurns();
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  void (async () => {
    for (;;) {
      const prompt = await turns.next();
      output.write(prompt.agentText === null ? 'agent greeted; your first line> ' : `agent: ${prompt.agentText}\nyou> `);
      const line = await lines.next();
      if (line.done || line.value.trim() === '/hangup') {
        turns.close();
        rl.close();
        return;
      }
      turns.answer({ text: line.value });
    }
  })();
  return turns;
}

/**
 * The frozen replay (`--caller replay`): re-speaks a recorded call's caller lines, each after the
 * same count of agent utterances it followed in the recording, and hangs up where the recording
 * did. No model and no key: the recorded caller is repeated against whatever agent answers now.
 */
export class ReplayMind implements CallerMind {
  readonly kind = 'replay' as const;
  /** Agent utterances heard so far (the greeting included). */
  private heard = 0;
  private readonly lines = new Map<number, CallerTurn>();
  /** After how many agent utterances the recording hung up, and why (null: it did not). */
  private readonly hangAt: { afterAgent: number; reason: CallerTurn['hangUp'] } | null;

  readonly recording: CallerFile;

  constructor(recording: CallerFile) {
    this.recording = recording;
    let agents = 0;
    let lastLineAt = 0;
    for (const turn of recording.turns) {
      if (turn.side === 'agent') agents++;
      else {
        this.lines.set(agents, { text: turn.text, hangUp: null, source: 'replay', ...(turn.pin ? { pin: turn.pin } : {}) });
        lastLineAt = agents;
      }
    }
    // A closing line hangs up after itself (the grace wait follows); any other hang-up came after the last agent turn.
    const reason = recording.end_reason ?? 'replay_end';
    this.hangAt = recording.hung_up ? { afterAgent: reason === 'closing_line' ? lastLineAt : agents, reason } : null;
  }

  observe(): void {
    this.heard++;
  }

  async open(): Promise<CallerTurn> {
    return this.take();
  }

  async reply(): Promise<CallerTurn> {
    this.heard++;
    return this.take();
  }

  private take(): CallerTurn {
    const line = this.lines.get(this.heard) ?? { text: null, hangUp: null };
    const hangs = this.hangAt !== null && this.heard >= this.hangAt.afterAgent;
    return hangs ? { ...line, hangUp: this.hangAt?.reason ?? 'replay_end' } : line;
  }
}
