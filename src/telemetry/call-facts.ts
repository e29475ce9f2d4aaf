import type { CallRecord } from '../call/index.ts';
import type { Usage } from '../snapshot/index.ts';

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
  readonly bargeIns: number;
  readonly providerErrors: ReadonlyMap<string, number>;
  readonly tools: readonly ToolFact[];
  readonly handoffs: readonly { readonly from: string; readonly to: string }[];
  readonly refusedHandoffs: number;
}

/** Reads the countable facts of a call from its record (pure; the timeline is the one source). */
export function callFacts(record: CallRecord): CallFacts {
  let firstAgentAudioMs: number | null = null;
  let nudges = 0;
  let underruns = 0;
  let bargeIns = 0;
  let refusedHandoffs = 0;
  const providerErrors = new Map<string, number>();
  const tools: ToolFact[] = [];
  const handoffs: { from: string; to: string }[] = [];
  for (const e of record.events) {
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
      default:
        break;
    }
  }
  return { firstAgentAudioMs, nudges, underruns, bargeIns, providerErrors, tools, handoffs, refusedHandoffs };
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
