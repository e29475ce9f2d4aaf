import { z } from 'zod';
import type { Clock } from '../core/index.ts';
import { postWithRetry, type EndpointSettings, type RetryPolicy } from './endpoint.ts';

/**
 * The slice of the OpenAI-compatible chat completions API (`POST <base>/chat/completions`,
 * non-streaming) the caller uses: messages, function tools, `tool_choice`, `temperature`, `seed`;
 * back come `choices[0].message` (content and/or `tool_calls`), `finish_reason`, `usage` and,
 * where the provider gives one, `system_fingerprint`. vLLM, llama.cpp server and Ollama serve
 * the same shape. Sources are cited in docs/caller.md.
 */

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string };

export interface ChatTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Readonly<Record<string, unknown>> };
}

/** The request body the caller sends (every field it sets; nothing is left to provider defaults that matter). */
export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ChatTool[];
  readonly tool_choice: 'required' | 'auto';
  readonly temperature: number;
  readonly seed: number;
  readonly max_tokens: number;
  readonly n: 1;
  readonly stream: false;
}

const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().optional().default('{}') }),
});

/** A chat completion as read: lenient on fields the caller does not use. */
export const chatResponseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  system_fingerprint: z.string().nullable().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        finish_reason: z.string().nullable().optional(),
        message: z.looseObject({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          tool_calls: z.array(toolCallSchema).nullable().optional(),
        }),
      }),
    )
    .min(1),
  usage: z
    .looseObject({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      total_tokens: z.number().optional(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type ChatResponse = z.infer<typeof chatResponseSchema>;

/** One tool call of the reply, arguments parsed (unparseable arguments read as `{}`). */
export interface ParsedToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** The first choice's tool calls and content. */
export function replyOf(response: ChatResponse): { toolCalls: ParsedToolCall[]; content: string } {
  const message = response.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).map((call) => {
    let args: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(call.function.arguments || '{}');
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
    } catch {
      /* unparseable arguments: no arguments */
    }
    return { name: call.function.name, args };
  });
  return { toolCalls, content: (message?.content ?? '').trim() };
}

/** The usage of a reply in the caller's counters (absent fields count 0). */
export function chatUsageOf(response: ChatResponse): { prompt_tokens: number; completion_tokens: number; total_tokens: number; cached_tokens: number } {
  const u = response.usage ?? {};
  const prompt = u.prompt_tokens ?? 0;
  const completion = u.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: u.total_tokens ?? prompt + completion, cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 };
}

/** Something that answers chat requests: the HTTP client below, or a cache in front of it. */
export interface ChatCompleter {
  complete(request: ChatRequest): Promise<ChatResponse>;
}

/** The HTTP chat client. */
export function chatClient(endpoint: EndpointSettings, clock: Clock, retry?: RetryPolicy): ChatCompleter {
  return {
    async complete(request) {
      const res = await postWithRetry(endpoint, '/chat/completions', JSON.stringify(request), { 'Content-Type': 'application/json' }, clock, retry);
      const json: unknown = await res.json();
      const parsed = chatResponseSchema.safeParse(json);
      if (!parsed.success) throw new Error(`chat completion without a usable choice: ${JSON.stringify(json).slice(0, 300)}`);
      return parsed.data;
    },
  };
}
