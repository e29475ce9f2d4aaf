import { ManualClock } from '../core/index.ts';
import type { Pack, Task } from '../packs/index.ts';
import { Timeline, type EndReason, type TimelineEvent } from '../snapshot/index.ts';
import type { CallDatabases, DatabaseDump } from '../store/index.ts';
import type { DispatchResult } from './conversation.ts';
import { ConversationRun, recordUtterance } from './conversation-run.ts';
import { CarryForward, handoffArguments, handoffToolTo, planRoute, routeActions, type RouteAction } from './reference-route.ts';

/** How an offline conversation starts and ends (the media clock advances 1 s per action). */
export interface OfflineOptions {
  readonly pack: Pack;
  readonly databases: CallDatabases;
  readonly callId: string;
  readonly taskId: string | null;
  readonly harness?: string;
  readonly runId?: string | null;
  /** Greeting by the agent and a first caller utterance before the actions (default true). */
  readonly greet?: boolean;
  readonly callerSpeaks?: boolean;
  /** Recorded as given; by default the ending that stands by the run's rule (the first session tool's, else agent_end_call). */
  readonly endReason?: EndReason;
  readonly closeCode?: number | null;
  /** Media offset of the call end; default 60 s or 1 s after the last action. */
  readonly endAtMs?: number;
  /** The caller hangs up after the last action; the run's rule decides which ending stands (the first). */
  readonly callerHangsUp?: boolean;
  /** Leave out call.ended (a truncated timeline). */
  readonly omitEnd?: boolean;
}

/** An offline conversation's evidence: the parts the scorer reads and each action's dispatch. */
export interface OfflineReplay {
  readonly events: TimelineEvent[];
  readonly final: DatabaseDump;
  readonly db: Buffer;
  /** One result per action, in order (hops included). */
  readonly results: readonly DispatchResult[];
}

/** Records one offline utterance (started, transcript 400 ms later, completed 800 ms later) as the caller or the agent. */
export function addSpeech(timeline: Timeline, side: 'caller' | 'agent', atMs: number, id: string, text: string): void {
  recordUtterance(timeline, { side, id, text, startMs: atMs, transcriptMs: atMs + 400, endMs: atMs + 800 });
}

/** The greeting and the caller's opening line of an offline conversation, after its call.started. */
function addOpening(timeline: Timeline, options: Pick<OfflineOptions, 'greet' | 'callerSpeaks'>): void {
  if (options.greet !== false) addSpeech(timeline, 'agent', 500, 'greeting', 'Hello, how can I help?');
  if (options.callerSpeaks !== false) addSpeech(timeline, 'caller', 2000, 'opening', 'Hi, I have a request.');
}

/** Opens a hand-written offline timeline (scorer fixtures): call.started, then the greeting and the caller's opening line. */
export function openOfflineTimeline(options: Omit<OfflineOptions, 'databases' | 'pack'> & { readonly pack: string }, mediaMs: () => number): Timeline {
  const timeline = new Timeline(mediaMs);
  timeline.add({ type: 'call.started', call_id: options.callId, pack: options.pack, harness: options.harness ?? 'scripted', task_id: options.taskId, run_id: options.runId ?? null }, 0);
  addOpening(timeline, options);
  return timeline;
}

/** Media offset of the first action of an offline conversation. */
export const OFFLINE_FIRST_ACTION_MS = 4000;

/**
 * The offline applier (architecture.md §16): replays actions through a real conversation, as a model
 * would make them live, for task lock, validation, mutants and test fixtures. Hops are the
 * declared handoff tools (an undeclared one is refused by the engine), calls resolve their
 * matchers and carried values as the scripted harness does.
 */
export function replayOffline(actions: readonly RouteAction[], options: OfflineOptions): OfflineReplay {
  // The media clock moves 1 s per action; a tool's duration on it is 0, as before.
  const media = new ManualClock();
  const run = new ConversationRun({ pack: options.pack, id: options.callId, databases: options.databases, clock: media, harness: options.harness ?? 'scripted', taskId: options.taskId, runId: options.runId ?? null });
  const conversation = run.start();
  addOpening(run.timeline, options);
  const carry = new CarryForward();
  const results: DispatchResult[] = [];
  media.advance(OFFLINE_FIRST_ACTION_MS);
  actions.forEach((action, i) => {
    // Every action runs, even after the ending began: the replay is the loop a model would have made.
    results.push(run.dispatch(requestFor(options.pack, conversation.activeAgent(), action, actions.slice(i + 1), carry)).result);
    if (action.kind === 'call') carry.record(options.pack, { name: action.name, output: results[results.length - 1]?.output as { ok: boolean } });
    media.advance(1000);
  });
  if (options.callerHangsUp) run.end('caller_hangup');
  const closed = run.close();
  if (!options.omitEnd) run.recordEnd(options.closeCode ?? 1000, options.endAtMs ?? Math.max(60_000, media.nowMs()), options.endReason);
  return { events: [...run.timeline.events()], final: closed.final, db: closed.db, results };
}

function requestFor(pack: Pack, agent: string, action: RouteAction, rest: readonly RouteAction[], carry: CarryForward): { toolCallId: null; name: string; rawArguments: unknown } {
  if (action.kind === 'hop') {
    const name = handoffToolTo(pack, agent, action.to);
    const nextHop = rest.find((a) => a.kind === 'hop');
    return { toolCallId: null, name, rawArguments: handoffArguments(pack, name, nextHop?.kind === 'hop' ? nextHop.to : undefined) };
  }
  const args = carry.argumentsFor(pack, action.parameters ? { name: action.name, parameters: { ...action.parameters } } : { name: action.name });
  for (const [key, value] of Object.entries(action.overrides ?? {})) {
    if (value === undefined) delete args[key];
    else args[key] = value;
  }
  return { toolCallId: null, name: action.name, rawArguments: args };
}

/** A task's reference route replayed offline, with the dispatch of each expected call (in order) picked out. */
export function replayReference(task: Task, options: OfflineOptions): OfflineReplay & { readonly calls: readonly DispatchResult[]; readonly problems: readonly string[] } {
  const { steps, problems } = planRoute(options.pack, task);
  const actions = routeActions(steps);
  const replayed = replayOffline(actions, options);
  const refusedHops = replayed.results.flatMap((r, i) => (actions[i]?.kind === 'hop' && r.event.refusal ? [`hop ${r.event.name} refused (${r.event.refusal})`] : []));
  return { ...replayed, calls: replayed.results.filter((_, i) => actions[i]?.kind === 'call'), problems: [...problems, ...refusedHops] };
}
