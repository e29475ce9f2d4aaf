import { wordsOf, type CallerScript, type DuplexActKind } from '../packs/index.ts';

/** One duplex act of a task, as the caller loop plays it (docs/caller.md, "Duplex acts"). */
export interface DuplexAct {
  /** The pin's number (1-based, task order): recorded with the line as any pin. */
  readonly pin: number;
  readonly kind: DuplexActKind;
  /** The pin's words, said over the agent. */
  readonly line: string;
  /** Phrases, any of which the agent's utterance so far must say. */
  readonly agentSays: readonly string[];
  /** The NOT clause: phrases that hold the act back while the utterance so far says any of them. */
  readonly notWhen: readonly string[];
  /** Agent audio that must follow the trigger before the caller starts. */
  readonly cutInAfterMs: number;
}

/** How the loop overhears the agent for its duplex acts. */
export interface DuplexSettings {
  readonly acts: readonly DuplexAct[];
  /** The utterance so far is transcribed at every multiple of this much agent audio (the partial transcripts). */
  readonly hearEveryMs: number;
}

/** The default step of the partial transcripts: fine enough to cut in within half a second of a phrase, few enough requests for a long turn. */
export const DUPLEX_HEAR_EVERY_MS = 500;

/** The duplex acts of a task's caller script, in task order (none: null, and the loop never transcribes a partial utterance). */
export function duplexActsOf(script: CallerScript, hearEveryMs = DUPLEX_HEAR_EVERY_MS): DuplexSettings | null {
  const acts = script.pins.flatMap((p): DuplexAct[] =>
    p.duplex ? [{ pin: p.number, kind: p.duplex.act, line: p.line, agentSays: p.duplex.agent_says, notWhen: p.duplex.not_when_agent_says, cutInAfterMs: p.duplex.cut_in_after_ms }] : [],
  );
  return acts.length ? { acts, hearEveryMs } : null;
}

/** Whether a phrase's words occur, in order and together, in a text's words (case and punctuation aside). */
export function saysPhrase(text: string, phrase: string): boolean {
  const words = wordsOf(phrase);
  return words.length > 0 && ` ${wordsOf(text)} `.includes(` ${words} `);
}

/** The first act whose trigger holds for what the agent has said so far: its phrase heard, its NOT clause not. */
export function triggeredAct(acts: readonly DuplexAct[], soFar: string): DuplexAct | null {
  const saysAny = (phrases: readonly string[]): boolean => phrases.some((p) => saysPhrase(soFar, p));
  return acts.find((a) => saysAny(a.agentSays) && !saysAny(a.notWhen)) ?? null;
}

/** Whether an act takes the floor (the agent should yield and answer it) or only acknowledges (the agent should keep going). */
export function takesFloor(kind: DuplexActKind): boolean {
  return kind !== 'back_channel';
}
