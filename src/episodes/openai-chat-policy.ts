import type { ToolSpec } from '../conversation/index.ts';
import { boundedFetch, DEFAULT_JSON_CAP_BYTES } from '../core/index.ts';
import { greetingOf, SAY_TO_CALLER } from './framing.ts';
import type { PlayableEpisode, TextPolicy } from './policies.ts';

/** Where the `text/openai-chat` policy sends its requests. */
export interface ChatPolicyOptions {
  /** An OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  /** Requests per episode at most (default: twice the turn cap, at least 8). */
  readonly maxRequests?: number;
  readonly temperature?: number;
  /** Sent as `seed` for endpoints that honour it. */
  readonly seed?: number;
  /** Per request, the answer's body included (MIVAS_POLICY_TIMEOUT_S; default 60 s). */
  readonly timeoutMs?: number;
  /** Cap of each answer and each request (MIVAS_POLICY_MAX_BODY_MB; default DEFAULT_JSON_CAP_BYTES). */
  readonly maxBodyBytes?: number;
  readonly fetch?: typeof fetch;
}

/** A chat-completions tool call. */
interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChatReply {
  readonly choices?: { readonly message?: { readonly content?: string | null; readonly tool_calls?: ChatToolCall[] } }[];
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number; readonly total_tokens?: number };
}

/** Tools in the chat-completions shape. */
export function chatTools(tools: readonly ToolSpec[]): { type: 'function'; function: { name: string; description: string; parameters: unknown } }[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/**
 * What the policy is told when the caller says nothing back. The caller stays silent when nothing
 * calls for an answer (the agent said "one moment" or only stated a fact), so the line says the
 * caller is still there and waiting: a bare "says nothing" made agents ask "Are you still there?".
 */
export const CALLER_SILENT = '(the caller says nothing: still on the line, waiting for you to go on)';

/**
 * The `text/openai-chat` policy harness: any OpenAI-compatible chat-completions endpoint with
 * tools as the agent of a text episode. The conversation starts from the active agent's
 * instructions, the greeting already said and the caller's opening line. Each tool call is one
 * episode action (its result goes back as the tool message); a native handoff swaps the system
 * message and the tool list. A reply with text and no tool call is said to the caller (as
 * say_to_caller, the caller's answer comes back as the next user message); text beside tool calls
 * is spoken without waiting for an answer. An empty reply ends the policy's play. Every request
 * is bounded in time and size (core `boundedFetch`): an endpoint that hangs or floods ends the
 * episode as `provider_error`, and no answer past the cap enters the conversation.
 */
export function openAiChatPolicy(options: ChatPolicyOptions): TextPolicy {
  const doFetch = boundedFetch({ timeoutMs: options.timeoutMs ?? 60_000, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_JSON_CAP_BYTES }, options.fetch ?? fetch);
  return {
    name: 'openai-chat',
    model: options.model,
    async play(episode: PlayableEpisode, callerSaid) {
      const view = episode.view?.();
      if (!view) throw new Error('the openai-chat policy plays in-process episodes (it needs their instructions and tools)');
      const messages: ChatMessage[] = [
        { role: 'system', content: view.instructions },
        { role: 'assistant', content: greetingOf(episode.pack) },
        { role: 'user', content: callerSaid ?? CALLER_SILENT },
      ];
      let tools = chatTools(view.tools);
      const maxRequests = options.maxRequests ?? Math.max(8, view.max_turns * 2);
      for (let request = 0; request < maxRequests && !episode.isDone(); request++) {
        const res = await doFetch(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify({ model: options.model, messages, tools, tool_choice: 'auto', ...(options.temperature === undefined ? {} : { temperature: options.temperature }), ...(options.seed === undefined ? {} : { seed: options.seed }) }),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`the chat endpoint answered ${res.status}: ${text.slice(0, 300)}`);
        const reply = JSON.parse(text) as ChatReply;
        const usage = reply.usage;
        if (usage) episode.addUsage?.({ input_tokens: usage.prompt_tokens, input_text_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, output_text_tokens: usage.completion_tokens, total_tokens: usage.total_tokens });
        const message = reply.choices?.[0]?.message;
        if (!message) throw new Error('the chat endpoint answered without a message');
        const calls = message.tool_calls ?? [];
        const content = message.content?.trim() ?? '';
        messages.push({ role: 'assistant', content: message.content ?? null, ...(calls.length ? { tool_calls: [...calls] } : {}) });
        if (!calls.length) {
          if (!content) return;
          const said = await episode.step({ name: SAY_TO_CALLER, arguments: { text: content } });
          const data = said.output.data as { caller_said?: string | null } | undefined;
          messages.push({ role: 'user', content: data?.caller_said ?? CALLER_SILENT });
          continue;
        }
        if (content) episode.speakWithoutReply?.(content);
        for (const call of calls) {
          if (episode.isDone()) return;
          let args: unknown;
          try {
            args = JSON.parse(call.function.arguments || '{}');
          } catch {
            // The engine refuses raw text with INVALID_ARGUMENTS, as it would a voice model's.
            args = call.function.arguments;
          }
          const result = await episode.step({ name: call.function.name, arguments: args, callId: call.id });
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.output) });
          if (result.instructions && messages[0]) messages[0] = { role: 'system', content: result.instructions };
          if (result.tools) tools = chatTools(result.tools);
        }
      }
    },
  };
}
