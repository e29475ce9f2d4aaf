import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedMind, type CallerMind } from '../../../src/caller/index.ts';
import { conversationDateTime, EpisodeError, noopPolicy, REWARD_VERSION, scriptedPolicy, SILENT_WAV, TextEpisode, type TextPolicy } from '../../../src/episodes/index.ts';
import { summarySchema, timelineFileSchema } from '../../../src/snapshot/index.ts';
import { episodePack, LinesMind, longerRoute, playEpisode, routedTask, SCORED_PACKS, type EpisodePack } from '../../support/episode-rig.ts';

const rigs = new Map<string, EpisodePack>();

beforeAll(async () => {
  for (const id of SCORED_PACKS) rigs.set(id, await episodePack(id));
}, 120_000);

afterAll(() => {
  for (const rig of rigs.values()) rig.close();
});

const rigOf = (id: string): EpisodePack => rigs.get(id) as EpisodePack;

describe.each(SCORED_PACKS)('a text episode of %s', (packId) => {
  it('replayed by the scripted policy passes with reward 1 and every component 1', async () => {
    const rig = rigOf(packId);
    const task = routedTask(rig.pack);
    const result = await playEpisode(rig, scriptedPolicy(), task);
    expect(result.status, result.reasons.join('\n')).toBe('PASS');
    expect(result.reward).toBe(1);
    expect(result.reward_components).toEqual({ state: 1, tools: 1, handoff: 1, route: 1 });
    expect(result).toMatchObject({ valid: true, end_reason: 'agent_end_call', truncated: null, harness: 'text/scripted', reward_version: REWARD_VERSION });
    const parts = rig.stored.get(result.snapshot);
    const summary = summarySchema.parse(JSON.parse(String(parts?.get('summary.json'))));
    expect(summary).toMatchObject({ harness: 'text/scripted', task_id: task.task_id, end_reason: 'agent_end_call', void_reason: null });
    expect(parts?.get('wav')).toEqual(SILENT_WAV);
  });

  it('played by the noop policy fails with reward 0 and says why', async () => {
    const rig = rigOf(packId);
    const result = await playEpisode(rig, noopPolicy(), routedTask(rig.pack));
    expect(result).toMatchObject({ status: 'FAIL', reward: 0, valid: true, harness: 'text/noop' });
    expect(result.reward_components.tools).toBe(0);
    expect(result.reasons.length).toBeGreaterThan(0);
  });

  it('over a valid route one hop longer earns (1+|E|)/(2+|E|), every gate still passing', async () => {
    const rig = rigOf(packId);
    const task = [...rig.pack.tasks.values()].find((t) => t.exp_tool_calls.length > 0 && longerRoute(rig.pack, t) !== null);
    if (!task) throw new Error(`no task of ${packId} has a valid route one hop longer`);
    const longer = longerRoute(rig.pack, task);
    const result = await playEpisode(rig, scriptedPolicy({ steps: longer?.steps }), task);
    const expected = (1 + task.exp_handoff_path.length) / (2 + task.exp_handoff_path.length);
    expect(result.status, result.reasons.join('\n')).toBe('PASS');
    expect(result.reward).toBeCloseTo(expected, 12);
    expect(result.reward_components).toEqual({ state: 1, tools: 1, handoff: 1, route: result.reward });
    expect(['detour', 'none_required']).toContain(result.verdict.handoff?.verdict);
    expect(result.verdict.handoff?.actual_path.length).toBe(task.exp_handoff_path.length + 1);
  });

  it('with soft handoffs offers the whole graph, still passes, and the handoff result carries the new instructions', async () => {
    const rig = rigOf(packId);
    const task = routedTask(rig.pack);
    const outputs: Record<string, unknown>[] = [];
    const watching: TextPolicy = {
      name: 'scripted',
      model: null,
      async play(episode, said) {
        const inner = scriptedPolicy();
        const step = episode.step.bind(episode);
        episode.step = async (action) => {
          const r = await step(action);
          if (r.handoff) outputs.push(r.output);
          return r;
        };
        await inner.play(episode, said);
      },
    };
    const result = await playEpisode(rig, watching, task, { handoffMode: 'soft' });
    expect(result.reward).toBe(1);
    expect(outputs.length).toBe(task.exp_handoff_path.length);
    expect(outputs[0]).toMatchObject({ assistant: expect.any(String), instructions: expect.stringContaining('# THIS CONVERSATION') });
  });
});

