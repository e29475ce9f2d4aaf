import type { Task } from '../packs/index.ts';
import { openingLineOf } from './local-caller.ts';

/** Why a caller ended its side of the conversation (typed, so a caller fault is never a FAIL). */
export type CallerEndReason = 'closing_line' | 'turn_cap' | 'duration_cap' | 'agent_silent' | 'external_hangup';

/** One caller turn: what the caller says (null: says nothing), and whether it hangs up after it. */
export interface CallerTurn {
  readonly text: string | null;
  readonly hangUp: CallerEndReason | null;
}

/**
 * The caller's mind, in text (DESIGN.md §17): what it says first, and what it answers to each
 * agent utterance. Voice mode wraps a mind with ears (transcription) and a mouth (speech); text
 * episodes use it as is. Kinds: `scripted` (the opening line, then silence), `llm` (a digital
 * human built from the task), `external` (turns supplied from outside).
 */
export interface CallerMind {
  readonly kind: 'scripted' | 'llm' | 'external';
  /** The caller's first line. */
  open(): Promise<CallerTurn>;
  /** The agent said `agentText` (one utterance); the caller's reply. */
  reply(agentText: string): Promise<CallerTurn>;
}

/** The no-key caller: says the task's opening line, then stays silent and never hangs up first. */
export class ScriptedMind implements CallerMind {
  readonly kind = 'scripted' as const;

  constructor(private readonly task: Pick<Task, 'intent'>) {}

  async open(): Promise<CallerTurn> {
    return { text: openingLineOf(this.task.intent), hangUp: null };
  }

  async reply(): Promise<CallerTurn> {
    return { text: null, hangUp: null };
  }
}
