import { emptyCallerUsage, type CallerDuplexRecord, type CallerExchangeRecord, type CallerLineSource, type CallerTurnRecord, type CallerUsage } from '../snapshot/index.ts';

/**
 * What one caller lived, in order: the agent's utterances as its ears heard them, its own lines,
 * and every request it made to a model, a transcriber or a speech endpoint. The dialer and the
 * minds write to it; the run command turns it into the call's `caller.json`.
 */
export class CallerLog {
  readonly turns: CallerTurnRecord[] = [];
  readonly exchanges: CallerExchangeRecord[] = [];
  readonly usage: CallerUsage = emptyCallerUsage();

  /** Records an agent utterance; returns its seq. */
  agent(utteranceId: string | null, text: string, audioMs: number): number {
    return this.push({ side: 'agent', utterance_id: utteranceId, text, source: null, pin: null, interrupted: false, audio_ms: audioMs });
  }

  /** Records a caller line (with `duplex`: said over the agent); returns its seq. */
  caller(utteranceId: string | null, text: string, source: CallerLineSource | null, pin: number | null, audioMs: number, duplex: CallerDuplexRecord | null = null): number {
    return this.push({ side: 'caller', utterance_id: utteranceId, text, source, pin, interrupted: false, audio_ms: audioMs, ...(duplex ? { duplex } : {}) });
  }

  /** Marks a caller line cut short by the agent (barge-in). */
  interrupted(seq: number): void {
    const index = this.turns.findIndex((t) => t.seq === seq);
    const turn = this.turns[index];
    if (turn) this.turns[index] = { ...turn, interrupted: true };
  }

  /** The seq of the latest agent turn, or null before the agent spoke. */
  lastAgentSeq(): number | null {
    for (let i = this.turns.length - 1; i >= 0; i--) if (this.turns[i]?.side === 'agent') return this.turns[i]?.seq ?? null;
    return null;
  }

  /** The caller's lines so far, in order. */
  callerLines(): string[] {
    return this.turns.filter((t) => t.side === 'caller').map((t) => t.text);
  }

  exchange(record: CallerExchangeRecord): void {
    this.exchanges.push(record);
    // A cached reply cost nothing this time: it counts as a request, not as tokens or seconds.
    const usage = record.cached ? {} : (record.usage ?? {});
    const u = this.usage as { -readonly [K in keyof CallerUsage]: CallerUsage[K] };
    if (record.kind === 'chat') {
      u.chat_requests++;
      if (record.cached) u.chat_cached++;
      u.prompt_tokens += usage.prompt_tokens ?? 0;
      u.completion_tokens += usage.completion_tokens ?? 0;
      u.cached_prompt_tokens += usage.cached_tokens ?? 0;
    } else if (record.kind === 'transcription') {
      u.transcription_requests++;
      u.transcription_seconds += usage.seconds ?? 0;
    } else {
      u.speech_requests++;
      u.speech_characters += usage.characters ?? 0;
    }
  }

  private push(turn: Omit<CallerTurnRecord, 'seq'>): number {
    const seq = this.turns.length;
    this.turns.push({ seq, ...turn });
    return seq;
  }
}
