import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { CallSession } from '../call/index.ts';
import { httpProblem, type HttpProblem, type IdUse, type Log } from '../core/index.ts';
import { encodeServerFrame, isUpgradeProblem, readUpgradeFacts, wrapWebSocket, type UpgradeFacts } from '../chirp/index.ts';
import { snapshotKey } from '../snapshot/index.ts';
import { parseTraceparent, type UpgradeRejection } from '../telemetry/index.ts';
import type { AppContext } from './app-context.ts';
import { callObserver, countAudio } from './observability.ts';
import { sendProblem } from './problem.ts';

/** Seconds a refused caller should wait before dialing again. */
const RETRY_AFTER_S = 5;
/** A reservation whose upgrade never completes (the client vanished mid-handshake) is released after this. */
const RESERVATION_TTL_MS = 10_000;
/** The upgrade waits this long for the snapshot store's "already used?" answer, then accepts (the outbox never overwrites). */
export const UPGRADE_STORE_CHECK_MS = 2_000;

declare module 'fastify' {
  interface FastifyRequest {
    chirpFacts: UpgradeFacts | null;
    chirpReservation: Reservation | null;
  }
}

/** A call slot held for an upgrade still in its handshake. */
interface Reservation {
  /** Gives the slot back (once) unless the call took it. */
  release(): void;
  /** The call is live: the registry owns the slot now; stop watching. */
  settle(): void;
}

/**
 * Holds a reserved slot for one upgrade and gives it back on every path that does not become a
 * call: a refusal, the client closing its socket before the 101, an error, or the TTL.
 */
function holdReservation(ctx: AppContext, request: FastifyRequest, callId: string): Reservation {
  const socket = request.raw.socket;
  let done = false;
  const finish = (cancel: boolean): void => {
    if (done) return;
    done = true;
    ttl.cancel();
    socket.off('close', onClose);
    if (cancel) ctx.registry.cancel(callId);
  };
  const onClose = (): void => finish(true);
  const ttl = ctx.clock.setTimer(RESERVATION_TTL_MS, () => finish(true));
  socket.once('close', onClose);
  return { release: () => finish(true), settle: () => finish(false) };
}

/**
 * True when the client went away while the upgrade was being checked (it sent the request and
 * closed): the event loop turns once so a FIN or RST already received is seen, then the socket is
 * asked. Such an upgrade gets no 101 and no call.
 */
async function clientGone(request: FastifyRequest): Promise<boolean> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  const socket = request.raw.socket;
  return socket.destroyed || !socket.readable || !socket.writable;
}

async function refuse(reply: FastifyReply, problem: HttpProblem): Promise<void> {
  if (problem.status === 503) reply.header('Retry-After', String(RETRY_AFTER_S));
  await sendProblem(reply, problem);
}

/** Every check that decides an upgrade, run before any 101 (wire.md §1.2). */
function upgradeGate(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!request.ws) return;
    const facts = readUpgradeFacts(request.headers, request.url, ctx.ids);
    if (isUpgradeProblem(facts)) return refuse(reply, facts);
    if (facts.probe) {
      request.chirpFacts = facts;
      return;
    }
    const use = ctx.callIds.useOf(facts.callId);
    if (use) return refuse(reply, takenProblem(facts.callId, use));
    const refusal = ctx.registry.reserve(facts.callId);
    if (refusal === 'duplicate') return refuse(reply, takenProblem(facts.callId, 'live'));
    if (refusal) return refuse(reply, refusal === 'draining' ? httpProblem('DRAINING', 'the server is draining') : httpProblem('AT_CAPACITY', 'the server is at capacity'));
    const reservation = holdReservation(ctx, request, facts.callId);
    try {
      const problem = await callProblem(ctx, facts, request.log);
      if (problem) {
        reservation.release();
        return refuse(reply, problem);
      }
      if (await clientGone(request)) {
        reservation.release();
        request.log.info({ callId: facts.callId }, 'the client closed during the upgrade: no call');
        reply.hijack();
        request.raw.socket.destroy();
        return;
      }
    } catch (err) {
      reservation.release();
      throw err;
    }
    if (facts.minted) request.log.info({ callId: facts.callId }, 'no X-Simulation-Result-Id: minted a call id');
    request.chirpFacts = facts;
    request.chirpReservation = reservation;
  };
}

/**
 * Asks the snapshot store whether the id already has a snapshot, for at most
 * UPGRADE_STORE_CHECK_MS on the injected clock: a store that is down or stalls never holds an
 * upgrade. Unanswered, the check fails open; the outbox never overwrites another call's snapshot.
 */
async function storeHasSnapshot(ctx: AppContext, key: string, log: Log): Promise<boolean> {
  const abort = new AbortController();
  let timer: { cancel(): void } | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = ctx.clock.setTimer(UPGRADE_STORE_CHECK_MS, () => resolve('late'));
  });
  const answer = ctx.sink.exists(key, abort.signal).catch((err: unknown) => {
    log.warn({ err: String(err) }, 'snapshot store check failed; accepting the call (the outbox never overwrites)');
    return false;
  });
  const outcome = await Promise.race([answer, deadline]);
  timer?.cancel();
  if (outcome !== 'late') return outcome;
  abort.abort();
  log.warn({ waitedMs: UPGRADE_STORE_CHECK_MS }, 'snapshot store did not answer the existence check in time; accepting the call (the outbox never overwrites)');
  return false;
}

