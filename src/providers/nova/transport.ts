import { BedrockRuntimeClient, InvokeModelWithBidirectionalStreamCommand, type InvokeModelWithBidirectionalStreamInput } from '@aws-sdk/client-bedrock-runtime';

/** One Nova Sonic event as JSON: `{event: {<name>: {...}}}` both ways. */
export type NovaEvent = { readonly event: Readonly<Record<string, unknown>> };

/**
 * One bidirectional stream: events go in as they are sent, events come out as the model makes
 * them. `output` ends when the stream ends; it throws when the stream fails (the SDK's modeled
 * exceptions included).
 */
export interface NovaDuplex {
  send(event: NovaEvent): void;
  /** Ends the input side (after sessionEnd). */
  end(): void;
  readonly output: AsyncIterable<NovaEvent>;
}

/** Opens a stream to a model id. Injectable, so the session is tested without AWS. */
export type NovaTransport = (modelId: string) => NovaDuplex;

/** A queue read as an async iterable: pushes before the reader asks are kept, end() finishes it. */
class InputQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}

/** Where Bedrock is: the region, and an endpoint override (a local stand-in in tests). */
export interface BedrockTransportOptions {
  readonly region: string;
  readonly endpoint: string | undefined;
}

/**
 * The AWS SDK transport: `InvokeModelWithBidirectionalStreamCommand` of
 * `@aws-sdk/client-bedrock-runtime` over its default HTTP/2 handler (one stream per session, so
 * concurrent calls share connections), each event as a `chunk` whose `bytes` are the event's
 * JSON (aws-samples/amazon-nova-samples, speech-to-speech websocket-nodejs `src/client.ts`).
 * Credentials come from the SDK's default chain (environment, profile, role).
 */
export function bedrockTransport(options: BedrockTransportOptions): NovaTransport {
  const client = new BedrockRuntimeClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    // Sessions last up to 8 minutes; the SDK's request timeout must not end them first.
    requestHandler: { requestTimeout: 10 * 60_000, sessionTimeout: 10 * 60_000, disableConcurrentStreams: false, maxConcurrentStreams: 20 },
  });
  return (modelId) => {
    const input = new InputQueue<InvokeModelWithBidirectionalStreamInput>();
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const body = (async function* () {
      yield* input;
    })();
    const response = client.send(new InvokeModelWithBidirectionalStreamCommand({ modelId, body }));
    response.catch(() => undefined);
    return {
      send: (event) => input.push({ chunk: { bytes: encoder.encode(JSON.stringify(event)) } }),
      end: () => input.end(),
      output: (async function* () {
        const res = await response;
        for await (const part of res.body ?? []) {
          if ('chunk' in part && part.chunk?.bytes) {
            yield JSON.parse(decoder.decode(part.chunk.bytes)) as NovaEvent;
            continue;
          }
          // Any other member is one of the modeled exceptions: the stream is unusable.
          const [name, detail] = Object.entries(part)[0] ?? ['unknown', null];
          throw new Error(`${name}: ${detail && typeof detail === 'object' && 'message' in detail ? String(detail.message) : 'stream error'}`);
        }
      })(),
    };
  };
}
