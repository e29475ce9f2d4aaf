import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openingLineOf } from '../../src/caller/index.ts';
import type { TimelineEvent } from '../../src/snapshot/index.ts';
import { packOf } from '../support/episode-rig.ts';
import { runRelay, type RelayRun } from '../support/relay-run.ts';
import { TwilioMsBot } from '../support/twilio-ms-bot.ts';

/**
 * Issue 34, acceptance 1: `mivas run --pack control-industry --harness relay/twilio-ms --trials 3`
 * against a strict loopback Twilio Media Streams bot (test/support/twilio-ms-bot.ts, frames as in
 * https://www.twilio.com/docs/voice/media-streams/websocket-messages, signature checked with the
 * `twilio` package's `validateRequest`). The caller still dials mivas over CHIRP (speaking the
 * test modem); mivas dials the bot as Twilio would; the bot decodes the caller through the 8 kHz
 * mu-law leg, plays each task's reference route through the platform tool routes with the call id
 * from `start.customParameters`, and hangs up. Every task passes with reward 1.0, and each
 * snapshot shows the bot's tool calls and the handoff path.
 */

const PACK = 'control-industry';
const PLATFORM_TOKEN = 'platform-test-token';
const AUTH_TOKEN = 'twilio-auth-token-test';

describe('relay/twilio-ms: mivas run against a strict Media Streams bot', () => {
  let bot: TwilioMsBot;
  let run: RelayRun;

  beforeAll(async () => {
    bot = await TwilioMsBot.start({ pack: await packOf(PACK), platformToken: PLATFORM_TOKEN, authToken: AUTH_TOKEN });
    run = await runRelay(PACK, 'relay/twilio-ms', 3, () => ({ MIVAS_RELAY_TWILIO_URL: bot.url, MIVAS_RELAY_TWILIO_AUTH_TOKEN: AUTH_TOKEN, MIVAS_PLATFORM_TOKEN: PLATFORM_TOKEN }));
  }, 240_000);

  afterAll(async () => {
    await bot?.close();
    run?.dispose();
  });

  it('passes every task of the pack three times with reward 1.0 (exit 0), and the bot saw only well-formed, signed Twilio frames', () => {
    expect(run.err).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const conversations = run.scores();
    expect(conversations).toHaveLength(9);
    expect(conversations.map((c) => [c.status, c.reward])).toEqual(conversations.map(() => ['PASS', 1]));
    expect(bot.violations).toEqual([]);
    expect(bot.calls).toHaveLength(9);
  });

  it('gave the bot mivas\'s call id in start.customParameters, and the bot decoded the caller\'s opening line through the mu-law leg', () => {
    const ids = run.scores().map((c) => c.conversation_id).sort();
    expect(bot.calls.map((c) => c.start?.customParameters.mivas_call_id).sort()).toEqual(ids);
    for (const call of bot.calls) expect(call.heard[0]).toBe(call.task ? openingLineOf(call.task.intent) : 'no task');
  });

  it('records each of the bot\'s tool calls (origin http) and the handoff path in the call\'s snapshot, with no nudge and the bot\'s hang-up after end_call', () => {
    for (const call of run.scores()) {
      const events = run.timeline(call.conversation_id);
      const tools = events.filter((e): e is Extract<TimelineEvent, { type: 'tool' }> => e.type === 'tool');
      expect(tools.map((t) => t.origin)).toEqual(tools.map(() => 'http'));
      expect(tools[0]).toMatchObject({ name: 'transfer_to_scheduler', agent: 'reception', executed: true });
      expect(tools.map((t) => t.name)).toContain('end_call');
      expect(tools.some((t) => t.kind === 'industry' && t.agent === 'scheduler' && t.executed)).toBe(true);
      expect(events.filter((e) => e.type === 'handoff').map((e) => (e.type === 'handoff' ? `${e.from}>${e.to}` : ''))).toEqual(['reception>scheduler']);
      expect(events.some((e) => e.type === 'nudge')).toBe(false);
      expect(events.at(-1)).toMatchObject({ type: 'call.ended', end_reason: 'agent_end_call' });
    }
  });
});
