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

/**
 * Ties a session to its call: a call that already ended refuses the connect (`before` says what
 * it ended before), and the end of the call closes the session.
 */
export function bindToCall(signal: AbortSignal, close: () => Promise<void>, before = 'the provider connected'): void {
  if (signal.aborted) throw new Error(`the call ended before ${before}`);
  signal.addEventListener('abort', () => void close(), { once: true });
}

/**
 * The connect of a session that dials its provider: bound to the call (bindToCall), then `open`;
 * a failure to open is reported as a fatal `connect_failed` and thrown on. The session emits
 * `ready` itself, once it knows it is.
 */
export async function connectForCall(session: Pick<ModelSession, 'events' | 'close'>, signal: AbortSignal, open: () => Promise<void> | void, before?: string): Promise<void> {
  bindToCall(signal, () => session.close(), before);
  try {
    await open();
  } catch (err) {
    session.events.emit('failure', { code: 'connect_failed', message: err instanceof Error ? err.message : String(err), fatal: true });
    throw err;
  }
}
