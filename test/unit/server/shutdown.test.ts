import { describe, expect, it } from 'vitest';
import { Shutdown, type ShutdownDeps } from '../../../src/server/shutdown.ts';

/** A shutdown whose drain runs until the test ends it (or the cut asks it to), recording what happened. */
function harness(isTerminal: boolean) {
  const events: string[] = [];
  let endDrain: () => void = () => undefined;
  const deps: ShutdownDeps = {
    isTerminal,
    log: { info: (_o: object, msg: string) => events.push(`info:${msg}`), warn: (_o: object, msg: string) => events.push(`warn:${msg}`), error: (_o: object, msg: string) => events.push(`error:${msg}`), debug: () => undefined } as unknown as ShutdownDeps['log'],
    drain: (cut) => {
      events.push('drain');
      void cut.then(() => events.push('cut'));
      return new Promise<void>((resolve) => (endDrain = resolve));
    },
    exitNow: (code) => events.push(`exit:${code}`),
    liveCalls: () => ['a', 'b'],
  };
  return { shutdown: new Shutdown(deps), events, endDrain: () => endDrain() };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Shutdown (signals of mivas serve)', () => {
  it('starts one drain on the first SIGTERM and keeps draining through every later one', async () => {
    const { shutdown, events, endDrain } = harness(false);
    for (let i = 0; i < 5; i++) shutdown.signal('SIGTERM');
    shutdown.signal('SIGINT');
    await settle();
    expect(events.filter((e) => e === 'drain')).toHaveLength(1);
    expect(events).not.toContain('cut');
    expect(events.some((e) => e.startsWith('exit'))).toBe(false);
    let finished = false;
    void shutdown.finished().then(() => (finished = true));
    await settle();
    expect(finished).toBe(false);
    endDrain();
    await settle();
    expect(finished).toBe(true);
  });

  it('from a terminal: a second Ctrl-C cuts the drain short, a third exits at once', async () => {
    const { shutdown, events } = harness(true);
    shutdown.signal('SIGINT');
    shutdown.signal('SIGTERM'); // a SIGTERM in between changes nothing
    await settle();
    expect(events).not.toContain('cut');
    shutdown.signal('SIGINT');
    await settle();
    expect(events).toContain('cut');
    expect(events.some((e) => e.startsWith('exit'))).toBe(false);
    shutdown.signal('SIGINT');
    expect(events.at(-1)).toBe('exit:130');
  });
});
