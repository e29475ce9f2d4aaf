import { ConfigError } from '../core/index.ts';
import type { AgentSetup, CallInfo, HarnessFactory, ModelSession } from './model-session.ts';

/**
 * A setting the selected harness cannot run without (a key, a base URL, a model): a missing or
 * blank one is a ConfigError thrown at boot (exit 3), never at the first call.
 */
export function requiredSetting(value: string | undefined, variable: string, harness: string): string {
  if (value === undefined || value.trim() === '') {
    throw new ConfigError('PROVIDER_SETTING_MISSING', `harness ${harness} needs ${variable}; set it in the environment (see .env.example and docs/providers.md)`);
  }
  return value;
}

/** A harness that takes every call: its sessions from `create`, its tools as it offers them to its model. */
export function harnessOf(name: string, create: (call: CallInfo) => ModelSession, offeredTools?: (agent: AgentSetup) => readonly unknown[]): HarnessFactory {
  return { name, refuse: () => null, create, ...(offeredTools ? { offeredTools } : {}) };
}
