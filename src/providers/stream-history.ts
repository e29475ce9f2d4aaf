/**
 * The conversation as text, kept by the harnesses that open a new model stream per specialist
 * (Gemini Live, Nova Sonic; architecture.md §19). At a handoff the next specialist's stream is seeded
 * with it: what the caller said and what the agent said (only as much as the caller heard), and
 * every tool call with its result, written out as text. Audio is never replayed.
 */

/** One turn of the seed, in speaking order. */
export interface SeedTurn {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

type Entry =
  | { readonly kind: 'caller'; text: string; closed: boolean }
  | { readonly kind: 'agent'; readonly itemId: string; text: string; audioMs: number; playedMs: number | null }
  | { readonly kind: 'tool'; readonly callId: string; readonly name: string; readonly args: string; result: string | null; readonly agent: string };

export class StreamHistory {
  private readonly entries: Entry[] = [];

  /** Adds to the caller's current utterance (transcription arrives in pieces). */
  callerText(text: string): void {
    const last = this.entries.at(-1);
    if (last?.kind === 'caller' && !last.closed) last.text += text;
    else this.entries.push({ kind: 'caller', text, closed: false });
  }

  /** Adds to an agent item's transcript and audio length. */
  agentText(itemId: string, text: string, audioMs = 0): void {
    const entry = this.agentEntry(itemId);
    entry.text += text;
    entry.audioMs += audioMs;
  }

  /** Counts audio of an agent item (for truncation). */
  agentAudio(itemId: string, audioMs: number): void {
    this.agentEntry(itemId).audioMs += audioMs;
  }

  /** The agent item's whole transcript so far. */
  agentTextOf(itemId: string): string {
    const entry = this.entries.find((e): e is Extract<Entry, { kind: 'agent' }> => e.kind === 'agent' && e.itemId === itemId);
    return entry?.text.trim() ?? '';
  }

  /** The caller heard `playedMs` of an agent item. */
  truncate(itemId: string, playedMs: number): void {
    const entry = this.entries.find((e): e is Extract<Entry, { kind: 'agent' }> => e.kind === 'agent' && e.itemId === itemId);
    if (entry) entry.playedMs = playedMs;
  }

  toolCall(callId: string, name: string, args: string, agent: string): void {
    this.entries.push({ kind: 'tool', callId, name, args, result: null, agent });
  }

  toolResult(callId: string, result: string): void {
    const entry = this.entries.find((e): e is Extract<Entry, { kind: 'tool' }> => e.kind === 'tool' && e.callId === callId);
    if (entry) entry.result = result;
  }

  /** The caller's utterance still being transcribed, closed so the next one starts a new entry. */
  closeCallerTurn(): string | null {
    const last = this.entries.at(-1);
    if (last?.kind !== 'caller' || last.closed) return null;
    last.closed = true;
    return last.text.trim() || null;
  }

  /**
   * The seed: consecutive lines of one role joined into one turn, empty ones dropped. Tool calls
   * are assistant lines `(called NAME with ARGS; it returned RESULT)`, so the next specialist sees
   * what was already done and what it returned.
   */
  seedTurns(): SeedTurn[] {
    const turns: { role: SeedTurn['role']; lines: string[] }[] = [];
    const add = (role: SeedTurn['role'], text: string): void => {
      const t = text.trim();
      if (!t) return;
      const last = turns.at(-1);
      if (last?.role === role) last.lines.push(t);
      else turns.push({ role, lines: [t] });
    };
    for (const e of this.entries) {
      if (e.kind === 'caller') add('user', e.text);
      else if (e.kind === 'agent') add('assistant', heardText(e.text, e.audioMs, e.playedMs));
      else add('assistant', `(${e.agent} called ${e.name} with ${e.args || '{}'}; it returned ${e.result ?? 'nothing yet'})`);
    }
    return turns.map((t) => ({ role: t.role, text: t.lines.join('\n') }));
  }

  private agentEntry(itemId: string): Extract<Entry, { kind: 'agent' }> {
    let entry = this.entries.find((e): e is Extract<Entry, { kind: 'agent' }> => e.kind === 'agent' && e.itemId === itemId);
    if (!entry) {
      entry = { kind: 'agent', itemId, text: '', audioMs: 0, playedMs: null };
      this.entries.push(entry);
    }
    return entry;
  }
}

/** The share of an item's words that fits the share of its audio the caller heard. */
function heardText(text: string, audioMs: number, playedMs: number | null): string {
  if (playedMs === null || audioMs <= 0 || playedMs >= audioMs) return text;
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.slice(0, Math.floor((words.length * playedMs) / audioMs)).join(' ');
}
