import { describe, expect, it } from 'vitest';
import { toneSpeech } from '../../../src/audio/index.ts';
import { EnergyVad, levelDbfs, playedText, SentenceSplitter, sseData } from '../../../src/providers/index.ts';
import { chatProblem, speechProblem } from '../../support/cascade-endpoints-server.ts';

function body(text: string, pieces = 3): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil(bytes.length / pieces);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.subarray(i, i + size));
      controller.close();
    },
  });
}

async function all(gen: AsyncGenerator<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of gen) out.push(d);
  return out;
}

describe('sseData', () => {
  it('joins data lines per event across chunk edges, skips comments, accepts CRLF and a last event without a blank line', async () => {
    const text = ': keep-alive\r\ndata: {"a":1}\r\n\r\nevent: x\ndata: line1\ndata: line2\n\ndata: [DONE]';
    expect(await all(sseData(body(text, 7)))).toEqual(['{"a":1}', 'line1\nline2', '[DONE]']);
  });
});

describe('EnergyVad', () => {
  const options = { rateHz: 16_000, thresholdDbfs: -35, startMs: 100, endpointMs: 500 };

  it('opens a turn after 100 ms of speech and closes it after 500 ms of silence, counted in samples', () => {
    const vad = new EnergyVad(options);
    const speech = toneSpeech('book a repair visit', 16_000);
    expect(levelDbfs(speech)).toBeGreaterThan(-35);
    expect(vad.push(Buffer.alloc(32 * 1_000))).toEqual([]);
    expect(vad.push(speech)).toEqual(['started']);
    // The speech ends with a 60 ms word gap: 400 ms more is still inside the 500 ms endpoint.
    expect(vad.push(Buffer.alloc(32 * 400))).toEqual([]);
    expect(vad.push(Buffer.alloc(32 * 60))).toEqual(['ended']);
    expect(vad.inSpeech()).toBe(false);
  });

  it('ignores a click shorter than the start run, and word gaps shorter than the endpoint', () => {
    const vad = new EnergyVad(options);
    expect(vad.push(toneSpeech('a', 16_000).subarray(0, 32 * 60))).toEqual([]);
    expect(vad.push(Buffer.alloc(32 * 200))).toEqual([]);
    const words = toneSpeech('one two three four', 16_000);
    expect(vad.push(words)).toEqual(['started']);
    expect(vad.inSpeech()).toBe(true);
  });
});

describe('SentenceSplitter', () => {
  it('cuts streamed text at sentence ends and line breaks, keeping decimals together', () => {
    const s = new SentenceSplitter();
    expect(s.push('It costs 3.5 dollars. Is ')).toEqual(['It costs 3.5 dollars.']);
    expect(s.push('that ok?" Yes\nNext')).toEqual(['Is that ok?"', 'Yes']);
    expect(s.flush()).toEqual(['Next']);
    expect(s.flush()).toEqual([]);
  });
});

describe('playedText', () => {
  const segments = [
    { text: 'One two three four.', startMs: 0, endMs: 1_000 },
    { text: 'Five six seven eight.', startMs: 1_000, endMs: 2_000 },
  ];
  it('keeps whole sentences played to the end and the share of words of the one cut', () => {
    expect(playedText({ segments, playedMs: null })).toBe('One two three four. Five six seven eight.');
    expect(playedText({ segments, playedMs: 1_500 })).toBe('One two three four. Five six');
    expect(playedText({ segments, playedMs: 200 })).toBe('');
    expect(playedText({ segments, playedMs: 1_000 })).toBe('One two three four.');
  });
});

describe('the strict cascade stand-ins', () => {
  const chat = { model: 'm', messages: [{ role: 'system', content: 'Be brief.' }], stream: true, stream_options: { include_usage: true } };

  it('take a request of the openai package shapes', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'end_call', arguments: '{}' } };
    expect(chatProblem({ ...chat, messages: [...chat.messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] })).toBeNull();
    expect(speechProblem({ model: 'kokoro', input: 'Hello.', voice: 'af_heart', response_format: 'pcm' })).toBeNull();
  });

  it('refuse unknown and missing fields, and a tool message no assistant call asked for', () => {
    expect(chatProblem({ ...chat, temperature_hint: 1 })).toContain('temperature_hint');
    expect(chatProblem({ ...chat, stream_options: undefined })).toContain('stream_options');
    expect(chatProblem({ ...chat, messages: [...chat.messages, { role: 'tool', tool_call_id: 'call_9', content: '{}' }] })).toContain('call_9');
    expect(speechProblem({ model: 'kokoro', input: 'Hello.', response_format: 'pcm' })).toContain('voice');
  });
});
