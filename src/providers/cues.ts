/**
 * The text cues that make a model speak when nothing the caller said asks it to: the opening of
 * the call, and a specialist's first words after a handoff (GPT-Live appends them as instructions,
 * Phonic sends them in `generate_reply`, Gemini Live as realtime text, Nova Sonic as a USER text
 * block; the cascade opens with the opening cue as the caller's first item).
 */

/** Makes the entry agent open the call. */
export const OPENING_CUE = '(The caller has just been connected. Open the call.)';

/** Makes the next specialist go on after a handoff, without greeting again. */
export function handoffCueText(from: string, to: string): string {
  return `(The call has just been transferred from ${from} to you, ${to}. Continue the conversation with the caller now, without greeting again.)`;
}
