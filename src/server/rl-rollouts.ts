import type { FastifyInstance, FastifyRequest } from 'fastify';
import { dialPrepared, prepareCaller, type PreparedCaller } from '../caller/index.ts';
import type { ProviderSettings } from '../config.ts';
import { httpProblem, isPlainObject, MivasError } from '../core/index.ts';
import { rewardOf, ROLLOUT_CALLER_KINDS, rolloutPolicyUrl, rolloutRequestSchema, type EpisodeReward, type RolloutRequest, type SpeechProtocol, type VoiceCaller } from '../episodes/index.ts';
import type { Task } from '../packs/index.ts';
import { createHarnessFactory, foreignEndpointSettings, type HarnessFactory } from '../providers/index.ts';
import { loadSnapshot, scoreConversation, type SnapshotSource } from '../scoring/index.ts';
import { callerFileSchema, callerPartKey, SNAPSHOT_PARTS, snapshotKey } from '../snapshot/index.ts';
import type { AppContext } from './app-context.ts';
import { callerSettingsOf, llmCallerProblem } from './caller-settings.ts';
import { sendProblem } from './problem.ts';

/** A rollout as reported: running, or done with its reward and where its evidence is. */
export interface RolloutRecord {
  readonly rollout_id: string;
  readonly status: 'running' | 'done' | 'failed';
  readonly pack: string;
  readonly task_id: string;
  readonly protocol: SpeechProtocol;
  /** The URL mivas dialed: the trainer's, with the rollout id in its path. */
  readonly policy_url: string;
  readonly caller: string;
  readonly error?: string;
  readonly result?: EpisodeReward & {
    readonly end_reason: string | null;
    /** `<pack>/<rollout_id>` under the snapshot root, and its summary's full location. */
    readonly snapshot: { readonly key: string; readonly location: string };
    /** The call's stereo WAV (left caller, right agent). */
    readonly recording: string;
  };
}

/** Rollouts remembered at most (the oldest finished ones go first). */
const KEEP = 1024;

/**
 * The provider settings of a rollout: the request's endpoint, model, voice and key, and none of
 * this server's credentials (a URL from a request gets only the request's own; docs/rl.md).
 */
function providersFor(base: ProviderSettings, request: RolloutRequest, url: string): ProviderSettings {
  const p = request.policy;
  return foreignEndpointSettings(base, p.protocol, { url, apiKey: p.api_key, model: p.model, voice: p.voice });
}

/** The voice caller of rollouts: the conversing CHIRP caller `mivas run` dials with (`dialConversation`). */
const conversingCaller: VoiceCaller = { dial: dialPrepared };

/**
 * Speech rollouts (docs/rl.md): `POST /rl/rollouts` runs one call of a task on this server's
 * CHIRP path, with the trainer's realtime endpoint as the agent (its harness registered for the
 * rollout's call id, the id in the dialed URL's path) and the caller in voice mode, then scores
 * the call's snapshot and answers with the reward. The served pack only: calls run on its graph.
 */
export class RolloutDesk {
  private readonly rollouts = new Map<string, RolloutRecord>();

  private readonly ctx: AppContext;
  private readonly voice: VoiceCaller;

  constructor(
    ctx: AppContext,
    voice: VoiceCaller = conversingCaller,
  ) {
    this.ctx = ctx;
    this.voice = voice;
  }

  get(id: string): RolloutRecord | undefined {
    return this.rollouts.get(id);
  }

