import { takesFloor, type CallerMind, type CallerTurn } from '../caller/index.ts';
import { ConversationRun, type Conversation, type ToolSpec } from '../conversation/index.ts';
import { envelopeRefusal, isPlainObject, ManualClock, MivasError } from '../core/index.ts';
import type { Pack, Task } from '../packs/index.ts';
import type { ConversationVerdict } from '../scoring/index.ts';
import { emptyUsage, type EndReason, type SnapshotPart, type TokenClass, type Usage } from '../snapshot/index.ts';
import type { CallDatabases, DatabaseDump } from '../store/index.ts';
import { episodeInstructions, greetingOf, offeredTools, SAY_TO_CALLER, type HandoffMode } from './framing.ts';
import { rewardOf, type EpisodeReward } from './reward.ts';
import { TextDuplex, type TextCutIn } from './text-duplex.ts';
import { scoreFrozen, textSnapshotParts } from './text-snapshot.ts';

/** Raised when an episode cannot do what was asked; the code is the catalog's (EPISODE_ENDED, EPISODE_INVALID). */
export class EpisodeError extends MivasError {}

/** How one text episode is opened (architecture.md §18). */
export interface EpisodeSpec {
  readonly pack: Pack;
  readonly task: Task;
  /** The conversation id: names the database, the snapshot and the cookie. */
  readonly id: string;
  readonly databases: CallDatabases;
  readonly templateDump: DatabaseDump;
  readonly caller: CallerMind;
  /** The policy's name; the snapshot's harness is `text/<policy>`. */
  readonly policy: string;
  readonly model?: string | null;
  readonly runId?: string | null;
  readonly handoffMode: HandoffMode;
  /** Policy actions (tool calls, say_to_caller included) before the episode is cut off as truncated. */
  readonly maxTurns: number;
  /** Wall-clock epoch ms for the summary's started_at / ended_at (the media clock is the episode's own). */
  readonly epochMs: () => number;
  /** Where the finished snapshot goes (the outbox); the parts are scored either way. */
  readonly store?: (pack: string, callId: string, parts: ReadonlyMap<SnapshotPart, Buffer>) => void;
}

/** Why an episode that did not end by itself was cut off (recorded as end reason `max_duration`). */
export type Truncation = 'turn_cap' | 'policy_stopped' | 'client_closed' | 'idle' | 'server_closing';

/** What the policy sees of the episode now. */
export interface EpisodeView {
  readonly episode_id: string;
  readonly pack: string;
  readonly task_id: string;
  /** The active agent (desk). */
  readonly agent: string;
  readonly handoff_mode: HandoffMode;
  /** The active agent's instructions with this conversation's framing (date and time from the pack clock). */
  readonly instructions: string;
  /** say_to_caller, then the active agent's tools (native) or the whole graph's (soft). */
  readonly tools: readonly ToolSpec[];
  readonly turn: number;
  readonly max_turns: number;
  readonly done: boolean;
  readonly end_reason: EndReason | null;
}

/** One policy action: a tool call by name with its arguments (JSON object, or the raw text a model sent). */
export interface EpisodeAction {
  readonly name: string;
  readonly arguments: unknown;
  readonly callId?: string | null;
}

/** What one action did. */
export interface StepResult {
  readonly tool_name: string;
  /** The tool's result as the policy receives it: the engine's envelope, `{assistant}` for a handoff, the caller's reply for say_to_caller. */
  readonly output: Readonly<Record<string, unknown>>;
  /** The active agent after the action. */
  readonly agent: string;
  readonly handoff: { readonly from: string; readonly to: string } | null;
  /** Present on a native handoff: the new agent's instructions and offered tools. */
  readonly instructions?: string;
  readonly tools?: readonly ToolSpec[];
  readonly turn: number;
  readonly done: boolean;
  readonly end_reason: EndReason | null;
  /** Present once the episode is done: its reward and verdict. */
  readonly result?: EpisodeResult;
}

