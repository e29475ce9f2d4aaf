import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallerMind, CallerTurn } from '../../../src/caller/index.ts';
import { ManualClock, seededIds } from '../../../src/core/index.ts';
import { builtInCallers, EpisodeDesk, replicaOfEpisode, type EpisodeDeskOptions } from '../../../src/episodes/index.ts';
import { episodePack, type EpisodePack } from '../../support/episode-rig.ts';

let rig: EpisodePack;
beforeAll(async () => {
  rig = await episodePack('healthcare');
}, 60_000);
afterAll(() => rig.close());

let desks = 0;
function deskOf(clock: ManualClock, maxEpisodes = 2, extra: Partial<EpisodeDeskOptions> = {}): EpisodeDesk {
  return new EpisodeDesk({
    packs: new Map([['healthcare', { pack: rig.pack, databases: rig.databases, templateDump: rig.templateDump }]]),
    maxEpisodes,
    idleMs: 60_000,
    clock,
    ids: seededIds(`desk-${++desks}`),
    callers: builtInCallers,
    store: (pack, id, parts) => rig.stored.set(`${pack}/${id}`, parts),
    ...extra,
  });
}

describe('EpisodeDesk', () => {
  it('refuses past its bound, and frees a slot when an episode ends', async () => {
    const desk = deskOf(new ManualClock());
    const a = await desk.open({ pack: 'healthcare', policy: 'p' });
    await desk.open({ pack: 'healthcare', policy: 'p' });
    await expect(desk.open({ pack: 'healthcare', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODES_FULL' });
    await desk.step(a.episode.id, { name: 'end_call', arguments: { reason: 'caller_done' } });
    expect(desk.count()).toBe(1);
    await expect(desk.open({ pack: 'healthcare', policy: 'p' })).resolves.toBeDefined();
    await desk.close();
  });

  it('mints ids that name its replica when it has one (what a proxy routes on), and plain ids otherwise', async () => {
    const named = deskOf(new ManualClock(), 2, { replica: 'mivas-1' });
    const plain = deskOf(new ManualClock(), 2);
    const a = (await named.open({ pack: 'healthcare', policy: 'p' })).episode.id;
    const b = (await plain.open({ pack: 'healthcare', policy: 'p' })).episode.id;
    expect(a).toMatch(/^ep_mivas-1_[0-9a-f]{24}$/);
    expect([replicaOfEpisode(a), replicaOfEpisode(b)]).toEqual(['mivas-1', null]);
    // A client-chosen id (in the episode namespace) keeps its own spelling: it names no replica.
    const chosen = (await named.open({ pack: 'healthcare', policy: 'p', episodeId: 'ep_my_run_x7' })).episode.id;
    expect([chosen, replicaOfEpisode(chosen)]).toEqual(['ep_my_run_x7', null]);
    await named.close();
    await plain.close();
  });

  it('picks the seed-th task by id when none is named, and refuses a bad request', async () => {
    const desk = deskOf(new ManualClock(), 10);
    const ids = [...rig.pack.tasks.keys()].sort();
    const { episode } = await desk.open({ pack: 'healthcare', seed: 3, policy: 'p' });
    expect(episode.task.task_id).toBe(ids[3]);
    await expect(desk.open({ pack: 'healthcare', taskId: 'NOPE', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await expect(desk.open({ pack: 'healthcare', handoffMode: 'sideways', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await expect(desk.open({ pack: 'healthcare', caller: 'llm', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID', message: expect.stringContaining('"llm" caller') });
    await expect(desk.open({ pack: 'healthcare', maxTurns: 0, policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await expect(desk.open({ pack: 'legal', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await desk.open({ pack: 'healthcare', episodeId: 'ep_mine-1', policy: 'p' });
    await expect(desk.open({ pack: 'healthcare', episodeId: 'ep_mine-1', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await expect(desk.open({ pack: 'healthcare', episodeId: '../etc', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID' });
    await desk.close();
  });

  it('keeps episodes in the ep_ namespace: a call id, used or still to be dialed, is refused and creates nothing', async () => {
    const desk = deskOf(new ManualClock(), 10);
    for (const callId of ['loc_0123456789ab', 'call_00ff00ff00ff', '721435', 'ro_abc', 'EP_upper']) {
      await expect(desk.open({ pack: 'healthcare', episodeId: callId, policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID', message: expect.stringContaining('ep_') });
      expect(rig.databases.exists(callId)).toBe(false);
      expect(desk.knows(callId)).toBe(false);
    }
    const minted = await desk.open({ pack: 'healthcare', policy: 'p' });
    expect(minted.episode.id).toMatch(/^ep_[0-9a-f]{24}$/);
    await desk.close();
  });

  it('reaps an idle episode as truncated and still answers for it afterwards', async () => {
    const clock = new ManualClock();
    const desk = deskOf(clock);
    const { episode } = await desk.open({ pack: 'healthcare', policy: 'p' });
    clock.advance(30_000);
    expect(await desk.reapIdle()).toBe(0);
    clock.advance(30_000);
    expect(await desk.reapIdle()).toBe(1);
    expect(desk.count()).toBe(0);
    await expect(desk.finish(episode.id, 'client_closed')).resolves.toMatchObject({ truncated: 'idle', end_reason: 'max_duration' });
    await expect(desk.step(episode.id, { name: 'list_locations', arguments: {} })).rejects.toMatchObject({ code: 'EPISODE_ENDED' });
    await expect(desk.step('ep_nobody', { name: 'list_locations', arguments: {} })).rejects.toMatchObject({ code: 'EPISODE_NOT_FOUND' });
    await desk.close();
  });

  it('reaps an episode nobody acted on after untouchedMs, but a used one only after idleMs', async () => {
    const clock = new ManualClock();
    const desk = deskOf(clock, 4, { untouchedMs: 5_000 });
    const seeded = await desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true });
    const used = await desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true });
    const socket = await desk.open({ pack: 'healthcare', policy: 'p' });
    await desk.step(used.episode.id, { name: 'list_locations', arguments: {} });
    clock.advance(4_999);
    expect(await desk.reapIdle()).toBe(0);
    clock.advance(1);
    expect(await desk.reapIdle()).toBe(1);
    await expect(desk.result(seeded.episode.id)).resolves.toMatchObject({ truncated: 'idle', end_reason: 'max_duration', status: 'FAIL' });
    expect(desk.get(used.episode.id)).toBeDefined();
    expect(desk.get(socket.episode.id)).toBeDefined();
    await desk.close();
  });

  it('at capacity finishes the oldest untouched episode to make room, never a used one', async () => {
    const clock = new ManualClock();
    const desk = deskOf(clock, 2, { untouchedMs: 60_000 });
    const older = await desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true });
    clock.advance(10);
    const newer = await desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true });
    expect(desk.isFull()).toBe(false);
    const third = await desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true });
    await expect(desk.result(older.episode.id)).resolves.toMatchObject({ truncated: 'idle' });
    expect(desk.count()).toBe(2);
    await desk.step(newer.episode.id, { name: 'list_locations', arguments: {} });
    await desk.step(third.episode.id, { name: 'list_locations', arguments: {} });
    expect(desk.isFull()).toBe(true);
    await expect(desk.open({ pack: 'healthcare', policy: 'p', reapUntouched: true })).rejects.toMatchObject({ code: 'EPISODES_FULL' });
    await desk.close();
  });

  it('gives the default caller to a request that names none, and says why llm is refused', async () => {
    const desk = deskOf(new ManualClock(), 4, { defaultCaller: 'nobody', llmUnavailable: (pack) => `no llm caller for ${pack.id}` });
    await expect(desk.open({ pack: 'healthcare', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODE_INVALID', message: expect.stringContaining('"nobody" caller') });
    await expect(desk.open({ pack: 'healthcare', policy: 'p', caller: 'llm' })).rejects.toMatchObject({ code: 'EPISODE_INVALID', message: 'no llm caller for healthcare' });
    await expect(desk.open({ pack: 'healthcare', policy: 'p', caller: 'scripted' })).resolves.toBeDefined();
    await desk.close();
  });

  it('does a step with the scripted caller within the call: the ending step has stored, scored and freed its episode when desk.step returns', async () => {
    const desk = deskOf(new ManualClock());
    const { episode } = await desk.open({ pack: 'healthcare', policy: 'p' });
    const said = desk.step(episode.id, { name: 'say_to_caller', arguments: { text: 'How can I help?' } });
    expect(episode.busy()).toBe(false);
    const ended = desk.step(episode.id, { name: 'end_call', arguments: { reason: 'caller_done' } });
    // Nothing has been awaited yet: the work is done, not scheduled.
    expect([episode.busy(), episode.isDone(), desk.count(), rig.stored.has(`healthcare/${episode.id}`)]).toEqual([false, true, 0, true]);
    const [first, last] = await Promise.all([said, ended]);
    expect(first).toMatchObject({ turn: 1, done: false, output: { ok: true, data: { caller_said: null, caller_hung_up: false } } });
    expect(last).toMatchObject({ turn: 2, done: true, end_reason: 'agent_end_call' });
    expect(last.result).toEqual(await desk.finish(episode.id, 'policy_stopped'));
    expect(last.result?.verdict.end_reason).toBe('agent_end_call');
    await desk.close();
  });

  it('queues an action behind one that waits for the caller, and runs them in arrival order', async () => {
    let answer: (turn: CallerTurn) => void = () => undefined;
    const slow: CallerMind = {
      kind: 'external',
      open: async () => ({ text: 'Hello, I need an appointment.', hangUp: null }),
      reply: () => new Promise<CallerTurn>((resolve) => (answer = resolve)),
    };
    const desk = deskOf(new ManualClock(), 2, { callers: () => slow });
    const { episode } = await desk.open({ pack: 'healthcare', policy: 'p' });
    const said = desk.step(episode.id, { name: 'say_to_caller', arguments: { text: 'Which day suits you?' } });
    const ended = desk.step(episode.id, { name: 'end_call', arguments: { reason: 'caller_done' } });
    expect([episode.busy(), episode.isDone(), desk.count()]).toEqual([true, false, 1]);
    answer({ text: 'Tuesday, please.', hangUp: null });
    const [first, last] = await Promise.all([said, ended]);
    expect(first).toMatchObject({ turn: 1, done: false, output: { ok: true, data: { caller_said: 'Tuesday, please.' } } });
    expect(last).toMatchObject({ turn: 2, done: true, end_reason: 'agent_end_call' });
    expect([episode.busy(), desk.count()]).toEqual([false, 0]);
    await desk.close();
  });

  it('finishes live episodes when it closes, writing their snapshots', async () => {
    const desk = deskOf(new ManualClock());
    const { episode } = await desk.open({ pack: 'healthcare', policy: 'p' });
    await desk.close();
    expect(rig.stored.has(`healthcare/${episode.id}`)).toBe(true);
    await expect(desk.result(episode.id)).resolves.toMatchObject({ truncated: 'server_closing' });
    await expect(desk.open({ pack: 'healthcare', policy: 'p' })).rejects.toMatchObject({ code: 'EPISODES_FULL' });
  });
});