  /** Starts a rollout; EPISODE_INVALID for a request it cannot run. Returns its record and the run to await. */
  start(raw: unknown, selfUrl: string): { record: RolloutRecord; done: Promise<RolloutRecord> } {
    const { ctx } = this;
    const parsed = rolloutRequestSchema.safeParse(raw);
    if (!parsed.success) throw new MivasError('EPISODE_INVALID', parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
    const request = parsed.data;
    if (request.pack && request.pack !== ctx.pack.id) throw new MivasError('EPISODE_INVALID', `speech rollouts run on the served pack (${ctx.pack.id}); got ${request.pack}`);
    const tasks = [...ctx.pack.tasks.values()].sort((a, b) => (a.task_id < b.task_id ? -1 : 1));
    const task = request.task_id ? ctx.pack.tasks.get(request.task_id) : tasks[(request.seed ?? 0) % Math.max(1, tasks.length)];
    if (!task) throw new MivasError('EPISODE_INVALID', `pack ${ctx.pack.id} has no task ${request.task_id ?? ''}`);
    const caller = this.callerOf(request, task);
    const id = ctx.callIds.mintFree(ctx.ids, 'rollout');
    const policyUrl = rolloutPolicyUrl(request.policy.url, id);
    let harness: HarnessFactory;
    try {
      harness = createHarnessFactory(request.policy.protocol, { synth: ctx.synth, clock: ctx.clock, noopWaitMs: ctx.config.noopWaitMs, providers: providersFor(ctx.config.providers, request, policyUrl) });
    } catch (err) {
      throw new MivasError('EPISODE_INVALID', err instanceof Error ? err.message : String(err));
    }
    const record: RolloutRecord = { rollout_id: id, status: 'running', pack: ctx.pack.id, task_id: task.task_id, protocol: request.policy.protocol, policy_url: policyUrl, caller: request.caller.kind };
    this.remember(record);
    ctx.callHarnesses.assign(id, harness);
    const done = this.run(record, caller, selfUrl, request.run_id ?? null)
      .catch((err: unknown): RolloutRecord => ({ ...record, status: 'failed', error: err instanceof Error ? err.message : String(err) }))
      .then((finished) => {
        ctx.callHarnesses.release(id);
        this.remember(finished);
        return finished;
      });
    return { record, done };
  }

  /**
   * The rollout's caller, built from MIVAS_CALLER_* as `mivas run` builds its own and seeded by
   * (task, request seed) as a text episode's; EPISODE_INVALID for a kind rollouts do not take or
   * an llm caller with no key for its vendor endpoint.
   */
  private callerOf(request: RolloutRequest, task: Task): PreparedCaller {
    const kind = ROLLOUT_CALLER_KINDS.find((k) => k === request.caller.kind);
    if (!kind) throw new MivasError('EPISODE_INVALID', `speech rollouts take the ${ROLLOUT_CALLER_KINDS.join(' or ')} caller; this build has no ${JSON.stringify(request.caller.kind)} caller for them`);
    const problem = kind === 'llm' ? llmCallerProblem(this.ctx.config) : null;
    if (problem) throw new MivasError('EPISODE_INVALID', problem);
    return prepareCaller({ ...callerSettingsOf(this.ctx.config, { kind }), clock: this.ctx.clock }, task, request.seed ?? 0);
  }

  private async run(record: RolloutRecord, caller: PreparedCaller, selfUrl: string, runId: string | null): Promise<RolloutRecord> {
    const { ctx } = this;
    const id = record.rollout_id;
    const timeoutMs = Math.max(ctx.config.maxCallMs, ctx.config.caller.maxCallMs) + 30_000;
    const report = await this.voice.dial(caller, { url: selfUrl, callId: id, taskId: record.task_id, runId, auth: ctx.config.auth, paced: !ctx.config.fast, timeoutMs, ids: ctx.ids, clock: ctx.clock });
    if (report.refusedStatus) throw new Error(`the call was refused with HTTP ${report.refusedStatus} (the server is at capacity or draining)`);
    // The caller's own record lands beside the snapshot, as a run's does, so the scorer reads it too.
    const callerFile = callerFileSchema.parse(caller.record(report, { callId: id, runId, trial: null }));
    await ctx.sink.put(callerPartKey(ctx.pack.id, id), Buffer.from(`${JSON.stringify(callerFile, null, 1)}\n`));
    const summaryKey = snapshotKey(ctx.pack.id, id, 'summary.json');
    // The call's side writes its snapshot as it closes; wait for it (bounded) and push it to the sink.
    for (let waited = 0; !(ctx.outbox.isSpooled(ctx.pack.id, id) || (await ctx.sink.exists(summaryKey))); waited += 20) {
      if (waited > ctx.config.endCallMaxWaitMs + 30_000) throw new Error('the call left no snapshot');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await ctx.outbox.flush();
    const source: SnapshotSource = { root: ctx.sink.root, list: async () => [], read: async (key) => (await ctx.sink.get(key)) ?? undefined, uriOf: (key) => ctx.sink.locate(key) };
    const snapshot = await loadSnapshot(source, ctx.pack.id, id, new Set(SNAPSHOT_PARTS));
    const verdict = scoreConversation({ conversationId: id, snapshot, entry: undefined, packHint: ctx.pack.id }, { packs: new Map([[ctx.pack.id, ctx.pack]]), minCallMs: ctx.config.fast ? 0 : 20_000, allowPackDrift: false });
    return {
      ...record,
      status: 'done',
      result: {
        ...rewardOf(verdict),
        end_reason: verdict.end_reason,
        snapshot: { key: `${ctx.pack.id}/${id}`, location: ctx.sink.locate(summaryKey) },
        recording: ctx.sink.locate(snapshotKey(ctx.pack.id, id, 'wav')),
      },
    };
  }

  private remember(record: RolloutRecord): void {
    this.rollouts.delete(record.rollout_id);
    this.rollouts.set(record.rollout_id, record);
    for (const [id, r] of this.rollouts) {
      if (this.rollouts.size <= KEEP) break;
      if (r.status !== 'running') this.rollouts.delete(id);
    }
  }
}

/** The CHIRP URL of this server as seen from itself (the rollout's caller dials it). */
function selfUrlOf(ctx: AppContext, request: FastifyRequest): string {
  const host = ctx.config.host === '0.0.0.0' || ctx.config.host === '::' ? '127.0.0.1' : ctx.config.host;
  return `ws://${host.includes(':') ? `[${host}]` : host}:${request.socket.localPort}/`;
}

/** `POST /rl/rollouts` and `GET /rl/rollouts/:id`, inside the RL routes' context (their token). */
export function rolloutRoutes(app: FastifyInstance, ctx: AppContext, desk: RolloutDesk = new RolloutDesk(ctx)): void {
  app.post('/rl/rollouts', async (request, reply) => {
    if (!isPlainObject(request.body)) return sendProblem(reply, httpProblem('BODY_NOT_OBJECT', 'a rollout request is a JSON object'));
    try {
      const { record, done } = desk.start(request.body, selfUrlOf(ctx, request));
      if (request.body.wait === false) return reply.code(202).send(record);
      const finished = await done;
      return reply.code(finished.status === 'done' ? 200 : 502).send(finished);
    } catch (err) {
      if (err instanceof MivasError && err.code === 'EPISODE_INVALID') return sendProblem(reply, httpProblem('EPISODE_INVALID', err.message));
      throw err;
    }
  });
  app.get<{ Params: { id: string } }>('/rl/rollouts/:id', async (request, reply) => {
    const record = desk.get(request.params.id);
    return record ? reply.send(record) : sendProblem(reply, httpProblem('ROLLOUT_NOT_FOUND', `no rollout ${request.params.id.slice(0, 64)} in this process`));
  });
}
