import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { NOVA_OPENING_CUE, NOVA_RENEW_AFTER_MS, NovaSonicSession, type NovaDuplex, type NovaEvent } from '../../../src/providers/index.ts';
import { novaEventProblem, type NovaClientEvent } from '../../support/nova-bedrock-server.ts';

/** A transport double: records what each stream was sent and lets the test push model events. */
function fakeTransport(): { open: (model: string) => NovaDuplex; streams: { sent: NovaEvent[]; push: (e: NovaEvent) => void; ended: boolean }[] } {
  const streams: { sent: NovaEvent[]; push: (e: NovaEvent) => void; ended: boolean }[] = [];
  const open = (): NovaDuplex => {
    const queue: NovaEvent[] = [];
    let wake: (() => void) | null = null;
    const record = { sent: [] as NovaEvent[], ended: false, push: (e: NovaEvent) => { queue.push(e); wake?.(); } };
    streams.push(record);
    return {
      send: (e) => record.sent.push(e),
      end: () => {
        record.ended = true;
        wake?.();
      },
      output: (async function* () {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (record.ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      })(),
    };
  };
  return { open, streams };
}

const AGENT = { name: 'reception', instructions: 'Be brief.', tools: [{ name: 'end_call', description: 'End.', parameters: { type: 'object', properties: {} } }] };

function names(events: readonly NovaEvent[]): string[] {
  return events.map((e) => Object.keys(e.event)[0] ?? '');
}

function texts(events: readonly NovaEvent[]): string[] {
  return events.flatMap((e) => ('textInput' in e.event ? [String((e.event.textInput as { content: string }).content)] : []));
}

describe('NovaSonicSession behind an injected transport', () => {
  it('nudges the greeting, then before the 8-minute limit moves to a fresh stream seeded with the history', async () => {
    const clock = new ManualClock();
    const t = fakeTransport();
    const session = new NovaSonicSession({ model: 'amazon.nova-2-sonic-v1:0', voice: 'matthew', endpointing: 'MEDIUM', transport: t.open, clock });
    const transcripts: string[] = [];
    session.events.on('transcript', (side, text) => transcripts.push(`${side}: ${text}`));
    await session.connect(AGENT, new AbortController().signal);
    session.requestResponse();
    const first = t.streams[0];
    expect(texts(first?.sent ?? [])).toContain(NOVA_OPENING_CUE);
    first?.push({ event: { contentStart: { type: 'AUDIO', role: 'ASSISTANT' } } });
    first?.push({ event: { audioOutput: { content: Buffer.alloc(4_800).toString('base64') } } });
    first?.push({ event: { contentEnd: { type: 'AUDIO', stopReason: 'END_TURN' } } });
    first?.push({ event: { contentStart: { type: 'TEXT', role: 'ASSISTANT', additionalModelFields: '{"generationStage":"FINAL"}' } } });
    first?.push({ event: { textOutput: { role: 'ASSISTANT', content: 'Hello there.' } } });
    first?.push({ event: { contentEnd: { type: 'TEXT', stopReason: 'END_TURN' } } });
    first?.push({ event: { contentStart: { type: 'TEXT', role: 'USER', additionalModelFields: '{"generationStage":"FINAL"}' } } });
    first?.push({ event: { textOutput: { role: 'USER', content: 'I need help.' } } });
    first?.push({ event: { contentEnd: { type: 'TEXT', stopReason: 'END_TURN' } } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(transcripts).toEqual(['agent: Hello there.', 'caller: I need help.']);
    clock.advance(NOVA_RENEW_AFTER_MS);
    expect(t.streams).toHaveLength(2);
    const second = t.streams[1]?.sent ?? [];
    expect(names(second).slice(0, 2)).toEqual(['sessionStart', 'promptStart']);
    // The seed opens with a USER turn and holds both sides; no nudge follows a renewal.
    expect(texts(second)).toEqual(['Be brief.', '(The call began.)', 'Hello there.', 'I need help.']);
    expect(first?.ended).toBe(true);
    expect(names(first?.sent ?? []).slice(-3)).toEqual(['contentEnd', 'promptEnd', 'sessionEnd']);
    await session.close();
  });

  it('keeps an answer split by PARTIAL_TURN as one response with one transcript, ended by END_TURN', async () => {
    const t = fakeTransport();
    const session = new NovaSonicSession({ model: 'amazon.nova-2-sonic-v1:0', voice: 'matthew', endpointing: 'MEDIUM', transport: t.open, clock: new ManualClock() });
    const seen: string[] = [];
    session.events.on('responseStarted', (id) => seen.push(`started ${id}`));
    session.events.on('responseDone', (d) => seen.push(`done ${d.responseId} ${d.status}`));
    session.events.on('audio', (itemId) => seen.push(`audio ${itemId}`));
    session.events.on('transcript', (side, text, itemId) => seen.push(`${side} ${itemId}: ${text}`));
    await session.connect(AGENT, new AbortController().signal);
    const s = t.streams[0];
    const part = (text: string, stopReason: string): void => {
      s?.push({ event: { contentStart: { type: 'AUDIO', role: 'ASSISTANT' } } });
      s?.push({ event: { audioOutput: { content: Buffer.alloc(4_800).toString('base64') } } });
      s?.push({ event: { contentEnd: { type: 'AUDIO', stopReason } } });
      s?.push({ event: { contentStart: { type: 'TEXT', role: 'ASSISTANT', additionalModelFields: '{"generationStage":"FINAL"}' } } });
      s?.push({ event: { textOutput: { role: 'ASSISTANT', content: text } } });
      s?.push({ event: { contentEnd: { type: 'TEXT', stopReason } } });
    };
    part('Your visit is booked.', 'PARTIAL_TURN');
    part('Anything else?', 'END_TURN');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['started nova_resp_1', 'audio nova_item_1', 'audio nova_item_1', 'done nova_resp_1 completed', 'agent nova_item_1: Your visit is booked. Anything else?']);
    // The turn also ends on the FINAL text's END_TURN when the audio block itself said PARTIAL_TURN.
    seen.length = 0;
    part('Goodbye.', 'PARTIAL_TURN');
    s?.push({ event: { contentStart: { type: 'TEXT', role: 'ASSISTANT', additionalModelFields: '{"generationStage":"FINAL"}' } } });
    s?.push({ event: { textOutput: { role: 'ASSISTANT', content: 'Take care.' } } });
    s?.push({ event: { contentEnd: { type: 'TEXT', stopReason: 'END_TURN' } } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['started nova_resp_2', 'audio nova_item_2', 'agent nova_item_2: Goodbye. Take care.', 'done nova_resp_2 completed']);
    await session.close();
  });
});

describe('the strict Nova stand-in', () => {
  /** What the session sends on a stream, as the stand-in receives it. */
  async function sentByTheSession(): Promise<NovaClientEvent[]> {
    const t = fakeTransport();
    const session = new NovaSonicSession({ model: 'amazon.nova-2-sonic-v1:0', voice: 'matthew', endpointing: 'MEDIUM', transport: t.open, clock: new ManualClock() });
    await session.connect(AGENT, new AbortController().signal);
    session.requestResponse();
    await session.close();
    return (t.streams[0]?.sent ?? []).flatMap((e) => Object.entries(e.event).map(([name, body]) => ({ name, body: body as Record<string, unknown> })));
  }

  function problems(events: readonly NovaClientEvent[]): string[] {
    return events.flatMap((e, i) => novaEventProblem(e, events.slice(0, i)) ?? []);
  }

  it('takes every event the session sends, in its order', async () => {
    const sent = await sentByTheSession();
    expect(sent.map((e) => e.name)).toContain('sessionEnd');
    expect(problems(sent)).toEqual([]);
  });

  it('refuses unknown and missing fields, and events out of order', async () => {
    const sent = await sentByTheSession();
    const [start, prompt] = sent;
    if (!start || !prompt) throw new Error('no stream opened');
    expect(problems([{ name: 'sessionStart', body: { ...start.body, extra: 1 } }])[0]).toContain('extra');
    expect(problems([start, { name: 'promptStart', body: { ...prompt.body, toolUseOutputConfiguration: undefined } }])[0]).toContain('toolUseOutputConfiguration');
    expect(problems([prompt])[0]).toContain('sessionStart must be the first event');
    expect(problems([start, prompt, { name: 'textInput', body: { promptName: prompt.body.promptName, contentName: 'never-opened', content: 'hi' } }])[0]).toContain('not open');
    expect(problems([start, { name: 'audioOutput', body: {} }])[0]).toContain('unknown input event');
  });
});
