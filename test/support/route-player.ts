import { CarryForward, handoffArguments, planRoute, type RouteStep } from '../../src/conversation/index.ts';
import type { Pack, Task } from '../../src/packs/index.ts';

/** One move of the model in a replayed route: a tool call (hop or expected call), or the goodbye with end_call. */
export type RouteMove = { readonly kind: 'call'; readonly name: string; readonly args: Record<string, unknown>; readonly hop: boolean } | { readonly kind: 'end' };

/**
 * Plays a task's reference route as a model would, for the stand-ins of the new harnesses (issue
 * 19 acceptance 4): the hops and expected calls in order, arguments resolved as the scripted
 * harness resolves them (carried fields from the real outputs it is given back), then end_call.
 * The same route the scripted harness replays, driven through a provider's wire instead.
 */
export class RoutePlayer {
  private readonly steps: RouteStep[];
  private readonly carry = new CarryForward();
  private next = 0;
  private last: Extract<RouteStep, { kind: 'call' }> | null = null;
  /** Every output the model was given back, in order (for seed assertions). */
  readonly outputs: { readonly name: string; readonly output: string }[] = [];

  private readonly pack: Pack;

  constructor(
    pack: Pack,
    task: Task,
  ) {
    this.pack = pack;
    const plan = planRoute(pack, task);
    if (plan.problems.length) throw new Error(`route of ${task.task_id}: ${plan.problems.join('; ')}`);
    this.steps = plan.steps;
  }

  /** The output of the last move, as the harness relayed it. */
  record(name: string, output: string): void {
    this.outputs.push({ name, output });
    if (this.last?.call.name !== name) return;
    try {
      this.carry.record(this.pack, { name, output: JSON.parse(output) as { ok: boolean; data?: unknown } });
    } catch {
      /* an unparseable output carries nothing */
    }
  }

  move(): RouteMove {
    const step = this.steps[this.next++];
    if (!step) return { kind: 'end' };
    if (step.kind === 'call') {
      this.last = step;
      return { kind: 'call', name: step.call.name, args: this.carry.argumentsFor(this.pack, step.call), hop: false };
    }
    this.last = null;
    const following = this.steps.slice(this.next).find((s) => s.kind === 'hop');
    return { kind: 'call', name: step.tool, args: handoffArguments(this.pack, step.tool, following?.kind === 'hop' ? following.to : undefined), hop: true };
  }
}

/** Three tasks of a pack that hand off at least once and make at least one call (originals, not variants). */
export function routeTasks(pack: Pack, count = 3): Task[] {
  return [...pack.tasks.values()].filter((t) => !t.variant_of && t.exp_handoff_path.length >= 1 && t.exp_tool_calls.length >= 1).slice(0, count);
}
