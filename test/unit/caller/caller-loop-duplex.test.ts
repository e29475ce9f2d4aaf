import { describe, expect, it } from 'vitest';
import { FRAME_BYTES, msToBytes } from '../../../src/audio/index.ts';
import { CallerLog, CallerLoop, type CallerMind, type CallerTurn, type DuplexAct, type Ears } from '../../../src/caller/index.ts';
import type { CallerFrame } from '../../../src/chirp/index.ts';
import { ManualClock, seededIds } from '../../../src/core/index.ts';

/** Ears that read the agent's "audio" as text: a prefix of the audio is a prefix of the words. */
function readingEars(heard: string[]): Ears {
  return { model: 'read', hear: async (pcm) => (heard.push(pcm.toString('utf8')), pcm.toString('utf8')) };
}

/** A mind that opens, then answers every turn with one line, and keeps what it was told. */
function mind(told: string[]): CallerMind {
  return {
    kind: 'external',
    open: async (): Promise<CallerTurn> => ({ text: 'Hello.', hangUp: null, source: 'opening' }),
    reply: async (text): Promise<CallerTurn> => (told.push(`reply:${text}`), { text: 'Sure.', hangUp: null, source: 'free' }),
    observe: (text) => void told.push(`observe:${text}`),
    saidOver: (line) => void told.push(`said-over:${line}`),
  };
}

const CORRECTION: DuplexAct = { pin: 3, kind: 'correction', line: 'No, the twenty-second, not the twelfth.', agentSays: ['the twelfth', 'twelfth of'], notWhen: ['twenty second'], cutInAfterMs: 0 };
const BACK_CHANNEL: DuplexAct = { pin: 4, kind: 'back_channel', line: 'Mm-hm.', agentSays: ['our cancellation policy'], notWhen: ['anything else'], cutInAfterMs: 0 };
/** One step of partial hearing: 2 ms of audio, 64 bytes of the test's text "audio". */
const STEP_MS = 2;

function rig(acts: readonly DuplexAct[]): { loop: CallerLoop; log: CallerLog; told: string[]; heard: string[]; frames: CallerFrame[] } {
  const told: string[] = [];
  const heard: string[] = [];
  const frames: CallerFrame[] = [];
  const log = new CallerLog();
  const loop = new CallerLoop(
    {
      mind: mind(told),
      ears: readingEars(heard),
      mouth: { engine: 'tones', synthesize: async () => Buffer.alloc(FRAME_BYTES * 5, 1) },
      log,
      paced: false,
      limits: { maxDurationMs: 600_000, agentSilenceMs: 45_000, hangupGraceMs: 4_000 },
      timeoutMs: 3_600_000,
      clock: new ManualClock(),
      ids: seededIds('duplex'),
      duplex: { acts, hearEveryMs: STEP_MS },
    },
    { sendFrame: (frame) => void frames.push(frame), sendAudio: () => true, close: () => undefined },
  );
  return { loop, log, told, heard, frames };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** The agent's utterance streams in chunks of one hearing step, the loop given time between them (as a paced stream would). */
async function agentStreams(loop: CallerLoop, id: string, text: string, options: { complete?: boolean } = {}): Promise<void> {
  loop.agentStarted(id);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += msToBytes(STEP_MS)) {
    loop.agentAudio(bytes.subarray(i, i + msToBytes(STEP_MS)));
    await settle();
  }
  if (options.complete ?? true) loop.agentCompleted(id);
  await settle();
}

/** The loop has opened: greeting heard, opening line said. */
async function opened(acts: readonly DuplexAct[]): Promise<ReturnType<typeof rig>> {
  const r = rig(acts);
  r.loop.connected();
  await agentStreams(r.loop, 'u_greeting', 'Thanks for calling, how can I help?');
  r.told.length = 0;
  return r;
}

const READ_BACK = 'Let me read that back to you. A skin exam with Doctor Bell on the twelfth of October at nine in the morning, at our Park Avenue office. Shall I book it?';

