import type { Clock, IdSource, Timer } from '../core/index.ts';
import { CALL_ID_PATTERN, ConversationIds, EPISODE_ID_PREFIX, isEpisodeId } from '../core/index.ts';
import type { Pack, Task } from '../packs/index.ts';
import type { SnapshotPart } from '../snapshot/index.ts';
import type { CallDatabases, DatabaseDump } from '../store/index.ts';
import type { CallerMinds } from './callers.ts';
import { HANDOFF_MODES, type HandoffMode } from './framing.ts';
import { EpisodeError, TextEpisode, type EpisodeAction, type EpisodeResult, type StepResult, type Truncation } from './text-episode.ts';

/** A pack episodes can run on: its definition, its databases and its template's rows. */
export interface DeskPack {
  readonly pack: Pack;
  readonly databases: CallDatabases;
  readonly templateDump: DatabaseDump;
}

/** How a desk is set up (one per process, shared by every contract). */
export interface EpisodeDeskOptions {
  readonly packs: ReadonlyMap<string, DeskPack>;
  /** Live episodes at most (MIVAS_RL_MAX_EPISODES); past it opening one is refused with EPISODES_FULL. */
  readonly maxEpisodes: number;
  /** An episode untouched this long is finished as truncated (`idle`). */
  readonly idleMs: number;
  /**
   * An episode nobody has acted on since it opened is finished (`idle`) after this long, and when
   * the desk is full the oldest such episode is finished to make room (a rollout that died after
   * its seed never holds a slot). Default: `idleMs`, and no eviction.
   */
  readonly untouchedMs?: number;
  /** The caller kind an episode gets when its request names none (default `scripted`). */
  readonly defaultCaller?: string;
  /** Why an `llm` caller cannot be had here (no caller endpoint configured), or null when it can. */
  readonly llmUnavailable?: (pack: Pack) => string | null;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly callers: CallerMinds;
  /** Where finished snapshots go (the outbox). */
  readonly store: (pack: string, callId: string, parts: ReadonlyMap<SnapshotPart, Buffer>) => void;
  /** Finished results kept for verify and state, newest last (default 4096). */
  readonly keepFinished?: number;
  /**
   * This process's name among replicas behind one URL (MIVAS_RL_REPLICA): ids it mints read
   * `ep_<replica>_<hex>`, which a proxy maps back to this process (`replicaOfEpisode`).
   */
  readonly replica?: string;
  /** The process's one answer to "is this id free?" (the app's); the desk holds its episodes' ids there. Default: one of its own. */
  readonly conversationIds?: ConversationIds;
}

/** The replica an episode id names (`ep_<replica>_<hex>`), or null for an id minted without one or chosen by a client. */
export function replicaOfEpisode(id: string): string | null {
  return /^ep_([a-z0-9][a-z0-9-]{0,30})_[0-9a-f]+$/.exec(id)?.[1] ?? null;
}

/** What a contract asks for when it opens an episode. */
export interface OpenRequest {
  readonly pack: string;
  /** The task; absent: the pack's tasks sorted by id, the `seed`-th modulo their count. */
  readonly taskId?: string | null;
  readonly seed?: number | null;
  readonly handoffMode?: string | null;
  /** Caller kind (default `scripted`). */
  readonly caller?: string | null;
  readonly maxTurns?: number | null;
  /** The policy's name (the snapshot harness is `text/<policy>`) and model, when known. */
  readonly policy: string;
  readonly model?: string | null;
  readonly runId?: string | null;
  /** A client-chosen id (OpenEnv `episode_id`): used when it can name a call and is fresh. */
  readonly episodeId?: string | null;
  /**
   * True for a contract whose client may vanish between requests (NeMo Gym's seed, an MCP session
   * over HTTP): until its first action the episode falls under `untouchedMs` and may be evicted
   * at capacity. A WebSocket session holds its episode by its connection instead.
   */
  readonly reapUntouched?: boolean;
}

/** The turn cap when a request names none. */
export const DEFAULT_MAX_TURNS = 60;
/** The largest turn cap a request may ask for. */
export const MAX_TURNS_LIMIT = 1000;

interface Held {
  readonly episode: TextEpisode;
  lastUsedMs: number;
  /** False until the first action or lookup after the episode opened (true from the start unless the open asked `reapUntouched`). */
  touched: boolean;
}

/**
 * Every episode of one process (docs/rl.md "Scaling"): each opened on its own fresh database,
 * at most `maxEpisodes` live at once (back-pressure: EPISODES_FULL), found by id, reaped when
 * idle (finished as truncated and scored), and remembered for a while after they end so a late
 * verify still gets the reward. The NeMo Gym, OpenEnv and speech routes all open episodes here.
 */
export class EpisodeDesk {
  private readonly live = new Map<string, Held>();
  private readonly done = new Map<string, Promise<EpisodeResult>>();
  private opening = 0;
  private reaper: Timer;
  private closed = false;

