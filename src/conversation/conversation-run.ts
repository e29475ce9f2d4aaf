import type { Clock } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import { isInfraEndReason, Timeline, type EndReason } from '../snapshot/index.ts';
import type { CallDatabases } from '../store/index.ts';
import type { AgentSetup } from './agent-view.ts';
import { Conversation, ConversationClosedError, type ClosedConversation, type DispatchRequest, type DispatchResult } from './conversation.ts';

/** The endings the agent starts with a session tool (end_call, the pack's human transfer). */
export type AgentEnding = 'agent_end_call' | 'human_transfer';

/** How a conversation run is opened: the conversation's spec, its clock and what `call.started` names. */
export interface RunSpec {
  readonly pack: Pack;
  readonly id: string;
  readonly databases: CallDatabases;
  /** The context's clock: the media timeline counts from its time when the run is made. */
  readonly clock: Clock;
  readonly harness: string;
  readonly taskId: string | null;
  readonly runId: string | null;
  /** Hold the database in memory (text episodes). */
  readonly inMemory?: boolean;
  /** Clock time the media timeline counts from (default: the clock's time when the run is made). */
  readonly originMs?: number;
  /** Hears a timeline event the snapshot schema refused (a live call ends internal_error); without it, add throws. */
  readonly onInvalidEvent?: (reason: string) => void;
}

/** What the context does after a dispatch (architecture.md §20). */
export type NextStep =
  | { readonly kind: 'continue' }
  /** Give the harness the new agent's instructions and tools. */
  | { readonly kind: 'handoff'; readonly to: string; readonly setup: AgentSetup }
  /** The first ending: the agent's farewell, then the close with this reason. */
  | { readonly kind: 'farewell'; readonly reason: AgentEnding }
  /** A session tool after the ending began: nothing new starts; the ending that stands is `reason`. */
  | { readonly kind: 'ending'; readonly reason: EndReason };

/** One utterance on the media clock: started at `startMs`, its words at `transcriptMs`, completed at `endMs`. */
export interface Utterance {
  readonly side: 'caller' | 'agent';
  readonly id: string;
  readonly text: string;
  readonly startMs: number;
  readonly transcriptMs: number;
  readonly endMs: number;
}

/**
 * One conversation as a context runs it (a live call, the HTTP tool route into it, a text episode,
 * an offline replay; architecture.md §20): the conversation and the context's clock, what follows
 * each dispatch, the call-boundary and speech events on the timeline, and which ending stands. The
 * rule is the same in every context: the first ending wins. A session tool starts the agent's ending (its farewell
 * follows); a later session tool, a caller hang-up, a watchdog or the turn cap leaves that reason
 * standing. Only a fault (internal_error, provider_error, the infra end reasons) overrides it,
 * because it says the evidence itself cannot be trusted.
 */
export class ConversationRun {
  readonly timeline: Timeline;
  private conversation: Conversation | null = null;
  private agentEnding: AgentEnding | null = null;
  private ended: EndReason | null = null;
  private readonly originMs: number;

  private readonly spec: RunSpec;

  constructor(spec: RunSpec) {
    this.spec = spec;
    this.originMs = spec.originMs ?? spec.clock.nowMs();
    this.timeline = new Timeline(() => this.mediaMs(), spec.onInvalidEvent);
  }

  /** Milliseconds since the run was made: the media clock of the timeline (and a live call's WAV). */
  mediaMs(): number {
    return this.spec.clock.nowMs() - this.originMs;
  }

  /** Records `call.started`, then opens the conversation on a fresh database (CallIdUsedError when the id has one). */
  start(): Conversation {
    const { spec } = this;
    this.timeline.add({ type: 'call.started', call_id: spec.id, pack: spec.pack.id, harness: spec.harness, task_id: spec.taskId, run_id: spec.runId });
    this.conversation = Conversation.open({ pack: spec.pack, id: spec.id, databases: spec.databases, timeline: this.timeline, nowMs: () => spec.clock.nowMs(), inMemory: spec.inMemory });
    return this.conversation;
  }

