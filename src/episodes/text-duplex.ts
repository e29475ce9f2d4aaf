import { duplexActsOf, triggeredAct, type DuplexAct } from '../caller/index.ts';
import { callerScriptOf, type Task } from '../packs/index.ts';

/** A duplex act a text episode plays on one agent utterance: the act, and how many of the utterance's words came before the caller cut in. */
export interface TextCutIn {
  readonly act: DuplexAct;
  readonly afterWords: number;
}

/**
 * The duplex acts of a text episode (docs/caller.md, "Duplex acts in text"). A text agent's
 * utterance arrives whole, so the caller overhears it word by word as a voice caller overhears a
 * stream: the act fires on the shortest prefix whose words say its phrase and not its NOT clause
 * (the same `triggeredAct` the voice loop uses on partial transcripts), each act once per episode.
 */
export class TextDuplex {
  private pending: readonly DuplexAct[];

  constructor(task: Task) {
    this.pending = duplexActsOf(callerScriptOf(task))?.acts ?? [];
  }

  /** The act the caller plays over this agent utterance, if one's trigger holds on a prefix of it. */
  take(text: string): TextCutIn | null {
    if (!this.pending.length) return null;
    const words = text.split(/\s+/).filter(Boolean);
    for (let n = 1; n <= words.length; n++) {
      const act = triggeredAct(this.pending, words.slice(0, n).join(' '));
      if (!act) continue;
      this.pending = this.pending.filter((a) => a !== act);
      return { act, afterWords: n };
    }
    return null;
  }
}
