import type { SpeechSynth } from '../audio/index.ts';
import type { Pack, Task } from '../packs/index.ts';
import { CarryForward, handoffArguments, planRoute, type RouteStep } from '../conversation/index.ts';
import { LocalModelSession, type ResponsePart } from './local-session.ts';
import type { CallInfo, HarnessFactory } from './model-session.ts';

/** The opening line when the blueprint has no greeting. */
export function defaultGreeting(pack: Pack): string {
  return pack.blueprint.greeting ?? `Thanks for calling ${pack.blueprint.company}. How can I help?`;
}

const BRIDGE_LINE = 'Sure, let me take care of that.';
const FAREWELL_LINE = 'Thank you for calling. Goodbye.';

/**
 * The `scripted` harness: replays a task's reference route live through the whole stack. It
 * greets, waits for the caller's first utterance, then makes the task's hops and expected calls
 * one response at a time (arguments resolved as replay does, carried fields from real outputs),
 * then calls end_call and says goodbye.
 */
class ScriptedSession extends LocalModelSession {
  readonly provider = 'scripted';
  private readonly steps: RouteStep[];
  private readonly carry = new CarryForward();
  private greeted = false;
  private routeStarted = false;
  private next = 0;
  private endCalled = false;
  private farewellSaid = false;

  private readonly pack: Pack;
  private readonly task: Task;

  constructor(
    synth: SpeechSynth,
    pack: Pack,
    task: Task,
  ) {
    super(synth);
    this.pack = pack;
    this.task = task;
    this.steps = planRoute(pack, task).steps;
  }

  protected nextResponse(): ResponsePart[] | null {
    if (!this.greeted) {
      this.greeted = true;
      return [{ say: defaultGreeting(this.pack) }];
    }
    if (!this.routeStarted) return null;
    if (this.endCalled) {
      if (this.farewellSaid) return null;
      this.farewellSaid = true;
      return [{ say: FAREWELL_LINE }];
    }
    return [this.nextCall()];
  }

  protected onCallerTurn(): void {
    if (!this.greeted || this.routeStarted) return;
    this.routeStarted = true;
    this.startResponse([{ say: BRIDGE_LINE }, this.nextCall()]);
  }

  protected onToolOutput(_callId: string, output: string): void {
    const step = this.steps[this.next - 1];
    if (step?.kind !== 'call') return;
    try {
      this.carry.record(this.pack, { name: step.call.name, output: JSON.parse(output) as { ok: boolean; data?: unknown } });
    } catch {
      /* an unparseable output carries nothing forward */
    }
  }

  private nextCall(): ResponsePart {
    const step = this.steps[this.next++];
    if (!step) {
      this.endCalled = true;
      return { call: { name: 'end_call', args: { reason: 'caller_done' } } };
    }
    if (step.kind === 'call') return { call: { name: step.call.name, args: this.carry.argumentsFor(this.pack, step.call) } };
    const following = this.steps.slice(this.next).find((s) => s.kind === 'hop');
    return { call: { name: step.tool, args: handoffArguments(this.pack, step.tool, following?.kind === 'hop' ? following.to : undefined) } };
  }
}

/** Factory of the scripted harness; refuses calls without a known task id before upgrade. */
export function scriptedHarness(synth: SpeechSynth): HarnessFactory {
  return {
    name: 'scripted',
    refuse(call: CallInfo) {
      if (!call.taskId) return 'the scripted harness needs the X-Mivas-Task-Id header';
      if (!call.pack.tasks.has(call.taskId)) return `task ${call.taskId} is not in pack ${call.pack.id}`;
      return null;
    },
    create(call: CallInfo) {
      const task = call.taskId ? call.pack.tasks.get(call.taskId) : undefined;
      if (!task) throw new Error(`scripted harness without a task (call ${call.callId})`);
      return new ScriptedSession(synth, call.pack, task);
    },
  };
}
