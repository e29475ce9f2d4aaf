import type { SpeechSynth } from '../audio/index.ts';
import { systemClock, type Clock, type IdSource } from '../core/index.ts';
import type { Task } from '../packs/index.ts';
import type { CallerFile, CallerUsage } from '../snapshot/index.ts';
import type { CallerCache } from './caller-cache.ts';
import { CallerLog } from './caller-log.ts';
import { ScriptedMind, type CallerMind } from './caller-mind.ts';
import { chatClient, type ChatCompleter } from './chat-completions.ts';
import type { ConversationLimits, OutboundAudio } from './caller-loop.ts';
import { dialConversation, type ConversationReport, type DialTarget } from './conversation-caller.ts';
import { duplexActsOf, type DuplexSettings } from './duplex.ts';
import { transcriptionEars, type Ears } from './ears.ts';
import type { EndpointSettings } from './endpoint.ts';
import { callerSeed, LlmMind } from './llm-mind.ts';
import { espeakMouth, speechEndpointMouth, voiceFor, type Mouth } from './mouth.ts';
import { ExternalMind, ReplayMind, type ExternalTurns } from './other-minds.ts';
import { callerScriptOf } from '../packs/index.ts';

/** The caller kinds of `--caller` (architecture.md §17). */
export const CALLER_KINDS = ['scripted', 'llm', 'external', 'replay'] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

/** USD prices of the caller's own endpoints (configuration, never code); unset prices leave the cost null. */
export interface CallerPrices {
  /** Per 1M prompt tokens not served from the provider's prompt cache. */
  readonly inputPerMTok: number;
  readonly cachedInputPerMTok: number;
  readonly outputPerMTok: number;
  readonly transcriptionPerMin: number;
  readonly speechPerMChars: number;
}

/** How the mouth speaks: espeak-ng (local default), an OpenAI-compatible speech endpoint, or a given synth (tests). */
export type MouthSettings =
  | { readonly kind: 'espeak'; readonly voices?: readonly string[] }
  | { readonly kind: 'endpoint'; readonly endpoint: EndpointSettings; readonly model: string; readonly voices: readonly string[]; readonly rateHz: number }
  | { readonly kind: 'synth'; readonly synth: SpeechSynth; readonly voice?: string };

/** Everything a run decides about its callers. */
export interface CallerSettings {
  readonly kind: CallerKind;
  /** The llm caller's chat endpoint and model (required for `llm`). */
  readonly chat?: { readonly endpoint: EndpointSettings; readonly model: string; readonly completer?: ChatCompleter };
  /** Ears for the llm and external callers; null: they hear nothing (only sensible with `scripted`). */
  readonly ears: { readonly endpoint: EndpointSettings; readonly model: string } | null;
  readonly mouth: MouthSettings;
  /** Shifts every (task, trial) seed of the run. */
  readonly seedBase: number;
  readonly maxTurns: number;
  readonly limits: ConversationLimits;
  readonly cache: CallerCache | null;
  /** The recorded caller of a (task, trial), for `replay`. */
  readonly replayOf?: (taskId: string, trial: number) => { readonly file: CallerFile; readonly ref: string } | null;
  /** The outside's turns of one call, for `external`. */
  readonly externalTurns?: () => ExternalTurns;
  /** The audio condition of a task's call (null: perfect line), with the parameters to record. */
  readonly conditionFor?: (task: Task, seed: number) => { readonly outbound: OutboundAudio; readonly params: Record<string, string | number | boolean | null> } | null;
  readonly prices: CallerPrices | null;
  readonly clock?: Clock;
}

/** One call's caller, ready to dial, and how to write down what it did. */
export interface PreparedCaller {
  readonly mind: CallerMind;
  readonly ears: Ears | null;
  readonly mouth: Mouth;
  readonly log: CallerLog;
  readonly seed: number;
  readonly outbound: OutboundAudio | null;
  readonly limits: ConversationLimits;
  /** The task's duplex acts, played over the agent (null: none, or a caller without ears or a mind of its own). */
  readonly duplex: DuplexSettings | null;
  /** The call's `caller.json` content (`trial` null: a call that is no trial of a run, such as a speech rollout). */
  record(report: ConversationReport, ids: { callId: string; runId: string | null; trial: number | null }): CallerFile;
}

/** Where and how one call with a prepared caller is dialed. */
export interface CallerDial extends DialTarget {
  readonly taskId: string;
  /** Real-time pacing with hold audio; false: each line in one burst (`--fast`). */
  readonly paced: boolean;
  readonly timeoutMs: number;
  readonly ids?: IdSource;
  readonly clock?: Clock;
}

