import { z } from 'zod';
import { CALL_ID_PATTERN } from '../core/index.ts';
import type { CallerDial, ConversationReport, PreparedCaller } from '../caller/index.ts';

/**
 * Speech rollouts (docs/rl.md "Speech rollouts"): the request a trainer sends, the policy URL
 * mivas dials for it, and the seam a voice caller plugs into. The call itself runs through the
 * server's CHIRP path (`src/server/rl-rollouts.ts`), so its snapshot and verdict are a call's.
 */

/** The realtime protocols a policy endpoint may speak: the provider harnesses mivas already bridges. */
export const SPEECH_PROTOCOLS = ['openai/realtime', 'azure/realtime', 'xai/grok-voice', 'qwen/omni-realtime'] as const;
export type SpeechProtocol = (typeof SPEECH_PROTOCOLS)[number];

/** `POST /rl/rollouts`. */
export const rolloutRequestSchema = z
  .object({
    pack: z.string().optional(),
    task_id: z.string().min(1).max(64).optional(),
    seed: z.number().int().nonnegative().optional(),
    run_id: z.string().regex(CALL_ID_PATTERN).optional(),
    policy: z
      .object({
        /** ws:// or wss:// base URL of the trainer's realtime server, e.g. ws://trainer:9000/v1; `{rollout_id}` is replaced, else the id is put first in the path. */
        url: z.string().regex(/^wss?:\/\/[^\s]+$/, 'policy.url must be a ws:// or wss:// URL'),
        protocol: z.enum(SPEECH_PROTOCOLS).default('openai/realtime'),
        model: z.string().min(1).optional(),
        voice: z.string().min(1).optional(),
        api_key: z.string().min(1).optional(),
      })
      .strict(),
    caller: z.object({ kind: z.string().min(1).max(32).default('scripted') }).strict().default({ kind: 'scripted' }),
    /** Answer when the call has been scored (default), or at once with the id to poll. */
    wait: z.boolean().default(true),
  })
  .strict();
export type RolloutRequest = z.infer<typeof rolloutRequestSchema>;

/** NeMo Gym's path prefix for a rollout (`nemo_gym/config_types.py` ROLLOUT_PATH_PREFIX). */
export const ROLLOUT_PATH_PREFIX = 'ng-rollout';

/**
 * The URL mivas dials for a rollout: `{rollout_id}` in the trainer's URL is replaced by the id;
 * otherwise `/ng-rollout/<id>` goes first in the path (NeMo Gym's convention, so a trainer's
 * server strips it the same way), e.g. ws://host:9000/v1 → ws://host:9000/ng-rollout/ro_x/v1.
 */
export function rolloutPolicyUrl(url: string, rolloutId: string): string {
  if (url.includes('{rollout_id}')) return url.replaceAll('{rollout_id}', rolloutId);
  const parsed = new URL(url);
  const path = parsed.pathname === '/' ? '' : parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.host}/${ROLLOUT_PATH_PREFIX}/${rolloutId}${path}${parsed.search}`;
}

/** The caller kinds a speech rollout takes: the no-key scripted caller and the llm digital human (docs/caller.md). */
export const ROLLOUT_CALLER_KINDS = ['scripted', 'llm'] as const;

/**
 * The caller of a speech rollout in voice mode: a prepared caller (mind, ears, mouth, caps) dials
 * the server's own CHIRP endpoint as any call, so the llm caller hears the trainer's agent
 * (transcribed), answers it aloud and hangs up after its closing line: a whole conversation.
 */
export interface VoiceCaller {
  dial(caller: PreparedCaller, dial: CallerDial): Promise<ConversationReport>;
}
