import type { SpeechSynth } from '../audio/index.ts';
import type { DuplexTrigger, Pack, Task } from '../packs/index.ts';
import { CarryForward, handoffArguments, planRoute, type RouteStep } from '../conversation/index.ts';
import { LocalModelSession, type ResponsePart } from './local-session.ts';
import type { CallInfo, HarnessFactory } from './model-session.ts';

/** The opening line when the blueprint has no greeting. */
export function defaultGreeting(pack: Pack): string {
  return pack.blueprint.greeting ?? `Thanks for calling ${pack.blueprint.company}. How can I help?`;
}

const BRIDGE_LINE = 'Sure, let me take care of that.';

/**
 * How the scripted agent meets a task's correction (issue 33; tests tell agents apart with it):
 * before the call that writes a corrected value it reads the value back as the caller first gave
 * it and waits for the caller; `yieldsToCaller` makes caller speech cut its audio off (barge-in),
 * and `writes` says whether the call then carries the corrected value or keeps the stale one.
 */
export interface ScriptedDuplex {
  readonly yieldsToCaller: boolean;
  readonly writes: 'corrected' | 'stale';
}

type Correction = DuplexTrigger & { readonly stale_value: string; readonly corrected_value: string };

/** The task's correction triggers, in task order. */
function correctionsOf(task: Task): Correction[] {
  return task.scripted_responses.flatMap((r) => (r.duplex?.stale_value !== undefined && r.duplex.corrected_value !== undefined ? [r.duplex as Correction] : []));
}

/** Whether a value, or any value inside it, is the given one (a number matches its digits). */
function carries(value: unknown, wanted: string): boolean {
  if (typeof value === 'string' || typeof value === 'number') return String(value) === wanted;
  if (Array.isArray(value)) return value.some((v) => carries(v, wanted));
  return value !== null && typeof value === 'object' && Object.values(value).some((v) => carries(v, wanted));
}

/** The arguments with every corrected value put back to the stale one (a number stays a number). */
function withStale(args: Record<string, unknown>, c: Correction): Record<string, unknown> {
  const swap = (v: unknown): unknown => {
    if (typeof v === 'number' && String(v) === c.corrected_value) return Number(c.stale_value);
    if (v === c.corrected_value) return c.stale_value;
    if (Array.isArray(v)) return v.map(swap);
    return v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)])) : v;
  };
  return swap(args) as Record<string, unknown>;
}
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
  /** Corrections still to read back before their write, and whether a read-back waits for the caller. */
  private readonly corrections: Correction[];
  private awaitingCaller = false;

  private readonly pack: Pack;
  private readonly task: Task;
  private readonly duplex: ScriptedDuplex | null;

  constructor(synth: SpeechSynth, pack: Pack, task: Task, duplex: ScriptedDuplex | null = null) {
    super(synth, duplex?.yieldsToCaller ?? false);
    this.pack = pack;
    this.task = task;
    this.duplex = duplex;
    this.steps = planRoute(pack, task).steps;
    this.corrections = duplex ? correctionsOf(task) : [];
  }

  protected nextResponse(): ResponsePart[] | null {
    if (!this.greeted) {
      this.greeted = true;
      return [{ say: defaultGreeting(this.pack) }];
    }
    if (!this.routeStarted || this.awaitingCaller) return null;
    if (this.endCalled) {
      if (this.farewellSaid) return null;
      this.farewellSaid = true;
      return [{ say: FAREWELL_LINE }];
    }
    return [this.readBack() ?? this.nextCall()];
  }

  protected onCallerTurn(): void {
    if (this.awaitingCaller) {
      this.awaitingCaller = false;
      this.startResponse([this.nextCall()]);
      return;
    }
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
    if (step.kind === 'call') return { call: { name: step.call.name, args: this.argumentsOf(step) } };
    const following = this.steps.slice(this.next).find((s) => s.kind === 'hop');
    return { call: { name: step.tool, args: handoffArguments(this.pack, step.tool, following?.kind === 'hop' ? following.to : undefined) } };
  }

  private argumentsOf(step: Extract<RouteStep, { kind: 'call' }>): Record<string, unknown> {
    const args = this.carry.argumentsFor(this.pack, step.call);
    if (this.duplex?.writes !== 'stale') return args;
    return correctionsOf(this.task).reduce(withStale, args);
  }

  /** Before the call that writes a corrected value: the value read back as the caller first gave it, a long turn, then a wait for the caller. */
  private readBack(): ResponsePart | null {
    const step = this.steps[this.next];
    if (step?.kind !== 'call') return null;
    const args = this.carry.argumentsFor(this.pack, step.call);
    const due = this.corrections.findIndex((c) => carries(args, c.corrected_value));
    const correction = this.corrections.splice(due, due < 0 ? 0 : 1)[0];
    if (!correction) return null;
    this.awaitingCaller = true;
    return { say: `Let me read that back before I save it. I have ${correction.agent_says[0] ?? correction.stale_value}. Everything else is as you gave it, so I will go ahead and save it now.` };
  }
}

/** Factory of the scripted harness (with `duplex`, the behaviour of a correction task's agent); refuses calls without a known task id before upgrade. */
export function scriptedHarness(synth: SpeechSynth, duplex: ScriptedDuplex | null = null): HarnessFactory {
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
      return new ScriptedSession(synth, call.pack, task, duplex);
    },
  };
}