  private readonly options: EpisodeDeskOptions;
  private readonly conversationIds: ConversationIds;

  constructor(options: EpisodeDeskOptions) {
    this.options = options;
    this.conversationIds = options.conversationIds ?? new ConversationIds();
    this.conversationIds.hold({ useOf: (id) => (this.knows(id) || [...options.packs.values()].some((p) => p.databases.exists(id)) ? 'used' : null) });
    this.reaper = this.schedule();
  }

  get maxEpisodes(): number {
    return this.options.maxEpisodes;
  }

  /** Packs this desk runs, by id. */
  packIds(): string[] {
    return [...this.options.packs.keys()];
  }

  deskPack(id: string): DeskPack | undefined {
    return this.options.packs.get(id);
  }

  /** Live episodes (and ones still opening). */
  count(): number {
    return this.live.size + this.opening;
  }

  /** True when no episode can be opened: at capacity, and no untouched episode to make room. */
  isFull(): boolean {
    return this.count() >= this.options.maxEpisodes && this.oldestUntouched() === null;
  }

  /** The task a request names, or the seed's pick; EPISODE_INVALID when the pack has no such task. */
  taskFor(pack: Pack, taskId: string | null | undefined, seed: number | null | undefined): Task {
    if (taskId) {
      const task = pack.tasks.get(taskId);
      if (!task) throw new EpisodeError('EPISODE_INVALID', `pack ${pack.id} has no task ${JSON.stringify(String(taskId).slice(0, 40))}`);
      return task;
    }
    const tasks = [...pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0));
    const pick = tasks[Math.abs(Math.trunc(seed ?? 0)) % Math.max(1, tasks.length)];
    if (!pick) throw new EpisodeError('EPISODE_INVALID', `pack ${pack.id} has no tasks`);
    return pick;
  }

  /** Opens an episode: EPISODES_FULL at capacity, EPISODE_INVALID for a request it cannot run. */
  async open(request: OpenRequest): Promise<{ episode: TextEpisode; callerSaid: string | null }> {
    if (this.closed) throw new EpisodeError('EPISODES_FULL', 'the server is closing; no new episodes');
    if (this.isFull()) throw this.full();
    const desk = this.options.packs.get(request.pack);
    if (!desk) throw new EpisodeError('EPISODE_INVALID', `pack ${request.pack} is not mounted here`);
    const task = this.taskFor(desk.pack, request.taskId, request.seed);
    const handoffMode = (request.handoffMode ?? 'native') as HandoffMode;
    if (!HANDOFF_MODES.includes(handoffMode)) throw new EpisodeError('EPISODE_INVALID', `handoff_mode must be native or soft (got ${JSON.stringify(String(request.handoffMode).slice(0, 20))})`);
    const maxTurns = request.maxTurns ?? DEFAULT_MAX_TURNS;
    if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_TURNS_LIMIT) throw new EpisodeError('EPISODE_INVALID', `max_turns must be an integer from 1 to ${MAX_TURNS_LIMIT}`);
    const id = this.idFor(request.episodeId);
    const kind = request.caller ?? this.options.defaultCaller ?? 'scripted';
    const unavailable = kind === 'llm' ? (this.options.llmUnavailable?.(desk.pack) ?? null) : null;
    if (unavailable) throw new EpisodeError('EPISODE_INVALID', unavailable);
    const caller = this.options.callers({ pack: desk.pack, task, kind, seed: request.seed ?? null, episodeId: id });
    if (!caller) throw new EpisodeError('EPISODE_INVALID', `this build has no ${JSON.stringify(String(kind).slice(0, 20))} caller`);
    // Only a request that can run makes room.
    if (this.count() >= this.options.maxEpisodes) await this.evictUntouched();
    if (this.count() >= this.options.maxEpisodes) throw this.full();
    this.opening++;
    try {
      const started = await TextEpisode.start({
        pack: desk.pack,
        task,
        id,
        databases: desk.databases,
        templateDump: desk.templateDump,
        caller,
        policy: request.policy,
        model: request.model ?? null,
        runId: request.runId ?? null,
        handoffMode,
        maxTurns,
        epochMs: () => this.options.clock.epochMs(),
        store: this.options.store,
      });
      this.hold(started.episode, request.reapUntouched === true);
      return started;
    } finally {
      this.opening--;
    }
  }

  /** The live episode with this id (marks it used), or undefined. */
  get(id: string): TextEpisode | undefined {
    const held = this.live.get(id);
    if (held) {
      held.lastUsedMs = this.options.clock.nowMs();
      held.touched = true;
    }
    return held?.episode;
  }

  /** True when the id names a live or remembered episode. */
  knows(id: string): boolean {
    return this.live.has(id) || this.done.has(id);
  }

  /**
   * Runs an action on a live episode: EPISODE_NOT_FOUND for an unknown id, EPISODE_ENDED for a
   * finished one. An action that needs no waiting (the scripted caller) has run, and an episode it
   * ended has left the live set, by the time this returns.
   */
  step(id: string, action: EpisodeAction): Promise<StepResult> {
    const episode = this.get(id);
    if (!episode) return Promise.reject(this.missing(id));
    const run = episode.step(action);
    this.settle(episode);
    return run.finally(() => this.settle(episode));
  }

  /** Finishes an episode (truncated by `cause` if still live) and returns its result; a finished one answers as it finished. */
  async finish(id: string, cause: Truncation): Promise<EpisodeResult> {
    const held = this.live.get(id);
    if (held) {
      try {
        return await held.episode.finish(cause);
      } finally {
        this.settle(held.episode);
      }
    }
    const done = this.done.get(id);
    if (!done) throw new EpisodeError('EPISODE_NOT_FOUND', `no episode ${id} in this process`);
    return done;
  }

  /** The result of a finished episode, or undefined while it runs or when unknown. */
  result(id: string): Promise<EpisodeResult> | undefined {
    return this.done.get(id);
  }

  /** Finishes every episode idle for at least `idleMs`, or untouched since it opened for `untouchedMs`; returns how many. */
  async reapIdle(idleMs = this.options.idleMs): Promise<number> {
    const now = this.options.clock.nowMs();
    const untouchedMs = this.options.untouchedMs ?? idleMs;
    const idle = [...this.live.values()].filter((h) => now - h.lastUsedMs >= (h.touched ? idleMs : Math.min(idleMs, untouchedMs)));
    await Promise.allSettled(idle.map((h) => this.finish(h.episode.id, 'idle')));
    return idle.length;
  }

  /** At capacity: finishes (`idle`, scored) the oldest episode nobody has acted on since it opened, when `untouchedMs` is set. */
  private async evictUntouched(): Promise<void> {
    const oldest = this.oldestUntouched();
    if (!oldest) return;
    oldest.touched = true; // the desk acts on it now: a concurrent open picks the next one
    await this.finish(oldest.episode.id, 'idle');
  }

  /** The live episode opened longest ago that nobody has acted on (when eviction is on), or null. */
  private oldestUntouched(): Held | null {
    if (this.options.untouchedMs === undefined) return null;
    let oldest: Held | null = null;
    for (const held of this.live.values()) if (!held.touched && !held.episode.isDone() && (!oldest || held.lastUsedMs < oldest.lastUsedMs)) oldest = held;
    return oldest;
  }

  /** Stops reaping, refuses new episodes and finishes the live ones (`server_closing`): their snapshots are written. */
  async close(): Promise<void> {
    this.closed = true;
    this.reaper.cancel();
    await Promise.allSettled([...this.live.values()].map((h) => this.finish(h.episode.id, 'server_closing')));
  }

  private full(): EpisodeError {
    return new EpisodeError('EPISODES_FULL', `${this.options.maxEpisodes} episodes are live in this process`, { status: 503 });
  }

  private missing(id: string): EpisodeError {
    return this.done.has(id) ? new EpisodeError('EPISODE_ENDED', `episode ${id} has ended; it takes no more actions`) : new EpisodeError('EPISODE_NOT_FOUND', `no episode ${id} in this process`);
  }

  private idFor(wanted: string | null | undefined): string {
    if (wanted) {
      // Only the episode namespace: a call's id (finished or still to be dialed) is never an episode's.
      if (!isEpisodeId(wanted)) throw new EpisodeError('EPISODE_INVALID', `episode ids start with ${EPISODE_ID_PREFIX} and match ${CALL_ID_PATTERN.source}; other ids belong to calls`);
      if (this.conversationIds.useOf(wanted)) throw new EpisodeError('EPISODE_INVALID', `episode id ${wanted} was used before; an id names one conversation, once`);
      return wanted;
    }
    return this.conversationIds.mintFree(this.options.ids, 'episode', this.options.replica);
  }

  private hold(episode: TextEpisode, reapUntouched: boolean): void {
    if (episode.isDone()) {
      this.remember(episode);
      return;
    }
    this.live.set(episode.id, { episode, lastUsedMs: this.options.clock.nowMs(), touched: !reapUntouched });
  }

  /** Moves an episode that has ended out of the live set (its database is already gone). */
  private settle(episode: TextEpisode): void {
    if (!episode.isDone() || !episode.result()) return;
    this.live.delete(episode.id);
    this.remember(episode);
  }

  private remember(episode: TextEpisode): void {
    const result = episode.result();
    if (!result) return;
    this.done.set(episode.id, result);
    result.catch(() => undefined);
    const keep = this.options.keepFinished ?? 4096;
    for (const id of this.done.keys()) {
      if (this.done.size <= keep) break;
      this.done.delete(id);
    }
  }

  private schedule(): Timer {
    const shortest = Math.min(this.options.idleMs, this.options.untouchedMs ?? this.options.idleMs);
    return this.options.clock.setTimer(Math.max(250, shortest / 4), () => {
      void this.reapIdle().finally(() => {
        if (!this.closed) this.reaper = this.schedule();
      });
    });
  }
}