/** A finished episode: the reward, the scorer's verdict and where its snapshot is. */
export interface EpisodeResult extends EpisodeReward {
  readonly episode_id: string;
  readonly pack: string;
  readonly task_id: string;
  readonly harness: string;
  readonly end_reason: EndReason;
  /** Set when the episode was cut off rather than ended by the agent or the caller. */
  readonly truncated: Truncation | null;
  readonly turns: number;
  /** `<pack>/<episode_id>`: the snapshot's key prefix under the snapshot root. */
  readonly snapshot: string;
  readonly verdict: ConversationVerdict;
}

/** What an action itself answers, before the step adds the agent, the turn and the end. */
type ActionOutcome = Pick<StepResult, 'tool_name' | 'output' | 'handoff'>;

/** Milliseconds of media time an utterance takes: 400 ms a word (150 words a minute), at least 800. */
function utteranceMs(text: string): number {
  return Math.max(800, text.split(/\s+/).filter(Boolean).length * 400);
}

/**
 * One text episode (architecture.md §18): a conversation through the one engine, played in text. The
 * policy acts with tool calls; `say_to_caller` is answered by the caller's mind and recorded as
 * speech (never as a tool), every other name goes to `Conversation.dispatch` exactly as a voice
 * call's would, so ownership, edges and session tools behave the same. The episode keeps its own
 * media clock (utterances take their spoken length), ends on end_call, a human transfer, the
 * caller hanging up or the turn cap, and then writes a snapshot like any other call and scores it
 * with the scorer. Actions on one episode run one at a time, in arrival order.
 */
export class TextEpisode {
  /** The episode's media clock: it moves only as actions and utterances take time. */
  private readonly clock = new ManualClock();
  private turns = 0;
  private utterances = 0;
  private ending: { reason: EndReason; truncated: Truncation | null; detail: string | null } | null = null;
  /**
   * The agent's one last action, as on a voice call: after a human transfer it may say the script
   * the transfer returned; after the caller's closing line (the caller's hang-up grace,
   * MIVAS_CALLER_HANGUP_GRACE_S) it may also make one tool call, such as the transfer it announced.
   */
  private closing: { readonly reason: 'human_transfer' | 'caller_hangup'; readonly tools: boolean } | null = null;
  private finished: Promise<EpisodeResult> | null = null;
  /** The scored result (or why freezing failed), once frozen. */
  private frozen: { readonly result: EpisodeResult } | { readonly error: unknown } | null = null;
  /** The last queued action while one runs or waits; null when the episode is idle. */
  private tail: Promise<unknown> | null = null;
  private usage: Usage = emptyUsage();
  private readonly startedAtEpochMs: number;
  private readonly run: ConversationRun;
  private readonly conversation: Conversation;

  private readonly spec: EpisodeSpec;
  private readonly duplex: TextDuplex;

  private constructor(spec: EpisodeSpec) {
    this.spec = spec;
    this.duplex = new TextDuplex(spec.task);
    this.startedAtEpochMs = spec.epochMs();
    this.run = new ConversationRun({ pack: spec.pack, id: spec.id, databases: spec.databases, clock: this.clock, harness: this.harness, taskId: spec.task.task_id, runId: spec.runId ?? null, inMemory: true });
    this.conversation = this.run.start();
  }

