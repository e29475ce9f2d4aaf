import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerScriptOf } from '../../src/packs/index.ts';
import { ruleBrain, runWithCaller, standInCaller } from '../support/caller-rig.ts';
import { OpenAICompatibleStandIn } from '../support/openai-compatible.ts';
import { SCORED_PACKS } from '../support/scored-packs.ts';
import { startTestServer } from '../support/server.ts';
import { modemSynth } from '../support/text-modem.ts';

/**
 * Issue 16, acceptance 1 (first half): with stand-ins only, an `llm`-caller voice run of one task
 * per scored pack against the `scripted` harness passes. The agent speaks modem audio, so the
 * transcription stand-in hears its real words; the chat stand-in plays the caller model; the
 * mouth goes through the speech stand-in (24 kHz PCM, resampled by the caller).
 */
describe.each(SCORED_PACKS)('llm caller against the scripted harness on %s', (packId) => {
  let standIn: OpenAICompatibleStandIn;
  beforeAll(async () => {
    standIn = await OpenAICompatibleStandIn.start({
      chat: ruleBrain([
        { when: /goodbye/i, choice: { tool: 'say_closing_line', args: { line: 1 } } },
        { when: /let me take care of that/i, choice: { tool: 'stay_silent' } },
      ]),
    });
  });
  afterAll(async () => {
    await standIn?.close();
  });

  it('converses, is recorded, and the call scores PASS', async () => {
    const server = await startTestServer({ MIVAS_PACK: packId, MIVAS_HARNESS: 'scripted', MIVAS_FAST: '1' }, { synth: modemSynth(16_000) });
    try {
      const task = [...server.ctx.pack.tasks.values()].find((t) => !t.variant_of && t.metadata.difficulty === 'easy' && t.scripted_responses.length > 0);
      if (!task) throw new Error(`${packId} has no easy task with pins`);
      const script = callerScriptOf(task);
      const run = await runWithCaller(server, standInCaller(standIn, {}, 'endpoint'), [task.task_id]);
      const [call] = run.calls;
      const verdict = run.score.conversations.find((c) => c.conversation_id === call?.callId);
      expect(verdict?.status, JSON.stringify(verdict?.void_detail ?? verdict?.fail_reasons)).toBe('PASS');
      const file = run.callerFiles.get(call?.callId ?? '');
      if (!file) throw new Error('no caller file');
      // Both sides, in order: the agent's greeting heard word for word, the task's opening line said.
      // Every agent utterance is heard, in order and word for word (the scripted agent ends the call
      // right after its farewell, so the caller may or may not get to answer the last ones).
      const agentLines = file.turns.filter((t) => t.side === 'agent').map((t) => t.text);
      expect(agentLines).toEqual([server.ctx.pack.blueprint.greeting, 'Sure, let me take care of that.', 'Thank you for calling. Goodbye.']);
      const callerLines = file.turns.filter((t) => t.side === 'caller');
      expect(callerLines[0]).toMatchObject({ text: script.openingLine, source: 'opening' });
      expect(file.turns.findIndex((t) => t.side === 'caller')).toBe(1);
      // Whatever the model was asked went at temperature 0 with the trial's seed, and is recorded.
      const chats = file.exchanges.filter((e) => e.kind === 'chat');
      for (const exchange of chats) {
        expect(exchange.request).toMatchObject({ model: 'caller-model-standin', temperature: 0, seed: file.seed, tool_choice: 'required' });
        expect(exchange).toMatchObject({ system_fingerprint: 'fp_standin01', prompt_hash: file.prompt_hash, cached: false });
      }
      expect(standIn.chatRequests().filter((r) => r.seed === file.seed)).toHaveLength(chats.length);
      expect(file.usage.transcription_requests).toBe(3);
      const heard = standIn.of('/v1/audio/transcriptions').at(-1);
      expect(heard?.headers.authorization).toBe('Bearer sk-caller-test');
      expect(heard?.body).toMatchObject({ model: 'whisper-standin', response_format: 'json', temperature: '0', language: 'en', file: { name: 'agent.wav', type: 'audio/wav', rate_hz: 16_000, channels: 1 } });
      expect(standIn.of('/v1/audio/speech').at(-1)?.body).toMatchObject({ model: 'tts-standin', response_format: 'pcm', voice: file.mouth.voice });
      expect(file.usage.speech_requests).toBe(callerLines.length);
      expect(file.cost_usd_est).toBeGreaterThan(0);
      expect(file.mouth).toEqual({ engine: 'speech-endpoint', voice: expect.stringMatching(/^(alloy|coral|sage)$/) });
    } finally {
      await server.close();
    }
  }, 90_000);
});
