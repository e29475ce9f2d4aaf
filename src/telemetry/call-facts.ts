import type { CallRecord, TimelineEvent, Usage } from '../snapshot/index.ts';

/** One tool call as the metrics see it. */
export interface ToolFact {
  readonly name: string;
  readonly kind: 'industry' | 'handoff' | 'session';
  /** Executed and not an `ok:false` envelope (a handoff's `{assistant}` output counts as ok). */
  readonly ok: boolean;
  readonly durationMs: number;
}

/** Countable facts of one finished call, read from its timeline. */
export interface CallFacts {
  readonly firstAgentAudioMs: number | null;
  readonly nudges: number;
  readonly underruns: number;
  readonly clockResets: number;
  readonly bargeIns: number;
  readonly providerErrors: ReadonlyMap<string, number>;
  readonly tools: readonly ToolFact[];
  readonly handoffs: readonly { readonly from: string; readonly to: string }[];
  readonly refusedHandoffs: number;
  /** Connect start to the provider session being ready, in ms. */
  readonly providerConnectMs: readonly number[];
  /** Per response: what asked for it to its first audio delta, in ms. */
  readonly ttftMs: readonly number[];
  /** Per echoed mark: sent (with the utterance's `speech.completed`) to the caller's echo, in ms. */
  readonly markEchoMs: readonly number[];
}

/** Reads the countable facts of a call from its record (pure; the timeline is the one source). */
export function callFacts(record: CallRecord): CallFacts {
  return eventFacts(record.events);
}

/** The countable facts of some of a call's events: all of them at hangup, or one as it is recorded. */
export function eventFacts(events: readonly TimelineEvent[]): CallFacts {
  let firstAgentAudioMs: number | null = null;
  let nudges = 0;
  let underruns = 0;
  let clockResets = 0;
  let bargeIns = 0;
  let refusedHandoffs = 0;
  const providerErrors = new Map<string, number>();
  const tools: ToolFact[] = [];
  const handoffs: { from: string; to: string }[] = [];
  const providerConnectMs: number[] = [];
  const ttftMs: number[] = [];
  const markEchoMs: number[] = [];
  const markSentAtMs = new Map<string, number>();
  for (const e of events) {
    switch (e.type) {
      case 'speech.started':
        if (e.side === 'agent' && firstAgentAudioMs === null) firstAgentAudioMs = e.at_ms;
        break;
      case 'nudge':
        nudges++;
        break;
      case 'audio.underrun':
        underruns++;
        break;
      case 'audio.clock_reset':
        clockResets++;
        break;
      case 'barge_in':
        bargeIns++;
        break;
      case 'provider.error':
        providerErrors.set(e.code, (providerErrors.get(e.code) ?? 0) + 1);
        break;
      case 'handoff':
        handoffs.push({ from: e.from, to: e.to });
        break;
      case 'tool':
        tools.push({ name: e.name, kind: e.kind, ok: e.executed && e.output.ok !== false, durationMs: e.duration_ms });
        if (e.kind === 'handoff' && e.refusal !== null) refusedHandoffs++;
        break;
      case 'provider.ready':
        providerConnectMs.push(e.connect_ms);
        break;
      case 'response.first_audio':
        ttftMs.push(e.ttft_ms);
        break;
      case 'speech.completed':
        // mivas sends a mark only after an agent utterance that played to its end (wire.md §1.4).
        if (e.side === 'agent' && !e.interrupted) markSentAtMs.set(e.utterance_id, e.at_ms);
        break;
      case 'mark.echo': {
        const sentAtMs = markSentAtMs.get(e.name);
        if (sentAtMs !== undefined) markEchoMs.push(e.at_ms - sentAtMs);
        markSentAtMs.delete(e.name);
        break;
      }
      default:
        break;
    }
  }
  return { firstAgentAudioMs, nudges, underruns, clockResets, bargeIns, providerErrors, tools, handoffs, refusedHandoffs, providerConnectMs, ttftMs, markEchoMs };
}

/** The six price classes of wire.md §2.9, named for the `class` label of `mivas_tokens_total`. */
export function usageClasses(usage: Usage): [string, number][] {
  return [
    ['input_text', usage.input_text_tokens],
    ['input_audio', usage.input_audio_tokens],
    ['cached_text', usage.cached_text_tokens],
    ['cached_audio', usage.cached_audio_tokens],
    ['output_text', usage.output_text_tokens],
    ['output_audio', usage.output_audio_tokens],
  ];
}