/** Why an id that is not free cannot be dialed: 409, live or used (architecture.md §4). */
function takenProblem(callId: string, use: IdUse): HttpProblem {
  if (use === 'live') return httpProblem('CALL_ID_LIVE', `call ${callId} is already live`);
  if (use === 'ended') return httpProblem('CALL_ID_USED', `call ${callId} has ended; a call id is used once`);
  return httpProblem('CALL_ID_USED', `call ${callId} already has a database (HTTP tool calls used this id); a call id is used once`);
}

/** What this process cannot know from its own holders: the snapshot store's evidence, and the harness's own refusal. */
async function callProblem(ctx: AppContext, facts: UpgradeFacts, log: Log): Promise<HttpProblem | null> {
  const key = snapshotKey(ctx.pack.id, facts.callId, 'summary.json');
  if (await storeHasSnapshot(ctx, key, log)) {
    return httpProblem('CALL_ID_USED', `a snapshot of call ${facts.callId} already exists`);
  }
  const refused = ctx.callHarnesses.for(facts.callId).refuse({ callId: facts.callId, pack: ctx.pack, taskId: facts.taskId });
  return refused ? httpProblem('CALL_REFUSED', refused) : null;
}

function answerProbe(ctx: AppContext, socket: WebSocket): void {
  const frame = { type: 'probe.ok', pack: ctx.pack.id, harness: ctx.callHarnesses.served.name, version: ctx.version, capacity: { live: ctx.registry.count(), max: ctx.registry.maxCalls } } as const;
  ctx.ops.metrics.probeAnswered();
  socket.send(encodeServerFrame(frame, ctx.ids, ctx.clock.epochMs()));
  socket.close(1000, 'probe ok');
}

/** Where a relayed platform calls this call's tools back: MIVAS_RELAY_CALLBACK_URL, else the host the caller dialed (docs/platforms.md). */
function platformCallbackUrl(ctx: AppContext, request: FastifyRequest, callId: string): string {
  const base = ctx.config.providers.relay.callbackUrl ?? `http://${request.headers.host ?? '127.0.0.1'}`;
  return `${base}/platform/calls/${callId}`;
}

function startCall(ctx: AppContext, socket: WebSocket, facts: UpgradeFacts, request: FastifyRequest): void {
  // A speech rollout (docs/rl.md) names its own policy endpoint for its call id.
  const harness = ctx.callHarnesses.for(facts.callId);
  const base = request.log.child({ callId: facts.callId, pack: ctx.pack.id, harness: harness.name });
  const reservation = request.chirpReservation;
  if (socket.readyState !== socket.OPEN) {
    // Closed between the checks and the 101: nothing was said, so there is no call to keep.
    reservation?.release();
    base.info('the client closed during the upgrade: no call');
    return;
  }
  const observer = callObserver(ctx.ops, base, parseTraceparent(request.headers.traceparent), { pack: ctx.pack.id, harness: harness.name });
  // Every line of the call carries its trace id when spans are exported, so logs and traces join.
  const log = observer.traceId ? base.child({ traceId: observer.traceId }) : base;
  let model;
  try {
    model = harness.create({ callId: facts.callId, pack: ctx.pack, taskId: facts.taskId, callbackUrl: platformCallbackUrl(ctx, request, facts.callId) });
  } catch (err) {
    log.error({ err }, 'harness could not create a session');
    reservation?.release();
    socket.close(1011, 'harness error');
    return;
  }
  const session = new CallSession(
    { ...ctx.callSettings, clock: ctx.clock, ids: ctx.ids, log, pack: ctx.pack, templateDump: ctx.templateDump, databases: ctx.databases, outbox: ctx.outbox, harness: harness.name, observer, platformHandoffs: ctx.config.providers.relay.handoffs },
    { callId: facts.callId, runId: facts.runId, taskId: facts.taskId },
    countAudio(wrapWebSocket(socket), ctx.ops.metrics),
    model,
  );
  ctx.registry.activate(session);
  reservation?.settle();
  log.info({ taskId: facts.taskId, runId: facts.runId }, 'call accepted');
  void session.start();
  void session.finished().then((outcome) => log.info({ endReason: outcome.endReason, closeCode: outcome.closeCode }, 'call ended'));
}

/** Counts upgrades refused before 101, by reason; runs for refusals from the auth hook too. */
function countRejection(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const reason = request.ws ? rejectionReason(reply.statusCode, ctx.registry.isDraining()) : null;
    if (reason) ctx.ops.metrics.upgradeRejected(reason);
    return payload;
  };
}

function rejectionReason(status: number, draining: boolean): UpgradeRejection | null {
  if (status === 401) return 'auth';
  if (status === 400) return 'bad_id';
  if (status === 409) return 'duplicate';
  if (status === 503) return draining ? 'draining' : 'capacity';
  return status >= 400 && status !== 426 ? 'refused' : null;
}

/** The CHIRP WebSocket on `/`, any path no HTTP route takes, and the 101 probe on `/probe`. */
export async function chirpRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.decorateRequest('chirpFacts', null);
  app.decorateRequest('chirpReservation', null);
  const route = {
    method: 'GET' as const,
    config: { takesUpgrade: true },
    preValidation: upgradeGate(ctx),
    onSend: countRejection(ctx),
    handler: async (_request: FastifyRequest, reply: FastifyReply) => {
      await sendProblem(reply.header('Upgrade', 'websocket'), httpProblem('UPGRADE_REQUIRED', 'this path speaks CHIRP over WebSocket'));
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      const facts = request.chirpFacts;
      if (!facts) return socket.close(1011, 'no call facts');
      if (facts.probe) return answerProbe(ctx, socket);
      startCall(ctx, socket, facts, request);
    },
  };
  app.route({ ...route, url: '/' });
  app.route({ ...route, url: '/*' });
}
