import { describe, expect, it } from 'vitest';
import type { SpeechSynth } from '../../../src/audio/index.ts';
import { LocalModelSession, type ResponsePart } from '../../../src/providers/local-session.ts';

/** A synth whose speech resolves only when the test says so, so a cancel can land mid-response. */
function gatedSynth(): SpeechSynth & { release(): void } {
  const pending: (() => void)[] = [];
  return {
    engine: 'tones',
    synthesize: () => new Promise<Buffer>((resolve) => pending.push(() => resolve(Buffer.alloc(6_400)))),
    release: () => {
      for (const go of pending.splice(0)) go();
    },
  };
}

/** A local session that answers each request with the given parts. */
class FixedSession extends LocalModelSession {
  readonly provider = 'fixed';
  private readonly parts: ResponsePart[];

  constructor(
    synth: SpeechSynth,
    parts: ResponsePart[],
  ) {
    super(synth);
    this.parts = parts;
  }
  protected nextResponse(): ResponsePart[] {
    return this.parts;
  }
  protected onCallerTurn(): void {}
  protected onToolOutput(): void {}
}

function recorded(session: LocalModelSession): string[] {
  const log: string[] = [];
  session.events.on('responseStarted', (id) => log.push(`started:${id}`));
  session.events.on('audio', (item) => log.push(`audio:${item}`));
  session.events.on('functionCall', (call) => log.push(`call:${call.name}`));
  session.events.on('responseDone', (done) => log.push(`done:${done.status}`));
  return log;
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LocalModelSession.cancelResponse', () => {
  const parts: ResponsePart[] = [{ say: 'One moment.' }, { call: { name: 'lookup', args: {} } }];

  it('stops the response in progress: no speech, no call, and its done reports cancelled', async () => {
    const synth = gatedSynth();
    const session = new FixedSession(synth, parts);
    const log = recorded(session);
    session.requestResponse();
    session.cancelResponse();
    synth.release();
    await flush();
    expect(log).toEqual(['started:resp_1', 'done:cancelled']);
  });

  it('leaves the next response whole', async () => {
    const synth = gatedSynth();
    const session = new FixedSession(synth, parts);
    const log = recorded(session);
    session.requestResponse();
    session.cancelResponse();
    synth.release();
    await flush();
    session.requestResponse();
    await flush();
    synth.release();
    await flush();
    expect(log.slice(2)).toEqual(['started:resp_2', 'audio:item_3', 'audio:item_3', 'call:lookup', 'done:completed']);
  });

  it('does nothing when no response is in progress', async () => {
    const synth = gatedSynth();
    const session = new FixedSession(synth, parts);
    const log = recorded(session);
    session.cancelResponse();
    session.requestResponse();
    await flush();
    synth.release();
    await flush();
    expect(log.at(-1)).toBe('done:completed');
    expect(log).toContain('call:lookup');
  });
});