describe('CallerLoop duplex acts (issue 33)', () => {
  it('cuts in with a correction once the read-back says the stale value, before the agent finishes, and does not answer that utterance again', async () => {
    const r = await opened([CORRECTION]);
    await agentStreams(r.loop, 'u_readback', READ_BACK, { complete: false });
    const cut = r.log.turns.find((t) => t.side === 'caller' && t.duplex);
    expect(cut).toMatchObject({ text: CORRECTION.line, source: 'pin', pin: 3, duplex: { act: 'correction', over_utterance_id: 'u_readback' } });
    // It started right after the partial transcript that first held "the twelfth", not at the end of the utterance.
    const heardAt = READ_BACK.indexOf('the twelfth') + 'the twelfth'.length;
    const step = msToBytes(STEP_MS);
    expect(cut?.duplex?.at_agent_ms).toBe((Math.ceil(heardAt / step) * step) / 32);
    expect(cut?.duplex?.at_agent_ms).toBeLessThan(READ_BACK.length / 32);
    expect(r.loop.state).toBe('listening');
    r.loop.agentCompleted('u_readback');
    await settle();
    expect(r.told).toEqual([`said-over:${CORRECTION.line}`, `observe:${READ_BACK}`]);
    expect(r.log.turns.filter((t) => t.side === 'caller').map((t) => t.text)).toEqual(['Hello.', CORRECTION.line]);
  });

  it('plays each act once: a later read-back of the stale value gets a turn, not a second correction', async () => {
    const r = await opened([CORRECTION]);
    await agentStreams(r.loop, 'u_1', READ_BACK);
    await agentStreams(r.loop, 'u_2', 'Sorry, the twelfth again?');
    expect(r.log.turns.filter((t) => t.duplex)).toHaveLength(1);
    expect(r.told.at(-1)).toBe('reply:Sorry, the twelfth again?');
  });

  it('holds the act back while its NOT clause holds: an agent that already says the corrected value is not corrected', async () => {
    const r = await opened([CORRECTION]);
    await agentStreams(r.loop, 'u_1', 'That is the twenty-second, not the twelfth. Shall I book it?');
    expect(r.log.turns.filter((t) => t.duplex)).toEqual([]);
    expect(r.told).toEqual(['reply:That is the twenty-second, not the twelfth. Shall I book it?']);
  });

  it('a back-channel acknowledges without taking the floor: the utterance is still answered', async () => {
    const r = await opened([BACK_CHANNEL]);
    const long = 'Before we book, let me explain our cancellation policy: changes within a day of the visit carry a fee. Anything else I can explain?';
    await agentStreams(r.loop, 'u_policy', long);
    expect(r.log.turns.find((t) => t.duplex)).toMatchObject({ text: 'Mm-hm.', duplex: { act: 'back_channel', over_utterance_id: 'u_policy' } });
    expect(r.told).toEqual(['said-over:Mm-hm.', `reply:${long}`]);
  });

  it('never overhears the greeting and transcribes no partial utterance without duplex acts', async () => {
    const r = await opened([]);
    await agentStreams(r.loop, 'u_1', READ_BACK);
    // Only whole utterances were heard: the greeting and the read-back.
    expect(r.heard).toEqual(['Thanks for calling, how can I help?', READ_BACK]);
  });

  it('hears the same partial transcripts for the same agent audio, so the cut-in is where it was', async () => {
    const positions: (number | undefined)[] = [];
    for (let run = 0; run < 2; run++) {
      const r = await opened([CORRECTION]);
      await agentStreams(r.loop, 'u_readback', READ_BACK);
      positions.push(r.log.turns.find((t) => t.duplex)?.duplex?.at_agent_ms);
    }
    expect(positions[0]).toBeGreaterThan(0);
    expect(positions[1]).toBe(positions[0]);
  });
});
