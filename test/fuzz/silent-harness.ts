import { TypedEmitter } from '../../src/core/index.ts';
import type { HarnessFactory, ModelSession, ModelSessionEvents } from '../../src/providers/index.ts';

/**
 * A model that connects, is ready and never speaks: the call stays up while a fuzzer feeds it
 * frames (ready, so the provider's ready deadline never ends it).
 */
export function silentHarness(): HarnessFactory {
  return {
    name: 'silent',
    refuse: () => null,
    create: (): ModelSession => {
      const events = new TypedEmitter<ModelSessionEvents>();
      return {
        provider: 'silent',
        model: null,
        inputRateHz: 16_000,
        outputRateHz: 16_000,
        events,
        connect: async () => {
          queueMicrotask(() => events.emit('ready'));
        },
        sendAudio: () => undefined,
        applyAgent: () => undefined,
        sendToolOutput: () => undefined,
        requestResponse: () => undefined,
        cancelResponse: () => undefined,
        truncate: () => undefined,
        callerSpeech: () => undefined,
        close: async () => undefined,
      };
    },
  };
}
