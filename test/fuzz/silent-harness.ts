import { TypedEmitter } from '../../src/core/index.ts';
import type { HarnessFactory, ModelSession, ModelSessionEvents } from '../../src/providers/index.ts';

/** A model that connects and never speaks: the call stays up while a fuzzer feeds it frames. */
export function silentHarness(): HarnessFactory {
  return {
    name: 'silent',
    refuse: () => null,
    create: (): ModelSession => ({
      provider: 'silent',
      model: null,
      inputRateHz: 16_000,
      outputRateHz: 16_000,
      events: new TypedEmitter<ModelSessionEvents>(),
      connect: async () => undefined,
      sendAudio: () => undefined,
      applyAgent: () => undefined,
      sendToolOutput: () => undefined,
      requestResponse: () => undefined,
      cancelResponse: () => undefined,
      truncate: () => undefined,
      callerSpeech: () => undefined,
      close: async () => undefined,
    }),
  };
}
