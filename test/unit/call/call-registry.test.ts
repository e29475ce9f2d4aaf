import { describe, expect, it } from 'vitest';
import { CallRegistry } from '../../../src/call/call-registry.ts';
import type { CallSession } from '../../../src/call/call-session.ts';

/** The two things the registry reads of a call (its id and when it finishes), with a finish the test triggers. */
function fakeCall(callId: string): { session: CallSession; finish(): Promise<void> } {
  let resolve: () => void = () => undefined;
  const finished = new Promise<void>((r) => (resolve = r));
  const session = { identity: { callId, runId: null, taskId: null }, finished: () => finished } as unknown as CallSession;
  return {
    session,
    finish: async () => {
      resolve();
      await finished;
      await new Promise((r) => setImmediate(r));
    },
  };
}

function settled(promise: Promise<void>): () => boolean {
  let done = false;
  void promise.then(() => (done = true));
  return () => done;
}

describe('CallRegistry', () => {
  it('reserves up to its capacity, counting reservations and live calls alike', () => {
    const registry = new CallRegistry(2);
    expect(registry.reserve('a')).toBeNull();
    registry.activate(fakeCall('a').session);
    expect(registry.reserve('b')).toBeNull();
    expect(registry.count()).toBe(2);
    expect(registry.reserve('c')).toBe('capacity');
    expect(registry.isActive('c')).toBe(false);
  });

  it('refuses an id that is reserved or live as a duplicate, before capacity', () => {
    const registry = new CallRegistry(1);
    expect(registry.reserve('a')).toBeNull();
    expect(registry.reserve('a')).toBe('duplicate');
    registry.activate(fakeCall('a').session);
    expect(registry.reserve('a')).toBe('duplicate');
  });

  it('frees the slot of a cancelled reservation', () => {
    const registry = new CallRegistry(1);
    registry.reserve('a');
    registry.cancel('a');
    expect(registry.isActive('a')).toBe(false);
    expect(registry.reserve('b')).toBeNull();
  });

  it('turns a reservation into a live call, found by id, and forgets it when it finishes', async () => {
    const registry = new CallRegistry(1);
    const call = fakeCall('a');
    registry.reserve('a');
    registry.activate(call.session);
    expect(registry.count()).toBe(1);
    expect(registry.get('a')).toBe(call.session);
    expect(registry.sessions()).toEqual([call.session]);
    await call.finish();
    expect(registry.get('a')).toBeUndefined();
    expect(registry.sessions()).toEqual([]);
    expect(registry.count()).toBe(0);
    expect(registry.reserve('a')).toBeNull();
  });

  it('refuses every reservation while draining, even with room', () => {
    const registry = new CallRegistry(5);
    expect(registry.isDraining()).toBe(false);
    registry.startDraining();
    expect(registry.isDraining()).toBe(true);
    expect(registry.reserve('a')).toBe('draining');
    expect(registry.count()).toBe(0);
  });

  it('is idle at once with no calls', async () => {
    await expect(new CallRegistry(1).whenIdle()).resolves.toBeUndefined();
  });

  it('becomes idle only once every live call has finished and every reservation is gone', async () => {
    const registry = new CallRegistry(3);
    const a = fakeCall('a');
    const b = fakeCall('b');
    registry.reserve('a');
    registry.activate(a.session);
    registry.reserve('b');
    registry.reserve('c');
    const idle = settled(registry.whenIdle());
    await a.finish();
    expect(idle()).toBe(false);
    registry.cancel('c');
    await new Promise((r) => setImmediate(r));
    expect(idle()).toBe(false);
    // The reservation for b becomes a call; idle waits for that call too.
    registry.activate(b.session);
    await new Promise((r) => setImmediate(r));
    expect(idle()).toBe(false);
    await b.finish();
    expect(idle()).toBe(true);
  });
});