  /** The open conversation, or null before start() or after close(). */
  conversationOrNull(): Conversation | null {
    return this.conversation && !this.conversation.isClosed() ? this.conversation : null;
  }

  /** Runs one call through the conversation and says what the context does next. */
  dispatch(request: DispatchRequest): { readonly result: DispatchResult; readonly next: NextStep } {
    const conversation = this.open();
    const result = conversation.dispatch(request);
    const effect = result.effect;
    if (effect.kind === 'handoff') return { result, next: { kind: 'handoff', to: effect.to, setup: conversation.agentSetup(effect.to) } };
    if (effect.kind === 'none') return { result, next: { kind: 'continue' } };
    const reason: AgentEnding = effect.kind === 'human_transfer' ? 'human_transfer' : 'agent_end_call';
    const standing = this.pendingEnding();
    if (standing) return { result, next: { kind: 'ending', reason: standing } };
    this.agentEnding = reason;
    return { result, next: { kind: 'farewell', reason } };
  }

  /** The ending under way: the agent's (its farewell is playing) or the final one; null while the conversation goes on. */
  pendingEnding(): EndReason | null {
    return this.ended ?? this.agentEnding;
  }

  /**
   * Something asks the conversation to end (the farewell played, the caller hung up, a watchdog,
   * a fault, the turn cap). Returns the reason that stands, fixed from then on: a fault always,
   * else the first ending (an agent's ending under way wins over anything later).
   */
  end(requested: EndReason): EndReason {
    if (isFault(requested)) this.ended = requested;
    this.ended ??= this.agentEnding ?? requested;
    return this.ended;
  }

  /** Records one utterance (speech.started, transcript, speech.completed) at the offsets it names. */
  utterance(u: Utterance): void {
    recordUtterance(this.timeline, u);
  }

  /** A speech segment begins (a live caller's CHIRP frame, or an utterance), now or at `atMs`. */
  speechStarted(side: 'caller' | 'agent', id: string, atMs?: number): void {
    this.timeline.add({ type: 'speech.started', side, utterance_id: id }, atMs);
  }

  /** A speech segment ends, whole (an interrupted agent utterance is closed by the audio path that cut it). */
  speechCompleted(side: 'caller' | 'agent', id: string, atMs?: number): void {
    this.timeline.add({ type: 'speech.completed', side, utterance_id: id, interrupted: false }, atMs);
  }

  /** Freezes the conversation: its final rows and database bytes (the file is deleted); throws when the dump fails. */
  close(): ClosedConversation {
    const closed = this.open().close();
    this.conversation = null;
    return closed;
  }

  /**
   * Records `call.ended` with the reason that stands (end() decides it), at `atMs` or now. `recorded`
   * writes a given reason instead (offline fixtures that state how their call ended).
   */
  recordEnd(closeCode: number | null, atMs?: number, recorded?: EndReason): EndReason {
    const reason = recorded ?? this.end(this.ended ?? 'agent_end_call');
    this.timeline.add({ type: 'call.ended', end_reason: reason, close_code: closeCode }, atMs);
    return reason;
  }

  private open(): Conversation {
    if (!this.conversation) throw new ConversationClosedError(`conversation ${this.spec.id} is not open`);
    return this.conversation;
  }
}

/** Records one whole utterance on a timeline: speech.started, its transcript, speech.completed. */
export function recordUtterance(timeline: Timeline, u: Utterance): void {
  timeline.add({ type: 'speech.started', side: u.side, utterance_id: u.id }, u.startMs);
  timeline.add({ type: 'transcript', side: u.side, text: u.text, utterance_id: u.id }, u.transcriptMs);
  timeline.add({ type: 'speech.completed', side: u.side, utterance_id: u.id, interrupted: false }, u.endMs);
}

/** End reasons that say the evidence cannot be trusted: they override an ending already under way. */
function isFault(reason: EndReason): boolean {
  return reason === 'provider_error' || isInfraEndReason(reason);
}
