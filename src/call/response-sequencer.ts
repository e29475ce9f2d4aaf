/** What a response request is for. */
export type ResponseReason = 'nudge' | 'tool_outputs' | 'farewell';

/** What the sequencer asks of its owner. */
export interface ResponseSequencerEffects {
  /** Send one response request now. */
  requestResponse(reason: ResponseReason): void;
  /** The farewell has been generated, or none is coming: the call may close once it has played. */
  farewellDone(): void;
}

/** Where the call's goodbye stands. */
type Farewell = 'none' | 'owed' | 'requested' | 'done';

/**
 * Decides when a call may ask the model for a response (wire.md §2.5–2.6, §6.24). It sees the
 * provider's response lifecycle and the driver's answered tool calls, and holds no socket or
 * session, so every rule is a plain state transition:
 * - tool outputs answered during a response wait for that response's end, and a batch of them
 *   gets one request;
 * - no request goes out while a response is open, or while one we asked for has not started;
 * - the greeting nudge is skipped while a response is open or awaited (it still retries requests
 *   that may have been dropped, so its own sends do not count as awaited);
 * - after a session tool the next request is the farewell, unless the response that carried the
 *   tool already spoke: then that audio is the goodbye and nothing more is requested. Once the
 *   farewell is done, no request of any kind goes out.
 */
export class ResponseSequencer {
  /** The provider has a response in progress (started, not yet done). */
  private open = false;
  /** A request for tool outputs or the farewell went out and its response has not started. */
  private awaited = false;
  /** Tool outputs were sent that still need a response request. */
  private outputsWaiting = false;
  /** The current response has produced agent audio. */
  private spoke = false;
  private farewell: Farewell = 'none';

  private readonly effects: ResponseSequencerEffects;

  constructor(effects: ResponseSequencerEffects) {
    this.effects = effects;
  }

  /** The provider started a response (ours or one its own turn detection made). */
  responseStarted(): void {
    this.open = true;
    this.awaited = false;
    this.spoke = false;
  }

  /** Agent audio of the current response reached the caller's queue. */
  agentAudio(): void {
    this.spoke = true;
  }

  /** The provider finished a response (completed, cancelled, failed or incomplete). */
  responseDone(): void {
    const spoke = this.spoke;
    this.open = false;
    this.awaited = false;
    this.spoke = false;
    if (this.farewell === 'owed' || this.farewell === 'requested') {
      // Audio in the response that carried the session tool, or in the one asked for after it, is the goodbye.
      if (spoke) return this.finishFarewell();
      if (this.farewell === 'requested' && !this.outputsWaiting) return this.finishFarewell();
      return this.release();
    }
    if (this.outputsWaiting) this.release();
  }

  /** A tool call was answered; `endsCall` for a session tool (end_call, the human transfer). */
  toolAnswered(endsCall: boolean): void {
    if (endsCall && this.farewell === 'none') this.farewell = 'owed';
    this.outputsWaiting = true;
    // A call reported outside any response has nothing to wait for.
    if (!this.open && !this.awaited) this.release();
  }

  /** True when a greeting nudge may go out: no response open or awaited, and the call is not ending. */
  mayNudge(): boolean {
    return !this.open && !this.awaited && this.farewell === 'none';
  }

  /** Sends the greeting nudge if it may go out; false when it was skipped. */
  nudge(): boolean {
    if (!this.mayNudge()) return false;
    this.effects.requestResponse('nudge');
    return true;
  }

  /** True while the provider has a response in progress (barge-in cancels it). */
  hasOpenResponse(): boolean {
    return this.open;
  }

  /** True once a session tool has been answered. */
  isEnding(): boolean {
    return this.farewell !== 'none';
  }

  private release(): void {
    this.outputsWaiting = false;
    if (this.farewell === 'done') return;
    this.awaited = true;
    if (this.farewell === 'owed') {
      this.farewell = 'requested';
      return this.effects.requestResponse('farewell');
    }
    this.effects.requestResponse('tool_outputs');
  }

  private finishFarewell(): void {
    this.farewell = 'done';
    this.outputsWaiting = false;
    this.effects.farewellDone();
  }
}
