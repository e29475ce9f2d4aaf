import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../src/snapshot/index.ts';
import { ElevenLabsStandIn } from '../support/elevenlabs-agent.ts';
import { packOf } from '../support/episode-rig.ts';
import { runRelay, type RelayRun } from '../support/relay-run.ts';

/**
 * Issue 34, acceptance 2: `mivas run --pack control-industry --harness relay/elevenlabs --trials 3`
 * against a strict loopback ElevenLabs Agents conversation socket (test/support/elevenlabs-agent.ts,
 * client messages checked against `@elevenlabs/types` 0.23.0). The agent's client tools are
 * recorded as the agent's own calls; the transfer the platform executes itself (named the team's
 * way, `transfer_to_booking_desk`, mapped by MIVAS_RELAY_DESK_MAP) becomes the handoff, with origin
 * `platform`, before the specialist's first tool; pass^3 = 100%.
 */

const PACK = 'control-industry';

describe('relay/elevenlabs: mivas run against a strict Agents conversation socket', () => {
  let standIn: ElevenLabsStandIn;
  let run: RelayRun;

  beforeAll(async () => {
    standIn = await ElevenLabsStandIn.start({ pack: await packOf(PACK), nodeOf: { scheduler: 'booking_desk' } });
    run = await runRelay(PACK, 'relay/elevenlabs', 3, (dir) => {
      writeFileSync(join(dir, 'desks.json'), JSON.stringify({ desks: { booking_desk: 'scheduler' } }));
      return { MIVAS_RELAY_ELEVENLABS_BASE_URL: standIn.baseUrl, MIVAS_RELAY_ELEVENLABS_AGENT_ID: standIn.agentId, MIVAS_RELAY_DESK_MAP: join(dir, 'desks.json') };
    });
  }, 240_000);

  afterAll(async () => {
    await standIn?.close();
    run?.dispose();
  });

  it('passes every task three times (pass^3 = 100%), the stand-in refusing nothing mivas sent', () => {
    expect(run.code).toBe(0);
    const conversations = run.scores();
    expect(conversations).toHaveLength(9);
    expect(conversations.map((c) => [c.status, c.reward])).toEqual(conversations.map(() => ['PASS', 1]));
    expect(run.out).toMatch(/pass\^3 1\.000/);
    expect(standIn.violations).toEqual([]);
    expect(standIn.conversations.map((c) => c.callId).sort()).toEqual(conversations.map((c) => c.conversation_id).sort());
  });

  it('records client tools as the agent\'s own calls and the platform\'s transfer as the handoff (origin platform) before the specialist\'s first tool', () => {
    for (const call of run.scores()) {
      const events = run.timeline(call.conversation_id);
      const tools = events.filter((e): e is Extract<TimelineEvent, { type: 'tool' }> => e.type === 'tool');
      expect(tools[0]).toMatchObject({ name: 'transfer_to_scheduler', origin: 'platform', agent: 'reception', executed: true, tool_call_id: null });
      for (const t of tools.slice(1)) expect([t.origin, t.agent, t.executed, t.tool_call_id?.startsWith('toolu_')]).toEqual([undefined, 'scheduler', true, true]);
      expect(tools.at(-1)?.name).toBe('end_call');
      expect(events.filter((e) => e.type === 'handoff')).toHaveLength(1);
      expect(events.some((e) => e.type === 'nudge')).toBe(false);
    }
  });
});
