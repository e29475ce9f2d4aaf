import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferredHop, listenToPlatform, type PlatformCallHost } from '../../../src/call/index.ts';
import { TypedEmitter } from '../../../src/core/index.ts';
import { Conversation, type DispatchRequest } from '../../../src/conversation/index.ts';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import type { ModelSessionEvents } from '../../../src/providers/index.ts';
import { Timeline } from '../../../src/snapshot/index.ts';
import { CallDatabases, ensureTemplate } from '../../../src/store/index.ts';

/**
 * Calls a platform already made (issue 34): a reported transfer is dispatched with origin
 * `platform` and applied to the conversation, nothing is sent back, nothing is recorded once the
 * call is ending; observe mode infers only a declared, unambiguous hop.
 */
describe('platform-executed calls', () => {
  let dir: string;
  let pack: Pack;
  let dbs: CallDatabases;
  let n = 0;
  const open = (): Conversation => Conversation.open({ pack, id: `plat_${++n}`, databases: dbs, timeline: new Timeline(() => 0), nowMs: () => 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mivas-platform-calls-'));
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
    dbs = new CallDatabases(join(dir, 'calls'), ensureTemplate(join(dir, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A host that runs platform calls on a real conversation, as the call does. */
  function hostOn(conversation: Conversation): PlatformCallHost & { hungUp: number; ending: boolean } {
    return {
      hungUp: 0,
      ending: false,
      isEnding() {
        return this.ending;
      },
      dispatch: (request: Omit<DispatchRequest, 'origin'>, origin) => conversation.dispatch({ ...request, origin }),
      agentHungUp() {
        this.hungUp++;
      },
    };
  }

  it('records a transfer the platform made with origin platform and applies it; platform calls after the ending are ignored, a hang-up is not', () => {
    const conversation = open();
    const events = new TypedEmitter<ModelSessionEvents>();
    const host = hostOn(conversation);
    const stop = listenToPlatform(events, host);
    events.emit('platformCall', { name: 'transfer_to_scheduler', arguments: '{}', origin: 'platform' });
    expect(conversation.activeAgent()).toBe('scheduler');
    const hop = conversation.timeline.events().find((e) => e.type === 'tool');
    expect(hop).toMatchObject({ name: 'transfer_to_scheduler', origin: 'platform', executed: true, tool_call_id: null });
    host.ending = true;
    events.emit('platformCall', { name: 'book_appointment', arguments: '{"date":"2026-10-07"}', origin: 'platform' });
    expect(conversation.timeline.events().filter((e) => e.type === 'tool')).toHaveLength(1);
    // A hang-up still reaches the call while it is ending: nothing is left to wait for but playback.
    events.emit('agentHangup');
    expect(host.hungUp).toBe(1);
    stop();
    events.emit('agentHangup');
    expect(host.hungUp).toBe(1);
  });

  it('infers the declared hop to the one desk that owns the tool, and nothing when the active desk owns it or no edge leads there', () => {
    const conversation = open();
    expect(inferredHop(conversation, 'book_appointment')).toMatchObject({ name: 'transfer_to_scheduler', toolCallId: null });
    expect(inferredHop(conversation, 'end_call')).toBeNull();
    expect(inferredHop(conversation, 'no_such_tool')).toBeNull();
    conversation.dispatch({ toolCallId: null, name: 'transfer_to_scheduler', rawArguments: {} });
    expect(inferredHop(conversation, 'book_appointment')).toBeNull();
    expect(inferredHop(conversation, 'transfer_to_scheduler')).toBeNull();
  });
});