  /**
   * Opens the episode on a fresh database (CallIdUsedError when the id has one), says the pack's
   * greeting for the agent and asks the caller for its opening line. Returns the episode and
   * that line (null when the caller said nothing).
   */
  static async start(spec: EpisodeSpec): Promise<{ episode: TextEpisode; callerSaid: string | null }> {
    if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) throw new EpisodeError('EPISODE_INVALID', `max_turns must be a positive integer (got ${spec.maxTurns})`);
    const episode = new TextEpisode(spec);
    episode.speak('agent', greetingOf(spec.pack));
    const callerSaid = await episode.hear(() => spec.caller.open());
    if (episode.ending) await episode.finish();
    return { episode, callerSaid };
  }

  get id(): string {
    return this.spec.id;
  }

  get harness(): string {
    return `text/${this.spec.policy}`;
  }

  get pack(): Pack {
    return this.spec.pack;
  }

  get task(): Task {
    return this.spec.task;
  }

  isDone(): boolean {
    return this.ending !== null;
  }

  /** True while an action runs or waits its turn (an llm caller's reply, an action queued behind it). */
  busy(): boolean {
    return this.tail !== null;
  }

  /** The finished result, once the episode is done and scored. */
  result(): Promise<EpisodeResult> | null {
    return this.finished;
  }

  view(): EpisodeView {
    const agent = this.conversation.activeAgent();
    return {
      episode_id: this.spec.id,
      pack: this.spec.pack.id,
      task_id: this.spec.task.task_id,
      agent,
      handoff_mode: this.spec.handoffMode,
      instructions: episodeInstructions(this.spec.pack, agent, this.spec.handoffMode),
      tools: offeredTools(this.spec.pack, agent, this.spec.handoffMode),
      turn: this.turns,
      max_turns: this.spec.maxTurns,
      done: this.ending !== null,
      end_reason: this.ending?.reason ?? null,
    };
  }

  /** Adds the policy's token usage to the snapshot's (a model policy reports it as it goes). */
  addUsage(usage: Partial<Usage>): void {
    const next = { ...this.usage };
    for (const key of Object.keys(next) as TokenClass[]) next[key] += Math.max(0, Math.round(usage[key] ?? 0));
    this.usage = next;
  }

  /** Runs one policy action; once it ends the episode, the result carries the reward. EPISODE_ENDED after the end. */
  step(action: EpisodeAction): Promise<StepResult> {
    return this.exclusive(() => this.act(action));
  }

  /** One action: synchronous unless the caller's mind has to be waited for (an llm caller's reply). */
  private act(action: EpisodeAction): StepResult | Promise<StepResult> {
    if (this.ending) throw new EpisodeError('EPISODE_ENDED', `episode ${this.spec.id} has ended (${this.ending.reason}); it takes no more actions`);
    this.turns++;
    const before = this.conversation.activeAgent();
    if (this.closing) return this.acted(before, this.close(action, this.closing));
    if (action.name !== SAY_TO_CALLER) return this.acted(before, this.dispatch(action));
    const said = this.say(action);
    return said instanceof Promise ? said.then((outcome) => this.acted(before, outcome)) : this.acted(before, said);
  }

  /** The step's result after an action: the turn cap, a native handoff's new setup, and the reward once it ended. */
  private acted(before: string, outcome: ActionOutcome): StepResult {
    if (!this.endReason() && this.turns >= this.spec.maxTurns) this.end('max_duration', 'turn_cap');
    const agent = this.conversation.activeAgent();
    const native = this.spec.handoffMode === 'native' && agent !== before ? { instructions: episodeInstructions(this.spec.pack, agent, 'native'), tools: offeredTools(this.spec.pack, agent, 'native') } : {};
    const reason = this.endReason();
    const result = reason ? this.finishNow() : undefined;
    return { ...outcome, agent, ...native, turn: this.turns, done: reason !== null, end_reason: reason, ...(result ? { result } : {}) };
  }

  /**
   * Ends the episode if it is still running (recorded as `max_duration`, truncated by `cause`)
   * and returns its scored result; idempotent, waits for an action in flight.
   */
  finish(cause: Truncation = 'policy_stopped'): Promise<EpisodeResult> {
    if (this.finished) return this.finished;
    return this.exclusive(() => {
      if (this.closing) this.end(this.closing.reason);
      if (!this.ending) this.end('max_duration', cause);
      return this.finishNow();
    });
  }

  /** Ends a running episode because its policy or mivas failed (the scorer voids both), then scores it. */
  abort(reason: 'provider_error' | 'internal_error', detail: string): Promise<EpisodeResult> {
    if (this.finished) return this.finished;
    return this.exclusive(() => {
      this.end(reason, null, detail.slice(0, 2000));
      return this.finishNow();
    });
  }

  /**
   * Records agent speech the caller does not answer: text a model wrote beside its tool calls, or
   * the trailing message it ended its turn with (NeMo Gym verify). Not a turn.
   */
  speakWithoutReply(text: string): void {
    if (this.ending || !text.trim()) return;
    this.speak('agent', text.trim());
    // The caller hears it too: its next reply answers what was said, not only the last say_to_caller.
    this.spec.caller.observe?.(text.trim());
  }

  /** A say_to_caller: spoken, then answered by the caller's mind (at once when it has the answer without waiting). */
  private say(action: EpisodeAction): ActionOutcome | Promise<ActionOutcome> {
    const text = sayText(action);
    if (!text) return { tool_name: SAY_TO_CALLER, output: { ...envelopeRefusal('INVALID_ARGUMENTS', { invalid_fields: ['text'] }) }, handoff: null };
    const cut = this.duplex.take(text);
    if (cut) return this.cutIn(text, cut).then((callerSaid) => this.answered(callerSaid));
    this.speak('agent', text);
    const mind = this.spec.caller;
    if (mind.replyNow) return this.answered(this.heardNow(() => (mind.replyNow as (agentText: string) => CallerTurn)(text)));
    return this.hear(() => mind.reply(text)).then((callerSaid) => this.answered(callerSaid));
  }

  private answered(callerSaid: string | null): ActionOutcome {
    const hungUp = this.endReason() === 'caller_hangup' || this.closingReason() === 'caller_hangup';
    return { tool_name: SAY_TO_CALLER, output: { ok: true, data: { caller_said: callerSaid, caller_hung_up: hungUp } }, handoff: null };
  }

  private dispatch(action: EpisodeAction): ActionOutcome {
    this.clock.advance(300);
    const { result: dispatched, next } = this.run.dispatch({ toolCallId: action.callId ?? null, name: action.name, rawArguments: action.arguments });
    this.clock.advance(700);
    // end_call has no farewell turn in text (nothing is spoken after it); a transfer leaves the agent one last action.
    if (next.kind === 'farewell' && next.reason === 'agent_end_call') this.end('agent_end_call');
    if (next.kind === 'farewell' && next.reason === 'human_transfer') this.closing = { reason: 'human_transfer', tools: false };
    const { effect } = dispatched;
    if (effect.kind !== 'handoff') return { tool_name: action.name, output: dispatched.output, handoff: null };
    // Soft handoffs keep the tool list: the result carries the new desk's instructions instead.
    const output = this.spec.handoffMode === 'soft' ? { ...dispatched.output, instructions: episodeInstructions(this.spec.pack, effect.to, 'soft') } : dispatched.output;
    return { tool_name: action.name, output, handoff: { from: effect.from, to: effect.to } };
  }

  /**
   * The action after a human transfer: a say_to_caller is spoken (the handover script; the caller
   * is not asked), anything else is not run; either way the call ends, as a voice call does once
   * the model's last response after the transfer has played.
   */
  private close(action: EpisodeAction, closing: { readonly reason: 'human_transfer' | 'caller_hangup'; readonly tools: boolean }): ActionOutcome {
    this.closing = null;
    if (action.name !== SAY_TO_CALLER && closing.tools) {
      const outcome = this.dispatch(action);
      // A session tool in the grace came before the hang-up: the run keeps it as the ending.
      this.end(closing.reason);
      this.closing = null;
      return outcome;
    }
    const text = action.name === SAY_TO_CALLER ? sayText(action) : '';
    if (text) this.speak('agent', text);
    this.end(closing.reason);
    const output = text ? { ok: true, data: { caller_said: null, caller_hung_up: closing.reason === 'caller_hangup' } } : envelopeRefusal('CALL_ENDED');
    return { tool_name: action.name, output: { ...output }, handoff: null };
  }

  /** Asks the caller's mind for a turn and records it; a hang-up ends the episode, a failing mind ends it as internal_error. */
  private async hear(turn: () => Promise<CallerTurn>): Promise<string | null> {
    let said: CallerTurn;
    try {
      said = await turn();
    } catch (err) {
      return this.callerFailed(err);
    }
    return this.heard(said);
  }

  /** `hear` for a mind that answers without waiting. */
  private heardNow(turn: () => CallerTurn): string | null {
    let said: CallerTurn;
    try {
      said = turn();
    } catch (err) {
      return this.callerFailed(err);
    }
    return this.heard(said);
  }

  private callerFailed(err: unknown): null {
    this.end('internal_error', null, `the caller failed: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }

  /** Records a caller turn; returns what it said. */
  private heard(said: CallerTurn): string | null {
    const text = said.text?.trim() ? said.text.trim() : null;
    if (text) this.speak('caller', text);
    // A mind whose endpoint failed hangs up to end its side; the episode records why (VOID infra_error).
    if (said.hangUp === 'mind_error' || said.hangUp === 'cache_miss') this.end('internal_error', null, `the caller's mind ended with ${said.hangUp}`);
    // After its closing line the caller waits out its hang-up grace: the agent has one action left.
    else if (said.hangUp === 'closing_line') this.closing = { reason: 'caller_hangup', tools: true };
    else if (said.hangUp) this.end('caller_hangup');
    return text;
  }

  /**
   * A duplex act on an agent utterance: the caller's line starts inside it, where the trigger's
   * words end, as a voice caller's would (docs/caller.md). A correction or barge-in is the caller's
   * answer (the policy reads it in `caller_said`, its turn still in progress); after a back-channel
   * the caller's mind answers the utterance as usual.
   */
  private async cutIn(text: string, cut: TextCutIn): Promise<string | null> {
    const agentId = `a${++this.utterances}`;
    const callerId = `c${++this.utterances}`;
    const start = this.clock.nowMs() + 300;
    const end = start + utteranceMs(text);
    const callerStart = Math.min(end, start + utteranceMs(text.split(/\s+/).slice(0, cut.afterWords).join(' ')) + cut.act.cutInAfterMs);
    const callerEnd = callerStart + utteranceMs(cut.act.line);
    this.run.timeline.add({ type: 'speech.started', side: 'agent', utterance_id: agentId }, start);
    this.run.timeline.add({ type: 'transcript', side: 'agent', text, utterance_id: agentId }, start);
    this.run.timeline.add({ type: 'speech.started', side: 'caller', utterance_id: callerId }, callerStart);
    this.run.timeline.add({ type: 'transcript', side: 'caller', text: cut.act.line, utterance_id: callerId }, callerStart);
    const ends = [{ side: 'agent' as const, id: agentId, at: end }, { side: 'caller' as const, id: callerId, at: callerEnd }].sort((a, b) => a.at - b.at);
    for (const e of ends) this.run.timeline.add({ type: 'speech.completed', side: e.side, utterance_id: e.id, interrupted: false }, e.at);
    this.clock.advance(Math.max(end, callerEnd) - this.clock.nowMs());
    const mind = this.spec.caller;
    mind.saidOver?.(cut.act.line);
    if (!takesFloor(cut.act.kind)) return this.hear(() => mind.reply(text));
    mind.observe?.(text);
    return cut.act.line;
  }

  private speak(side: 'caller' | 'agent', text: string): void {
    const id = `${side === 'agent' ? 'a' : 'c'}${++this.utterances}`;
    const start = this.clock.nowMs() + 300;
    const end = start + utteranceMs(text);
    this.run.utterance({ side, id, text, startMs: start, transcriptMs: start, endMs: end });
    this.clock.advance(end - this.clock.nowMs());
  }

  /** The pending last action's reason (a method, like endReason, so narrowing never hides a change a dispatch made). */
  private closingReason(): 'human_transfer' | 'caller_hangup' | null {
    return this.closing?.reason ?? null;
  }

  /** The end reason once the episode is ending (a method, so narrowing never hides a change made by an await). */
  private endReason(): EndReason | null {
    return this.ending?.reason ?? null;
  }

  /** Asks the run to end; the reason that stands is the first ending (a cut-off is truncated only when its own reason stands). */
  private end(requested: EndReason, truncated: Truncation | null = null, detail: string | null = null): void {
    if (this.ending) return;
    const reason = this.run.end(requested);
    this.ending = reason === requested ? { reason, truncated, detail } : { reason, truncated: null, detail: null };
  }

  /** Closes the conversation, writes the snapshot and scores it (once; synchronous). Runs inside `exclusive`. */
  private finishNow(): EpisodeResult {
    if (!this.frozen) {
      try {
        this.frozen = { result: this.freeze() };
      } catch (error) {
        this.frozen = { error };
      }
      this.finished = 'result' in this.frozen ? Promise.resolve(this.frozen.result) : Promise.reject(this.frozen.error);
      // Whoever asks for the result still sees a failure; unasked, it is not an unhandled rejection.
      this.finished.catch(() => undefined);
    }
    if ('error' in this.frozen) throw this.frozen.error;
    return this.frozen.result;
  }

  private freeze(): EpisodeResult {
    const { spec } = this;
    const ending = this.ending ?? { reason: 'max_duration' as const, truncated: 'policy_stopped' as const, detail: null };
    const endMs = this.clock.nowMs() + 500;
    this.run.recordEnd(1000, endMs);
    const closed = this.run.close();
    const events = this.run.timeline.events();
    const { parts, summary } = textSnapshotParts(
      {
        pack: spec.pack,
        callId: spec.id,
        runId: spec.runId ?? null,
        taskId: spec.task.task_id,
        harness: this.harness,
        model: spec.model ?? null,
        startedAtEpochMs: this.startedAtEpochMs,
        endedAtEpochMs: Math.max(this.startedAtEpochMs, spec.epochMs()),
        endMs,
        endReason: ending.reason,
        endDetail: ending.detail,
        events,
        timelineJson: this.run.timeline.json(),
        usage: this.usage,
        toolsExpected: spec.task.exp_tool_calls.length > 0,
      },
      closed.final,
      spec.templateDump,
      closed.db,
    );
    spec.store?.(spec.pack.id, spec.id, parts);
    const verdict = scoreFrozen(spec.pack, spec.id, { summary, events, final: closed.final });
    return {
      ...rewardOf(verdict),
      episode_id: spec.id,
      pack: spec.pack.id,
      task_id: spec.task.task_id,
      harness: this.harness,
      end_reason: ending.reason,
      truncated: ending.truncated,
      turns: this.turns,
      snapshot: `${spec.pack.id}/${spec.id}`,
      verdict,
    };
  }

  /**
   * Runs actions one at a time, in arrival order. One that arrives while none runs starts at once,
   * so an action that needs no waiting (every action with the scripted caller) is done by the
   * time `step` returns: its latency is its own work, not turns of the event loop.
   */
  private exclusive<T>(work: () => T | Promise<T>): Promise<T> {
    let run: Promise<T>;
    if (this.tail) run = this.tail.then(work);
    else {
      try {
        const out = work();
        if (!(out instanceof Promise)) return Promise.resolve(out);
        run = out;
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tail = tail;
    void tail.then(() => {
      if (this.tail === tail) this.tail = null;
    });
    return run;
  }
}

/** The words of a say_to_caller action, trimmed; empty when it carries none. */
function sayText(action: EpisodeAction): string {
  return isPlainObject(action.arguments) && typeof action.arguments.text === 'string' ? action.arguments.text.trim() : '';
}
