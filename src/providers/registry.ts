import type { SpeechSynth } from '../audio/index.ts';
import { ConfigError, type Clock } from '../core/index.ts';
import type { HarnessFactory } from './model-session.ts';
import { noopHarness } from './noop.ts';
import { scriptedHarness } from './scripted.ts';

/** What harness factories may need. */
export interface HarnessDeps {
  readonly synth: SpeechSynth;
  readonly clock: Clock;
  readonly noopWaitMs: number;
}

/** Names of the harnesses this build knows. */
export const HARNESS_NAMES = ['scripted', 'noop'] as const;

/** Maps a harness name to its factory (the only place a name meets a class). */
export function createHarnessFactory(name: string, deps: HarnessDeps): HarnessFactory {
  switch (name) {
    case 'scripted':
      return scriptedHarness(deps.synth);
    case 'noop':
      return noopHarness(deps.synth, deps.clock, deps.noopWaitMs);
    default:
      throw new ConfigError('UNKNOWN_HARNESS', `unknown harness "${name}"; known: ${HARNESS_NAMES.join(', ')}`);
  }
}
