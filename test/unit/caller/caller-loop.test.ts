import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../../../src/audio/index.ts';
import { CacheMissError, CallerLog, CallerLoop, NO_CAPS, type CallerMind, type CallerTurn, type ConversationLimits, type Ears } from '../../../src/caller/index.ts';
import type { CallerFrame } from '../../../src/chirp/index.ts';
import { ManualClock, seededIds } from '../../../src/core/index.ts';

/** What the loop did to the outside, stamped with the manual clock's time. */
interface Outside {
  readonly frames: { atMs: number; frame: CallerFrame }[];
  readonly audio: { atMs: number; bytes: number }[];
  readonly closes: string[];
}

/** Ears that read the agent's "audio" as text, so a test can say what the agent said. */
const readingEars: Ears = { model: 'read', hear: async (pcm) => pcm.toString('utf8') };

/** A mind that answers from a list (the opening first) and remembers what it was asked. */
function listMind(turns: readonly CallerTurn[], asked: string[] = []): CallerMind {
  let next = 0;
  const take = async (): Promise<CallerTurn> => turns[next++] ?? { text: null, hangUp: null };
  return {
    kind: 'external',
    open: () => (asked.push('<open>'), take()),
    reply: (text) => (asked.push(text), take()),
  };
}

const say = (text: string, hangUp: CallerTurn['hangUp'] = null): CallerTurn => ({ text, hangUp, source: hangUp === 'closing_line' ? 'closing' : 'free' });
const LINE_FRAMES = 10;

function loopOf(mind: CallerMind, options: { paced?: boolean; limits?: Partial<ConversationLimits>; log?: CallerLog; timeoutMs?: number; mouthReady?: Promise<void> } = {}): { loop: CallerLoop; clock: ManualClock; outside: Outside } {
  const clock = new ManualClock();
  const outside: Outside = { frames: [], audio: [], closes: [] };
  const loop = new CallerLoop(
    {
      mind,
      ears: readingEars,
      // Each line is 10 frames of a non-zero sample, so its frames tell apart from hold audio.
      mouth: { engine: 'tones', synthesize: async () => (await options.mouthReady, Buffer.alloc(FRAME_BYTES * LINE_FRAMES, 1)) },
      log: options.log ?? new CallerLog(),
      paced: options.paced ?? false,
      limits: { maxDurationMs: 600_000, agentSilenceMs: 45_000, hangupGraceMs: 4_000, ...options.limits },
      timeoutMs: options.timeoutMs ?? 3_600_000,
      clock,
      ids: seededIds('loop'),
    },
    {
      sendFrame: (frame) => outside.frames.push({ atMs: clock.nowMs(), frame }),
      sendAudio: (pcm) => (outside.audio.push({ atMs: clock.nowMs(), bytes: pcm.length }), true),
      close: (reason) => outside.closes.push(reason),
    },
  );
  return { loop, clock, outside };
}

/** Lets the loop's promises run (no sockets here: microtasks and one macrotask turn suffice). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** The agent says one whole utterance whose "audio" is its text. */
function agentSays(loop: CallerLoop, id: string, text: string): void {
  loop.agentStarted(id);
  loop.agentAudio(Buffer.from(text));
  loop.agentCompleted(id);
}

const linesStarted = (outside: Outside): number => outside.frames.filter((f) => f.frame.type === 'speech.started').length;
const linesCompleted = (outside: Outside): number => outside.frames.filter((f) => f.frame.type === 'speech.completed').length;