/** Dials one conversational call (`dialConversation`) with a prepared caller: its mind, ears, mouth, log, caps and audio condition. */
export function dialPrepared(caller: PreparedCaller, dial: CallerDial): Promise<ConversationReport> {
  return dialConversation({
    ...dial,
    mind: caller.mind,
    ears: caller.ears,
    mouth: caller.mouth,
    log: caller.log,
    limits: caller.limits,
    outbound: caller.outbound,
    duplex: caller.duplex,
  });
}

/** What the caller's usage cost at the given prices. */
export function callerCost(usage: CallerUsage, prices: CallerPrices | null): number | null {
  if (!prices) return null;
  const fresh = Math.max(0, usage.prompt_tokens - usage.cached_prompt_tokens);
  const usd =
    (fresh * prices.inputPerMTok + usage.cached_prompt_tokens * prices.cachedInputPerMTok + usage.completion_tokens * prices.outputPerMTok) / 1e6 +
    (usage.transcription_seconds / 60) * prices.transcriptionPerMin +
    (usage.speech_characters / 1e6) * prices.speechPerMChars;
  return Math.round(usd * 1e6) / 1e6;
}

/** Builds the mind, ears and mouth of one call of a task from the run's caller settings. */
export function prepareCaller(settings: CallerSettings, task: Task, trial: number): PreparedCaller {
  const clock = settings.clock ?? systemClock();
  const log = new CallerLog();
  const seed = callerSeed(settings.seedBase, task.task_id, trial);
  const script = callerScriptOf(task);
  let mind: CallerMind;
  let replayRef: string | null = null;
  switch (settings.kind) {
    case 'scripted':
      mind = new ScriptedMind(task);
      break;
    case 'llm': {
      if (!settings.chat) throw new Error('the llm caller needs a chat endpoint and model');
      mind = new LlmMind({ script, model: settings.chat.model, seed, chat: settings.chat.completer ?? chatClient(settings.chat.endpoint, clock), cache: settings.cache, log, maxTurns: settings.maxTurns });
      break;
    }
    case 'external':
      if (!settings.externalTurns) throw new Error('the external caller needs a source of turns');
      mind = new ExternalMind(settings.externalTurns());
      break;
    case 'replay': {
      const recorded = settings.replayOf?.(task.task_id, trial) ?? null;
      if (!recorded) throw new Error(`no recorded caller for ${task.task_id} trial ${trial}`);
      mind = new ReplayMind(recorded.file);
      replayRef = recorded.ref;
      break;
    }
  }
  const ears = settings.kind === 'scripted' || !settings.ears ? null : transcriptionEars({ endpoint: settings.ears.endpoint, model: settings.ears.model, clock, cache: settings.cache, log });
  const mouth = mouthOf(settings.mouth, script.persona, seed, clock, log);
  const condition = settings.conditionFor?.(task, seed) ?? null;
  // The scripted caller never hangs up first (architecture.md §12): no silence cap.
  const limits = settings.kind === 'scripted' ? { ...settings.limits, agentSilenceMs: Number.POSITIVE_INFINITY } : settings.limits;
  return {
    mind,
    ears,
    mouth,
    log,
    seed,
    outbound: condition?.outbound ?? null,
    limits,
    // A replayed caller re-speaks its recorded lines, duplex ones included, as turns.
    duplex: ears && settings.kind !== 'replay' ? duplexActsOf(script) : null,
    record(report, ids) {
      const llm = mind instanceof LlmMind ? mind : null;
      return {
        version: 1,
        call_id: ids.callId,
        run_id: ids.runId,
        task_id: task.task_id,
        trial: ids.trial,
        kind: settings.kind,
        model: llm ? (settings.chat?.model ?? null) : null,
        seed: llm ? seed : null,
        prompt_hash: llm?.promptHash ?? null,
        instructions: llm?.instructions ?? null,
        end_reason: report.endReason,
        hung_up: report.hungUp,
        close_code: report.refusedStatus ? null : report.closeCode,
        mouth: { engine: mouth.engine, voice: mouth.voice },
        ears: ears ? { model: ears.model } : null,
        audio_condition: condition ? { name: task.metadata.audio_condition, ...condition.params } : null,
        replay_of: replayRef,
        turns: log.turns,
        exchanges: log.exchanges,
        usage: log.usage,
        cost_usd_est: callerCost(log.usage, settings.prices),
      };
    },
  };
}

function mouthOf(settings: MouthSettings, persona: string, seed: number, clock: Clock, log: CallerLog): Mouth {
  switch (settings.kind) {
    case 'espeak':
      return espeakMouth(persona, seed, settings.voices);
    case 'endpoint':
      return speechEndpointMouth({ endpoint: settings.endpoint, model: settings.model, voice: voiceFor(persona, seed, settings.voices), rateHz: settings.rateHz, clock, log });
    case 'synth':
      return { engine: settings.synth.engine, voice: settings.voice ?? null, synthesize: (text) => settings.synth.synthesize(text) };
  }
}
