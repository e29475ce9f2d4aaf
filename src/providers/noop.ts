import type { SpeechSynth } from '../audio/index.ts';
import type { Clock, Timer } from '../core/index.ts';
import type { Pack } from '../packs/index.ts';
import { LocalModelSession, type ResponsePart } from './local-session.ts';
import { harnessOf } from './harness-kit.ts';
import type { HarnessFactory } from './model-session.ts';
import { defaultGreeting } from './scripted.ts';

const GOODBYE_LINE = 'Sorry, I cannot help with that today. Goodbye.';

/**
 * The `noop` harness: greets, waits for the caller's first utterance (at most `waitMs`), ends the
 * call and says goodbye. It does no work, so it must fail every task: a floor for the scorer.
 */
class NoopSession extends LocalModelSession {
  readonly provider = 'noop';
  private greeted = false;
  private ending = false;
  private farewellSaid = false;
  private waitTimer: Timer | null = null;

  private readonly pack: Pack;
  private readonly clock: Clock;
  private readonly waitMs: number;

  constructor(
    synth: SpeechSynth,
    pack: Pack,
    clock: Clock,
    waitMs: number,
  ) {
    super(synth);
    this.pack = pack;
    this.clock = clock;
    this.waitMs = waitMs;
  }

  protected nextResponse(): ResponsePart[] | null {
    if (!this.greeted) {
      this.greeted = true;
      this.waitTimer = this.clock.setTimer(this.waitMs, () => this.hangUp());
      return [{ say: defaultGreeting(this.pack) }];
    }
    if (this.ending && !this.farewellSaid) {
      this.farewellSaid = true;
      return [{ say: GOODBYE_LINE }];
    }
    return null;
  }

  protected onCallerTurn(): void {
    if (this.greeted) this.hangUp();
  }

  protected onToolOutput(): void {
    /* the only call is end_call */
  }

  override async close(): Promise<void> {
    this.waitTimer?.cancel();
    await super.close();
  }

  private hangUp(): void {
    if (this.ending) return;
    this.ending = true;
    this.waitTimer?.cancel();
    this.startResponse([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  }
}

/** Factory of the noop harness. */
export function noopHarness(synth: SpeechSynth, clock: Clock, waitMs: number): HarnessFactory {
  return harnessOf('noop', (call) => new NoopSession(synth, call.pack, clock, waitMs));
}