describe('text episode mechanics', () => {
  const open = (caller: CallerMind = new ScriptedMind(routedTask(rigOf('healthcare').pack)), handoffMode: 'native' | 'soft' = 'native', maxTurns = 60) => {
    const rig = rigOf('healthcare');
    const task = routedTask(rig.pack);
    return TextEpisode.start({
      pack: rig.pack,
      task,
      id: `ep_mech_${Math.random().toString(16).slice(2, 10)}`,
      databases: rig.databases,
      templateDump: rig.templateDump,
      caller,
      policy: 'probe',
      handoffMode,
      maxTurns,
      epochMs: () => 0,
      store: (pack, id, parts) => rig.stored.set(`${pack}/${id}`, parts),
    });
  };

  it('opens with the greeting said, the caller\'s opening line, and instructions dated by the pack clock', async () => {
    const { episode, callerSaid } = await open();
    const view = episode.view();
    expect(callerSaid).toBe("Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?");
    expect(conversationDateTime(episode.pack)).toBe('Tuesday, October sixth, 2026 at ten a.m.');
    expect(view.instructions).toContain('It is Tuesday, October sixth, 2026 at ten a.m. (2026-10-06T10:00, America/New_York).');
    expect(view.tools[0]?.name).toBe('say_to_caller');
    expect(view.tools.map((t) => t.name)).toContain('transfer_to_coverage');
    expect(view.tools.map((t) => t.name)).not.toContain('check_plan_accepted');
    await episode.finish('client_closed');
  });

  it('refuses a tool the active agent does not own with the engine envelope, then offers the new desk natively after a handoff', async () => {
    const { episode } = await open(undefined, 'soft');
    expect(episode.view().tools.map((t) => t.name)).toContain('check_plan_accepted');
    const refused = await episode.step({ name: 'check_plan_accepted', arguments: { carrier: 'aetna', location_id: 'loc_park_ave' } });
    expect(refused.output).toMatchObject({ ok: false, error_code: 'TOOL_NOT_AVAILABLE' });
    const native = await open();
    const hop = await native.episode.step({ name: 'transfer_to_coverage', arguments: {} });
    expect(hop.output).toEqual({ assistant: 'coverage' });
    expect(hop).toMatchObject({ agent: 'coverage', handoff: { from: 'reception', to: 'coverage' } });
    expect(hop.tools?.map((t) => t.name)).toContain('check_plan_accepted');
    expect(hop.instructions).toContain('You have just taken over this call');
    await Promise.all([episode.finish(), native.episode.finish()]);
  });

  it('answers say_to_caller with the caller\'s reply, records both as speech, and ends when the caller hangs up', async () => {
    const caller = new LinesMind(['Hello, do you take Aetna?', 'Great, thanks. Bye.'], 1);
    const { episode } = await open(caller);
    const closingLine = await episode.step({ name: 'say_to_caller', arguments: { text: 'Yes, we do.' } });
    expect(closingLine.output).toEqual({ ok: true, data: { caller_said: 'Great, thanks. Bye.', caller_hung_up: true } });
    // The caller's hang-up grace: one last agent action, which the caller does not answer.
    expect(closingLine).toMatchObject({ done: false, end_reason: null });
    const said = await episode.step({ name: 'say_to_caller', arguments: { text: 'Goodbye.' } });
    expect(said).toMatchObject({ done: true, end_reason: 'caller_hangup', output: { ok: true, data: { caller_said: null, caller_hung_up: true } } });
    expect(caller.heard).toEqual(['Yes, we do.']);
    await expect(episode.step({ name: 'end_call', arguments: {} })).rejects.toMatchObject({ code: 'EPISODE_ENDED' });
    await expect(episode.step({ name: 'end_call', arguments: {} })).rejects.toBeInstanceOf(EpisodeError);
    // A caller that hangs up before the graded write without its closing line deviated from its
    // task (docs/caller.md): the episode is void, never a FAIL counted against the agent.
    expect(said.result?.verdict.status).toBe('VOID');
    expect(said.result?.verdict.void_reason).toBe('caller_deviation');
  });

  it('after a human transfer lets the agent say the script it returned, asks the caller nothing, then ends', async () => {
    const caller = new LinesMind(['I want to make a complaint.', 'This line should never be asked for.'], 99);
    const { episode } = await open(caller);
    const transfer = await episode.step({ name: 'transfer_to_human', arguments: { reason: 'complaint' } });
    expect(transfer).toMatchObject({ done: false, end_reason: null, output: { ok: true, data: { transferred: true, script: expect.any(String) } } });
    const script = (transfer.output as { data: { script: string } }).data.script;
    const last = await episode.step({ name: 'say_to_caller', arguments: { text: script } });
    expect(last).toMatchObject({ done: true, end_reason: 'human_transfer', output: { ok: true, data: { caller_said: null } } });
    expect(caller.heard).toEqual([]);
    const snapshot = last.result?.snapshot ?? '';
    const events = timelineFileSchema.parse(JSON.parse(String(rigOf('healthcare').stored.get(snapshot)?.get('timeline.json')))).events;
    expect(events.flatMap((e) => (e.type === 'transcript' && e.side === 'agent' ? [e.text] : [])).at(-1)).toBe(script);
    // Any other action after the transfer is not run: the call ends as it stood.
    const other = await open(new LinesMind(['I want a person.'], 99));
    await other.episode.step({ name: 'transfer_to_human', arguments: { reason: 'caller_request' } });
    const refused = await other.episode.step({ name: 'end_call', arguments: { reason: 'caller_done' } });
    expect(refused).toMatchObject({ done: true, end_reason: 'human_transfer', output: { ok: false, error_code: 'CALL_ENDED' } });
    const stopped = await open(new LinesMind(['I want a person.'], 99));
    await stopped.episode.step({ name: 'transfer_to_human', arguments: { reason: 'caller_request' } });
    expect(await stopped.episode.finish()).toMatchObject({ end_reason: 'human_transfer', truncated: null });
  });

  it('ends as internal_error (VOID infra_error) when the caller\'s mind fails, not as a caller hang-up', async () => {
    const failing: CallerMind = { kind: 'llm', open: async () => ({ text: 'Hello, do you take Aetna?', hangUp: null }), reply: async () => ({ text: null, hangUp: 'mind_error' }) };
    const { episode } = await open(failing);
    const said = await episode.step({ name: 'say_to_caller', arguments: { text: 'Which office?' } });
    expect(said).toMatchObject({ done: true, end_reason: 'internal_error' });
    expect(said.result?.verdict).toMatchObject({ status: 'VOID', void_reason: 'infra_error' });
  });

  it('runs the one tool call the agent makes in the caller\'s hang-up grace, such as the transfer it announced', async () => {
    const caller = new LinesMind(['I want a person.', 'Okay, thank you.'], 1);
    const { episode } = await open(caller);
    const announced = await episode.step({ name: 'say_to_caller', arguments: { text: "I'll connect you with a member of our team." } });
    expect(announced).toMatchObject({ done: false, output: { data: { caller_hung_up: true } } });
    const transfer = await episode.step({ name: 'transfer_to_human', arguments: { reason: 'caller_request' } });
    expect(transfer).toMatchObject({ done: true, end_reason: 'human_transfer', output: { ok: true, data: { transferred: true } } });
    const quiet = await open(new LinesMind(['Do you take Aetna?', 'Thanks, bye.'], 1));
    await quiet.episode.step({ name: 'say_to_caller', arguments: { text: 'Yes, we do.' } });
    expect(await quiet.episode.finish()).toMatchObject({ end_reason: 'caller_hangup', truncated: null });
  });

  it('lets the caller hear words said beside a tool call before its next reply', async () => {
    const observed: string[] = [];
    const replies: string[] = [];
    const mind: CallerMind = {
      kind: 'llm',
      open: async () => ({ text: 'Do you take Aetna at Park Avenue?', hangUp: null }),
      reply: async (agentText: string) => (replies.push(agentText), { text: 'Thanks.', hangUp: null }),
      observe: (agentText: string) => void observed.push(agentText),
    };
    const { episode } = await open(mind);
    episode.speakWithoutReply('One moment while I check.');
    await episode.step({ name: 'say_to_caller', arguments: { text: 'Yes, Park Avenue takes Aetna.' } });
    expect(observed).toEqual(['One moment while I check.']);
    expect(replies).toEqual(['Yes, Park Avenue takes Aetna.']);
    await episode.finish();
  });

  it('cuts an episode off at the turn cap as truncated (max_duration) and scores it', async () => {
    const { episode } = await open(undefined, 'native', 2);
    await episode.step({ name: 'list_locations', arguments: {} });
    const second = await episode.step({ name: 'say_to_caller', arguments: { text: 'One moment.' } });
    expect(second).toMatchObject({ done: true, end_reason: 'max_duration', turn: 2 });
    expect(second.result).toMatchObject({ truncated: 'turn_cap', status: 'FAIL', reward: 0 });
  });

  it('rejects an empty say_to_caller with INVALID_ARGUMENTS and records no speech for it', async () => {
    const rig = rigOf('healthcare');
    const { episode } = await open();
    const bad = await episode.step({ name: 'say_to_caller', arguments: { text: '  ' } });
    expect(bad.output).toMatchObject({ ok: false, error_code: 'INVALID_ARGUMENTS' });
    const result = await episode.finish();
    expect(result).toMatchObject({ truncated: 'policy_stopped', end_reason: 'max_duration' });
    const events = timelineFileSchema.parse(JSON.parse(String(rig.stored.get(result.snapshot)?.get('timeline.json')))).events;
    const agentLines = events.flatMap((e) => (e.type === 'transcript' && e.side === 'agent' ? [e.text] : []));
    expect(agentLines).toEqual([rig.pack.blueprint.greeting]);
    expect(events.filter((e) => e.type === 'tool')).toEqual([]);
  });

  it('voids an episode whose caller never speaks instead of failing the policy', async () => {
    const { episode, callerSaid } = await open(new LinesMind([]));
    expect(callerSaid).toBeNull();
    await episode.step({ name: 'end_call', arguments: { reason: 'caller_done' } });
    const result = await episode.finish();
    expect(result).toMatchObject({ status: 'VOID', valid: false, reward: 0 });
    expect(result.reasons).toContain('void: caller_never_spoke');
  });
});