describe('CallerLoop on a manual clock (no sockets)', () => {
  it('answers each agent utterance once, in order, even when they arrive faster than the mind answers', async () => {
    const asked: string[] = [];
    const log = new CallerLog();
    const { loop } = loopOf(listMind([say('Hello.'), say('First answer.'), say('Second answer.')], asked), { log });
    loop.connected();
    agentSays(loop, 'u_000000000001', 'Welcome.');
    agentSays(loop, 'u_000000000002', 'How can I help?');
    agentSays(loop, 'u_000000000003', 'Anything else?');
    await settle();
    expect(asked).toEqual(['<open>', 'How can I help?', 'Anything else?']);
    expect(log.turns.map((t) => `${t.side}:${t.text}`)).toEqual([
      'agent:Welcome.',
      'caller:Hello.',
      'agent:How can I help?',
      'caller:First answer.',
      'agent:Anything else?',
      'caller:Second answer.',
    ]);
    expect(loop.counts).toEqual({ agentUtterances: 3, agentAudioBytes: 'Welcome.How can I help?Anything else?'.length, callerAudioBytes: 3 * LINE_FRAMES * FRAME_BYTES });
    expect(loop.state).toBe('listening');
  });

  it('paced: streams 20 ms hold audio from accept, holds a ready line while the agent speaks, and stops its line on barge-in', async () => {
    const log = new CallerLog();
    let mouthReady = (): void => undefined;
    const { loop, clock, outside } = loopOf(listMind([say('Hello.'), say('A long answer.')]), { paced: true, log, mouthReady: new Promise<void>((r) => (mouthReady = r)) });
    expect(outside.audio).toHaveLength(0);
    loop.connected();
    clock.advance(1_000);
    // Hold audio at 0, 20, ..., 1000 ms: one frame every 20 ms, none in a burst.
    expect(outside.audio.map((a) => a.atMs)).toEqual(Array.from({ length: 51 }, (_, i) => i * 20));
    agentSays(loop, 'u_000000000001', 'Welcome.');
    await settle();
    // The agent starts again before the opening line is synthesized: the ready line waits for it.
    loop.agentStarted('u_000000000002');
    loop.agentAudio(Buffer.from('Let me check.'));
    mouthReady();
    await settle();
    clock.advance(1_000);
    await settle();
    expect(linesStarted(outside)).toBe(0);
    expect(loop.state).toBe('speaking');
    loop.agentCompleted('u_000000000002');
    await settle();
    expect(linesStarted(outside)).toBe(1);
    // The line plays in real time, then the answer to the second utterance follows it.
    clock.advance(LINE_FRAMES * 20 - 20);
    await settle();
    expect(linesCompleted(outside)).toBe(0);
    clock.advance(40);
    await settle();
    expect(linesCompleted(outside)).toBe(1);
    expect(linesStarted(outside)).toBe(2);
    clock.advance(60);
    // The agent speaks again mid-line: the line ends at once and is recorded as cut off.
    loop.agentStarted('u_000000000003');
    await settle();
    expect(linesCompleted(outside)).toBe(2);
    expect(log.turns.filter((t) => t.side === 'caller').map((t) => t.interrupted)).toEqual([false, true]);
    const audioBefore = outside.audio.length;
    clock.advance(100);
    expect(outside.audio.length - audioBefore).toBe(5);
    loop.agentCompleted('u_000000000003');
    await loop.closed();
    clock.advance(1_000);
    expect(outside.audio.length - audioBefore).toBe(5);
  });

  it('fast: sends each line in one burst and no hold audio', async () => {
    const { loop, clock, outside } = loopOf(listMind([say('Hello.')]));
    loop.connected();
    clock.advance(1_000);
    expect(outside.audio).toHaveLength(0);
    agentSays(loop, 'u_000000000001', 'Welcome.');
    await settle();
    expect(outside.audio).toHaveLength(LINE_FRAMES);
    expect(new Set(outside.audio.map((a) => a.atMs)).size).toBe(1);
    expect(outside.frames.map((f) => f.frame.type)).toEqual(['speech.started', 'speech.completed']);
  });

  it('after its closing line, hangs up once the agent has been quiet for the grace, restarting it when the agent speaks', async () => {
    const { loop, clock, outside } = loopOf(listMind([say('Hello.'), say("Thanks, that's everything.", 'closing_line')]));
    loop.connected();
    agentSays(loop, 'u_000000000001', 'Welcome.');
    await settle();
    agentSays(loop, 'u_000000000002', 'Done, anything else?');
    await settle();
    expect(loop.state).toBe('closing');
    clock.advance(3_000);
    loop.agentStarted('u_000000000003');
    clock.advance(10_000);
    expect(outside.closes).toEqual([]);
    loop.agentCompleted('u_000000000003');
    await settle();
    clock.advance(3_999);
    expect(outside.closes).toEqual([]);
    clock.advance(1);
    expect(outside.closes).toEqual(['caller hangup']);
    expect({ state: loop.state, endReason: loop.endReason, hungUp: loop.hungUp }).toEqual({ state: 'hung_up', endReason: 'closing_line', hungUp: true });
  });

  it('ends with its caps: agent_silent, duration_cap, and the safety timeout (not a hang-up)', async () => {
    const silent = loopOf(listMind([say('Hello.')]));
    silent.loop.connected();
    agentSays(silent.loop, 'u_000000000001', 'Welcome.');
    await settle();
    silent.clock.advance(44_999);
    expect(silent.outside.closes).toEqual([]);
    silent.clock.advance(1);
    expect([silent.outside.closes, silent.loop.endReason]).toEqual([['caller hangup'], 'agent_silent']);

    const long = loopOf(listMind([say('Hello.')]), { limits: { agentSilenceMs: Number.POSITIVE_INFINITY, maxDurationMs: 300_000 } });
    long.loop.connected();
    long.clock.advance(299_999);
    expect(long.outside.closes).toEqual([]);
    long.clock.advance(1);
    expect([long.outside.closes, long.loop.endReason]).toEqual([['caller hangup'], 'duration_cap']);

    const held = loopOf(listMind([say('Hello.')]), { limits: NO_CAPS, timeoutMs: 90_000 });
    held.loop.connected();
    agentSays(held.loop, 'u_000000000001', 'Welcome.');
    await settle();
    held.clock.advance(89_999);
    expect(held.outside.closes).toEqual([]);
    held.clock.advance(1);
    expect(held.outside.closes).toEqual(['caller timeout']);
    expect({ timedOut: held.loop.timedOut, hungUp: held.loop.hungUp, endReason: held.loop.endReason }).toEqual({ timedOut: true, hungUp: false, endReason: null });
  });

  it('a failing mind ends the call with mind_error, a frozen cache miss with cache_miss; utterances after the end are only heard', async () => {
    const failing: CallerMind = { kind: 'llm', open: async () => say('Hello.'), reply: () => Promise.reject(new Error('chat endpoint down')) };
    const log = new CallerLog();
    const broken = loopOf(failing, { log });
    broken.loop.connected();
    agentSays(broken.loop, 'u_000000000001', 'Welcome.');
    agentSays(broken.loop, 'u_000000000002', 'How can I help?');
    await settle();
    expect([broken.outside.closes, broken.loop.endReason]).toEqual([['caller hangup'], 'mind_error']);
    agentSays(broken.loop, 'u_000000000003', 'Hello? Still there?');
    await broken.loop.closed();
    expect(log.turns.map((t) => `${t.side}:${t.text}`)).toEqual(['agent:Welcome.', 'caller:Hello.', 'agent:How can I help?', 'agent:Hello? Still there?']);
    expect(broken.loop.state).toBe('ended');

    const frozen: CallerMind = { kind: 'llm', open: () => Promise.reject(new CacheMissError('no entry')), reply: async () => say('never') };
    const missed = loopOf(frozen);
    missed.loop.connected();
    agentSays(missed.loop, 'u_000000000001', 'Welcome.');
    await settle();
    expect(missed.loop.endReason).toBe('cache_miss');
    expect(linesStarted(missed.outside)).toBe(0);
  });
});
