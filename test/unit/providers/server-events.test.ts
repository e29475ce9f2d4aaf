import { describe, expect, it } from 'vitest';
import { parseServerEvent, usageFromProvider } from '../../../src/providers/index.ts';

describe('parseServerEvent (architecture.md convention 5: a tagged result, never a throw)', () => {
  it('parses the GA events the session acts on', () => {
    expect(parseServerEvent(JSON.stringify({ type: 'response.output_audio.delta', item_id: 'i1', delta: 'AAA=', response_id: 'r', extra: 1 }))).toEqual({
      kind: 'known',
      event: { type: 'response.output_audio.delta', item_id: 'i1', delta: 'AAA=' },
    });
    const done = parseServerEvent(JSON.stringify({ type: 'response.done', response: { id: 'r1', status: 'cancelled', usage: null } }));
    expect(done).toEqual({ kind: 'known', event: { type: 'response.done', response: { id: 'r1', status: 'cancelled', usage: null } } });
  });

  it('renames beta events to GA (wire.md §2.8)', () => {
    expect(parseServerEvent(JSON.stringify({ type: 'response.audio.delta', item_id: 'i', delta: '' }))).toMatchObject({ kind: 'known', event: { type: 'response.output_audio.delta' } });
    expect(parseServerEvent(JSON.stringify({ type: 'response.audio_transcript.done', transcript: 'hi' }))).toMatchObject({ kind: 'known', event: { type: 'response.output_audio_transcript.done' } });
    expect(parseServerEvent(JSON.stringify({ type: 'conversation.item.created', item: {} }))).toEqual({ kind: 'other', type: 'conversation.item.added' });
  });

  it('accepts both reports of a function call', () => {
    expect(parseServerEvent(JSON.stringify({ type: 'response.function_call_arguments.done', call_id: 'c', name: 'f', arguments: '{}' }))).toMatchObject({ kind: 'known' });
    const item = parseServerEvent(JSON.stringify({ type: 'response.output_item.done', item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' } }));
    expect(item).toEqual({ kind: 'known', event: { type: 'response.output_item.done', item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' } } });
    expect(parseServerEvent(JSON.stringify({ type: 'response.output_item.done', item: { type: 'message', id: 'm' } }))).toMatchObject({ kind: 'known', event: { item: { type: 'message' } } });
  });

  it('tags unknown, malformed and non-JSON frames instead of throwing', () => {
    expect(parseServerEvent(JSON.stringify({ type: 'response.content_part.added' }))).toEqual({ kind: 'other', type: 'response.content_part.added' });
    expect(parseServerEvent(JSON.stringify({ type: 'response.output_audio.delta', item_id: 1 }))).toMatchObject({ kind: 'invalid', type: 'response.output_audio.delta' });
    expect(parseServerEvent('not json')).toEqual({ kind: 'invalid', type: null, reason: 'not JSON' });
    expect(parseServerEvent('[1,2]')).toEqual({ kind: 'invalid', type: null, reason: 'no type' });
  });
});

describe('usageFromProvider (the six classes)', () => {
  it('nets cached tokens out of input text and audio', () => {
    expect(
      usageFromProvider({
        total_tokens: 300,
        input_tokens: 200,
        output_tokens: 100,
        input_token_details: { text_tokens: 120, audio_tokens: 80, cached_tokens: 40, cached_tokens_details: { text_tokens: 30, audio_tokens: 10 } },
        output_token_details: { text_tokens: 20, audio_tokens: 80 },
      }),
    ).toEqual({
      input_tokens: 200,
      output_tokens: 100,
      total_tokens: 300,
      input_text_tokens: 90,
      input_audio_tokens: 70,
      cached_text_tokens: 30,
      cached_audio_tokens: 10,
      output_text_tokens: 20,
      output_audio_tokens: 80,
    });
  });

  it('fills gaps when a variant reports only totals', () => {
    expect(usageFromProvider({ input_tokens: 10, output_tokens: 5 })).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_text_tokens: 10,
      input_audio_tokens: 0,
      cached_text_tokens: 0,
      cached_audio_tokens: 0,
      output_text_tokens: 5,
      output_audio_tokens: 0,
    });
  });
});
