import type { Task } from '../packs/index.ts';
import type { CallerEndReasonName, CallerLineSource } from '../snapshot/index.ts';
import { openingLineOf } from '../packs/index.ts';

/**
 * Why a caller ended its side of the conversation (typed, so a caller fault is never a FAIL).
 * The names are the snapshot's `callerEndReasonSchema` (`src/snapshot/caller-file.ts`):
 * `closing_line`, `turn_cap`, `duration_cap`, `agent_silent`, `external_hangup`, and the kinds
 * added for the llm caller: `model_hangup`, `mind_error`, `cache_miss`, `replay_end`.
 */
export type CallerEndReason = CallerEndReasonName;

/** One caller turn: what the caller says (null: says nothing), and whether it hangs up after it. */
export interface CallerTurn {
  readonly text: string | null;
  readonly hangUp: CallerEndReason | null;
  /** Where the line came from (recorded; absent means unknown). */
  readonly source?: CallerLineSource;
  /** The pin said, 1-based in task order, when the line is a pin. */
  readonly pin?: number;
}

/**
 * The caller's mind, in text (architecture.md §17): what it says first, and what it answers to each
 * agent utterance. Voice mode wraps a mind with ears (transcription) and a mouth (speech); text
 * episodes use it as is. Kinds: `scripted` (the opening line, then silence), `llm` (a digital
 * human built from the task), `external` (turns supplied from outside), `replay` (a recorded call's caller lines re-spoken).
 */
export interface CallerMind {
  readonly kind: 'scripted' | 'llm' | 'external' | 'replay';
  /** The caller's first line. */
  open(): Promise<CallerTurn>;
  /** The agent said `agentText` (one utterance); the caller's reply. */
  reply(agentText: string): Promise<CallerTurn>;
  /**
   * Optional: the reply to `agentText` when the mind has it without waiting (the scripted caller),
   * so a text episode's step never yields the event loop for it. Same answer as `reply`.
   */
  replyNow?(agentText: string): CallerTurn;
  /**
   * Optional: the agent said `agentText` and the caller does not answer it (the greeting heard
   * before `open()`), so a mind that keeps a history can still put it there.
   */
  observe?(agentText: string): void;
  /** Optional: the caller said `line` over the agent (a duplex act), so a mind that keeps a history can put it there. */
  saidOver?(line: string): void;
}

/** The caller's opening line from a task intent (defined with the caller script in packs; exported here for the caller's users). */
export { openingLineOf } from '../packs/index.ts';

/** The no-key caller: says the task's opening line (or a given line), then stays silent and never hangs up first. */
export class ScriptedMind implements CallerMind {
  readonly kind = 'scripted' as const;

  private readonly line: string;

  constructor(opening: Pick<Task, 'intent'> | string) {
    this.line = typeof opening === 'string' ? opening : openingLineOf(opening.intent);
  }

  async open(): Promise<CallerTurn> {
    return { text: this.line, hangUp: null, source: 'opening' };
  }

  async reply(): Promise<CallerTurn> {
    return this.replyNow();
  }

  replyNow(): CallerTurn {
    return { text: null, hangUp: null };
  }
}
