import { CarryForward, handoffArguments, planRoute, type RouteStep } from '../conversation/index.ts';
import { SAY_TO_CALLER } from './framing.ts';
import type { Pack, Task } from '../packs/index.ts';
import type { Usage } from '../snapshot/index.ts';
import type { EpisodeAction, EpisodeView, StepResult } from './text-episode.ts';

/** What a policy plays: a `TextEpisode` in-process, or an adapter over a contract (tests drive HTTP and WebSocket ones). */
export interface PlayableEpisode {
  readonly pack: Pack;
  readonly task: Task;
  isDone(): boolean;
  step(action: EpisodeAction): Promise<Pick<StepResult, 'output' | 'done'> & Partial<StepResult>>;
  /** The active agent's instructions and tools (a model policy needs them; the scripted ones do not). */
  view?(): EpisodeView;
  /** Agent speech the caller does not answer (text beside tool calls). */
  speakWithoutReply?(text: string): void;
  /** The model's token usage, added to the snapshot's. */
  addUsage?(usage: Partial<Usage>): void;
}

/**
 * A text policy harness (`text/<name>`): it plays the agent side of an episode by calling
 * `episode.step` until the episode is done or it has nothing more to do. The deterministic ones
 * (`scripted`, `noop`) need no model; `openai-chat` drives any chat-completions endpoint.
 */
export interface TextPolicy {
  readonly name: string;
  /** The model the snapshot records (null for the deterministic policies). */
  readonly model: string | null;
  /** Plays the episode from its first observation (`callerSaid`: the caller's opening line). */
  play(episode: PlayableEpisode, callerSaid: string | null): Promise<void>;
}

/** What the scripted policy says before its first tool call, and the noop policy's only line. */
export const BRIDGE_LINE = 'Sure, let me take care of that.';
export const NOOP_LINE = 'Sorry, I cannot help with that today. Goodbye.';

/** Steps an action unless the episode is already done; returns null once it is. */
async function act(episode: PlayableEpisode, action: EpisodeAction): Promise<Awaited<ReturnType<PlayableEpisode['step']>> | null> {
  if (episode.isDone()) return null;
  const result = await episode.step(action);
  return result;
}

/**
 * The `text/scripted` policy: replays the task's reference route as text. It says one bridge line
 * to the caller, then makes the route's hops and expected calls in order (arguments resolved as
 * the scripted voice harness resolves them, carried fields taken from real outputs), then ends the
 * call. A route that ends in a session tool (a human transfer) ends the episode there. With
 * `steps` it replays any route instead (a longer valid one, a broken one).
 */
export function scriptedPolicy(options: { readonly name?: string; readonly steps?: readonly RouteStep[] } = {}): TextPolicy {
  return {
    name: options.name ?? 'scripted',
    model: null,
    async play(episode) {
      const { pack, task } = episode;
      const steps = options.steps ?? planRoute(pack, task).steps;
      const carry = new CarryForward();
      await act(episode, { name: SAY_TO_CALLER, arguments: { text: BRIDGE_LINE } });
      for (const [i, step] of steps.entries()) {
        if (step.kind === 'call') {
          const result = await act(episode, { name: step.call.name, arguments: carry.argumentsFor(pack, step.call) });
          if (!result) return;
          carry.record(pack, { name: step.call.name, output: result.output as { ok: boolean; data?: unknown } });
          continue;
        }
        const following = steps.slice(i + 1).find((s) => s.kind === 'hop');
        if (!(await act(episode, { name: step.tool, arguments: handoffArguments(pack, step.tool, following?.kind === 'hop' ? following.to : undefined) }))) return;
      }
      await act(episode, { name: 'end_call', arguments: { reason: 'caller_done' } });
    },
  };
}

/** The `text/noop` policy: says it cannot help and ends the call, like the `noop` voice harness. */
export function noopPolicy(): TextPolicy {
  return {
    name: 'noop',
    model: null,
    async play(episode) {
      await act(episode, { name: SAY_TO_CALLER, arguments: { text: NOOP_LINE } });
      await act(episode, { name: 'end_call', arguments: { reason: 'caller_done' } });
    },
  };
}
