import { dashScopeDialect, type QwenDialectOptions, type RealtimeDialect } from '../realtime/index.ts';

/**
 * Qwen-Audio realtime (Alibaba Model Studio's Qwen-Audio-Realtime, `qwen-audio-3.x-realtime-*`):
 * an OpenAI-Realtime-shaped event protocol of its own, not Qwen-Omni-Realtime's. Checked on
 * 2026-12-01 against help.aliyun.com/en/model-studio/fun-audiochat-client-events ("Qwen-Audio
 * client events"), qwen-audio-realtime-server-events (Jul 14, 2026) and
 * audio-realtime-websocket-access (docs/providers.md, "Qwen-Audio realtime").
 */

/** Input is PCM16 mono 16 kHz, output 24 kHz (the Qwen-Audio user guide). */
export const QWEN_AUDIO_INPUT_RATE_HZ = 16_000;
export const QWEN_AUDIO_OUTPUT_RATE_HZ = 24_000;

/**
 * The first `session.update` sets the output modalities, the voice (only the first update may),
 * the instructions, server VAD (turn detection may change only before the first audio) and the
 * tools, nested as the page's Function Calling example shows; a handoff's update changes only
 * instructions and tools ("include only the fields you want to change"). The client events list
 * no `conversation.item.truncate`, so none is sent; the greeting follows a seeded user text item,
 * as for Qwen-Omni. Key and workspace are sent as for Qwen-Omni.
 */
export function qwenAudioDialect(options: QwenDialectOptions): RealtimeDialect {
  return dashScopeDialect(options, { inputRateHz: QWEN_AUDIO_INPUT_RATE_HZ, outputRateHz: QWEN_AUDIO_OUTPUT_RATE_HZ, sessionAudio: {}, response: null });
}
