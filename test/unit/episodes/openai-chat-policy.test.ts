import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatPolicy } from '../../../src/episodes/index.ts';
import { summarySchema } from '../../../src/snapshot/index.ts';
import { episodePack, playEpisode, routedTask, type EpisodePack } from '../../support/episode-rig.ts';
import { PolicyChatServer, routeBrain } from '../../support/policy-chat-server.ts';

let rig: EpisodePack;
let chat: PolicyChatServer;

beforeAll(async () => {
  rig = await episodePack('healthcare');
  chat = await PolicyChatServer.start(() => ({ content: null }), { apiKey: 'sk-policy' });
}, 60_000);

afterAll(async () => {
  rig.close();
  await chat.close();
});

const policy = () => openAiChatPolicy({ baseUrl: chat.baseUrl, model: 'stand-in-1', apiKey: 'sk-policy', seed: 7 });

describe('the text/openai-chat policy harness', () => {
  it('plays a task through a chat-completions endpoint with tools and passes with reward 1', async () => {
    const task = routedTask(rig.pack);
    chat.useBrain(routeBrain(rig.pack, task));
    const before = chat.requests.length;
    const result = await playEpisode(rig, policy(), task);
    expect(result, result.reasons.join('\n')).toMatchObject({ status: 'PASS', reward: 1, harness: 'text/openai-chat' });
    const requests = chat.requests.slice(before);
    const first = requests[0];
    expect(first?.model).toBe('stand-in-1');
    expect(first?.messages.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(first?.messages[2]?.content).toContain('Aetna');
    expect(first?.tools?.map((t) => t.function.name)).toContain('transfer_to_coverage');
    expect(first?.tools?.map((t) => t.function.name)).not.toContain('check_plan_accepted');
    // After the native handoff the system message and the tools are the new desk's.
    const afterHop = requests.find((r) => r.messages.some((m) => m.role === 'tool' && (m.content ?? '').includes('"assistant":"coverage"')));
    expect(afterHop?.messages[0]?.content).toContain('You have just taken over this call');
    expect(afterHop?.tools?.map((t) => t.function.name)).toContain('check_plan_accepted');
    const summary = summarySchema.parse(JSON.parse(String(rig.stored.get(result.snapshot)?.get('summary.json'))));
    expect(summary).toMatchObject({ harness: 'text/openai-chat', model: 'stand-in-1' });
    expect(summary.usage.input_text_tokens).toBe(100 * requests.length);
  });

  it('says a plain-text reply to the caller and hands the caller\'s answer back as the next user message', async () => {
    const task = routedTask(rig.pack);
    chat.useBrain(routeBrain(rig.pack, task, { asText: true, bridge: 'Let me look into that.' }));
    const before = chat.requests.length;
    const result = await playEpisode(rig, policy(), task);
    expect(result.status).toBe('PASS');
    const second = chat.requests[before + 1];
    expect(second?.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'Let me look into that.' },
      { role: 'user', content: '(the caller says nothing: still on the line, waiting for you to go on)' },
    ]);
    const timeline = String(rig.stored.get(result.snapshot)?.get('timeline.json'));
    expect(timeline).toContain('Let me look into that.');
  });

  it('passes arguments that are not JSON to the engine, which refuses them with INVALID_ARGUMENTS', async () => {
    const task = routedTask(rig.pack);
    let n = 0;
    chat.useBrain(() => (n++ === 0 ? { toolCalls: [{ name: 'list_locations', arguments: '{not json' }] } : { content: null }));
    const before = chat.requests.length;
    const result = await playEpisode(rig, policy(), task);
    expect(result).toMatchObject({ status: 'FAIL', truncated: 'policy_stopped' });
    const toolMessage = chat.requests[before + 1]?.messages.at(-1);
    expect(JSON.parse(toolMessage?.content ?? '{}')).toMatchObject({ ok: false, error_code: 'INVALID_ARGUMENTS' });
  });

  it('ends the episode as provider_error (a void, not a fail) when the endpoint fails', async () => {
    const broken = openAiChatPolicy({ baseUrl: chat.baseUrl, model: 'stand-in-1', apiKey: 'wrong-key' });
    const result = await playEpisode(rig, broken, routedTask(rig.pack));
    expect(result).toMatchObject({ status: 'VOID', valid: false, end_reason: 'provider_error' });
    expect(result.reasons).toContain('void: provider_error');
  });
});
