import { handoffArguments, type Conversation, type DispatchRequest, type DispatchResult } from '../conversation/index.ts';
import type { TypedEmitter } from '../core/index.ts';
import type { ModelSessionEvents, PlatformCall } from '../providers/index.ts';
import { parseArguments } from './turn-driver.ts';

/**
 * Calls a platform under test already made on its own side (relays, docs/platforms.md): kept in
 * small functions apart from the call so they can move with it. A platform call is recorded with
 * its origin and applied like an external harness's HTTP call; nothing goes back to the platform.
 */

/** How a platform's handoffs are taken: `enforce` (a specialist's tool before its transfer is refused) or `observe` (the hop is inferred and recorded as such). */
export type PlatformHandoffMode = 'enforce' | 'observe';

/** What the call offers the platform listener. */
export interface PlatformCallHost {
  /** True once the call is ending or has ended: later platform events change nothing. */
  isEnding(): boolean;
  dispatch(request: Omit<DispatchRequest, 'origin'>, origin: NonNullable<DispatchRequest['origin']>): DispatchResult | null;
  /** The agent's side hung up: end once its audio has played (as the agent's ending, unless the call was already ending otherwise). */
  agentHungUp(): void;
}

/** Subscribes the call to a session's platform calls and hang-up; returns the unsubscribe. */
export function listenToPlatform(events: TypedEmitter<ModelSessionEvents>, host: PlatformCallHost): () => void {
  const offCall = events.on('platformCall', (call: PlatformCall) => {
    if (host.isEnding()) return;
    host.dispatch({ toolCallId: null, name: call.name, rawArguments: parseArguments(call.arguments) }, call.origin);
  });
  // A hang-up counts even while the call is ending: the agent's side is gone, so nothing is left to wait for but playback.
  const offHangup = events.on('agentHangup', () => host.agentHungUp());
  return () => {
    offCall();
    offHangup();
  };
}

/**
 * Observe mode: the transfer a platform made without telling mivas first, deduced from the tool it
 * then called. Null unless the tool belongs to no tool of the active desk and exactly one desk the
 * active desk may hand off to owns it (a declared edge); the caller records that hop as `inferred`.
 */
export function inferredHop(conversation: Conversation, toolName: string): Omit<DispatchRequest, 'origin'> | null {
  const pack = conversation.pack;
  const active = pack.blueprint.agents.find((a) => a.name === conversation.activeAgent());
  if (!active || active.tools.some((t) => t.name === toolName)) return null;
  const hops = active.tools.filter((t) => t.handoff && t.handoff_to && pack.blueprint.agents.some((a) => a.name === t.handoff_to && a.tools.some((o) => o.name === toolName)));
  const hop = hops.length === 1 ? hops[0] : undefined;
  if (!hop) return null;
  return { toolCallId: null, name: hop.name, rawArguments: handoffArguments(pack, hop.name, undefined) };
}
