import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededIds } from '../../src/core/index.ts';
import { AgentPlayer, ruleBrain, runWithCaller, standInCaller, type BrainRule, type CallerRun } from '../support/caller-rig.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';
import { RealtimeStandIn } from '../support/realtime-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PACK = 'healthcare';
const TASK = 'C1-E1';
const GREETING = 'Thank you for calling Straus Dermatology. How can I help you today?';

/**
 * Issue 16, acceptance 3: a deviating caller stand-in yields a VOID with a typed reason and its
 * evidence, not a FAIL. The realtime stand-in plays the agent; the chat stand-in plays a caller
 * model that breaks its task.
 */
describe('caller deviations are voids, not fails', () => {
  let realtime: RealtimeStandIn;
  let server: TestServer;
  let runs = 0;

  const dial = async (rules: readonly BrainRule[], playAgent: (agent: AgentPlayer) => Promise<void>): Promise<CallerRun> => {
    const standIn = await OpenAICompatibleStandIn.start({ chat: ruleBrain(rules) });
    try {
      const running = runWithCaller(server, standInCaller(standIn), [TASK], { ids: seededIds(`deviation-${++runs}`) });
      await playAgent(new AgentPlayer(await realtime.nextConnection()));
      return await running;
    } finally {
      await standIn.close();
    }
  };

  beforeAll(async () => {
    realtime = await RealtimeStandIn.start();
    server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_HARNESS: 'openai/realtime', MIVAS_FAST: '1', OPENAI_API_KEY: 'sk-test', MIVAS_OPENAI_BASE_URL: realtime.baseUrl('/v1') });
  });
  afterAll(async () => {
    await server?.close();
    await realtime?.close();
  });

  it('hangs up before the graded call with no closing line → VOID caller_deviation (hung_up_early)', async () => {
    const run = await dial([{ when: /one moment/i, choice: { tool: 'hang_up' } }], async (agent) => {
      await agent.greet(GREETING);
      await agent.callerLine(1);
      agent.say('Let me check that for you. One moment please.');
    });
    expect(run.reports[0]).toMatchObject({ hungUp: true, endReason: 'model_hangup', closeCode: 1000 });
    const verdict = run.score.conversations[0];
    expect(verdict).toMatchObject({ status: 'VOID', void_reason: 'caller_deviation', combined_pass: null });
    expect(verdict?.void_detail).toEqual(['hung_up_early:model_hangup before check_plan_accepted']);
    // Voids stay out of the scored count, so they never enter pass^k.
    expect(run.score.aggregates.status).toMatchObject({ void: 1, fail: 0, voids_by_type: { caller_deviation: 1 } });
  }, 60_000);

  it('states a date of birth that is not in its traits or intent → VOID caller_deviation (invented_fact)', async () => {
    const run = await dial(
      [
        { when: /date of birth/i, choice: { tool: 'say_line', args: { text: "Sure, it's June fifth, nineteen ninety." } } },
        { when: /anything else/i, choice: { tool: 'say_pin', args: { pin: 4 } } },
      ],
      async (agent) => {
        await agent.greet(GREETING);
        await agent.callerLine(1);
        agent.say('Before I check, may I have your date of birth?');
        await agent.callerLine(2);
        // Otherwise the agent does everything right: this call would PASS.
        await agent.call('transfer_to_coverage');
        await agent.call('check_plan_accepted', { carrier: 'Aetna', location_id: 'loc_park_ave' });
        agent.say('Yes, our Park Avenue office accepts Aetna. Is there anything else I can help you with?');
        await agent.callerLine(3);
      },
    );
    expect(run.reports[0]).toMatchObject({ hungUp: true, endReason: 'closing_line' });
    const verdict = run.score.conversations[0];
    expect(verdict).toMatchObject({ status: 'VOID', void_reason: 'caller_deviation' });
    expect(verdict?.void_detail).toEqual([`invented_fact:date:06-05,num:1990 in "Sure, it's June fifth, nineteen ninety."`]);
  }, 60_000);

  it('the same caller without the invention scores PASS (the check voids only the deviation)', async () => {
    const run = await dial([{ when: /anything else/i, choice: { tool: 'say_pin', args: { pin: 4 } } }], async (agent) => {
      await agent.greet(GREETING);
      await agent.callerLine(1);
      await agent.call('transfer_to_coverage');
      await agent.call('check_plan_accepted', { carrier: 'Aetna', location_id: 'loc_park_ave' });
      agent.say('Yes, our Park Avenue office accepts Aetna. Is there anything else I can help you with?');
      await agent.callerLine(2);
    });
    expect(run.score.conversations[0]).toMatchObject({ status: 'PASS', void_reason: null });
  }, 60_000);
});
