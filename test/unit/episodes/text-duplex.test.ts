import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextEpisode } from '../../../src/episodes/index.ts';
import type { Task } from '../../../src/packs/index.ts';
import { timelineFileSchema, type TimelineEvent } from '../../../src/snapshot/index.ts';
import { episodePack, LinesMind, type EpisodePack } from '../../support/episode-rig.ts';

const CORRECTION = 'No, sorry, the nineteenth. July nineteenth, not the ninth.';
const READ_BACK = 'Let me read that back. Daniel Hughes, born July ninth, 1995, mobile seven one eight, five five five, zero two two two. Shall I register you?';

let rig: EpisodePack;
let task: Task;

beforeAll(async () => {
  rig = await episodePack('healthcare');
  const found = rig.pack.tasks.get('C1-M1-COR');
  if (!found) throw new Error('healthcare C1-M1-COR missing');
  task = found;
});
afterAll(() => rig?.close());

async function open(mind: LinesMind, id: string): Promise<TextEpisode> {
  const { episode } = await TextEpisode.start({ pack: rig.pack, task, id, databases: rig.databases, templateDump: rig.templateDump, caller: mind, policy: 'probe', handoffMode: 'native', maxTurns: 20, epochMs: () => 0, store: (pack, key, parts) => rig.stored.set(`${pack}/${key}`, parts) });
  return episode;
}

async function eventsOf(episode: TextEpisode, id: string): Promise<TimelineEvent[]> {
  await episode.finish();
  const parts = rig.stored.get(`healthcare/${id}`);
  return [...timelineFileSchema.parse(JSON.parse(parts?.get('timeline.json')?.toString('utf8') ?? '{}')).events];
}

describe('text episodes play a correction as the caller\'s words arriving during the agent\'s turn (issue 33)', () => {
  it('answers a read-back of the stale value with the correction, without asking the mind, and the policy reads it before its next action', async () => {
    const mind = new LinesMind(["Hi, I'd like to book a first visit for acne at Cobble Hill.", 'Yes, that is right.']);
    const episode = await open(mind, 'ep_duplex_cor');
    const readBack = await episode.step({ name: 'say_to_caller', arguments: { text: READ_BACK } });
    expect(readBack.output).toMatchObject({ ok: true, data: { caller_said: CORRECTION, caller_hung_up: false } });
    expect(mind.heard).toEqual([]);
    // The agent reads the corrected value back: the caller's mind answers as usual.
    const again = await episode.step({ name: 'say_to_caller', arguments: { text: 'Thank you. Born July nineteenth, 1995, not the ninth. Shall I register you?' } });
    expect(again.output).toMatchObject({ data: { caller_said: 'Yes, that is right.' } });
    const events = await eventsOf(episode, 'ep_duplex_cor');
    // On the episode's clock the caller's correction starts inside the agent's read-back, after "July ninth" and the pin's 300 ms.
    const agentStart = events.find((e) => e.type === 'transcript' && e.side === 'agent' && e.text === READ_BACK);
    const agentEnd = events.find((e) => e.type === 'speech.completed' && e.side === 'agent' && agentStart?.type === 'transcript' && e.utterance_id === agentStart.utterance_id);
    const callerStart = events.find((e) => e.type === 'transcript' && e.side === 'caller' && e.text === CORRECTION);
    expect(callerStart?.at_ms).toBeGreaterThan(agentStart?.at_ms ?? Number.POSITIVE_INFINITY);
    expect(callerStart?.at_ms).toBeLessThan(agentEnd?.at_ms ?? 0);
    const wordsBefore = READ_BACK.split(' ').findIndex((w) => w === 'ninth,') + 1;
    expect((callerStart?.at_ms ?? 0) - (agentStart?.at_ms ?? 0)).toBe(wordsBefore * 400 + 300);
  });

  it('leaves an agent that never says the stale value to the mind: no correction arrives', async () => {
    const mind = new LinesMind(["Hi, I'd like to book a first visit for acne at Cobble Hill.", 'Yes, that is right.']);
    const episode = await open(mind, 'ep_duplex_none');
    const readBack = await episode.step({ name: 'say_to_caller', arguments: { text: 'Let me read that back. Born July nineteenth, 1995. Shall I register you?' } });
    expect(readBack.output).toMatchObject({ data: { caller_said: 'Yes, that is right.' } });
    const events = await eventsOf(episode, 'ep_duplex_none');
    expect(events.some((e) => e.type === 'transcript' && e.text === CORRECTION)).toBe(false);
  });
});
