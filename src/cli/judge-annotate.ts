/**
 * `mivas score --judge`: asks an OpenAI-compatible chat endpoint for the fixed rubric's 1–5 scores
 * of each scored conversation (scoring.md §10.2), after scoring and apart from it. Every verdict is
 * cached on disk by the hash of its request (prompt version, model, messages), so scoring the same
 * snapshots again asks the judge nothing new.
 *
 * The request follows the chat completions contract of openai/openai-node (commit 7b7d6ca7):
 * `Completions.create` in src/resources/chat/completions/completions.ts posts the body to
 * `/chat/completions`; `response_format: {type: "json_object"}` is `ResponseFormatJSONObject` in
 * src/resources/shared.ts; the reply's text is `choices[0].message.content`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PolicySettings } from '../config.ts';
import { boundedFetch, MivasError } from '../core/index.ts';
import { judgeCacheKey, judgeMessages, parseJudgeReply, type ConversationVerdict, type JudgeScores } from '../scoring/index.ts';

/** What the judge step needs: the endpoint (base URL and model set) and the cache folder. */
export interface JudgeSetup {
  readonly settings: PolicySettings & { readonly baseUrl: string; readonly model: string };
  readonly cacheDir: string;
  readonly fetch?: typeof fetch;
}

/** How the judge step went: the scores by conversation id (to lay on the report), how many it asked, and the failure that stopped it. */
export interface JudgeOutcome {
  readonly judged: ReadonlyMap<string, JudgeScores>;
  readonly asked: number;
  readonly cached: number;
  readonly failure: string | null;
}

function readCached(file: string, model: string): JudgeScores | null {
  if (!existsSync(file)) return null;
  try {
    return parseJudgeReply(readFileSync(file, 'utf8'), model);
  } catch {
    return null;
  }
}

/** One request to the judge; the reply's text, or throws naming what went wrong (never the key). */
async function ask(setup: JudgeSetup, doFetch: typeof fetch, messages: ReturnType<typeof judgeMessages>): Promise<string> {
  const { settings } = setup;
  const res = await doFetch(`${settings.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
    body: JSON.stringify({ model: settings.model, messages, temperature: 0, response_format: { type: 'json_object' } }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the judge answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  const content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error('the judge answered without a message');
  return content;
}

/** Judges every scored conversation (PASS or FAIL) that is not cached yet, one at a time as they come; stops asking at the first failure. */
export async function annotateWithJudge(conversations: Iterable<ConversationVerdict>, setup: JudgeSetup): Promise<JudgeOutcome> {
  const doFetch = boundedFetch({ timeoutMs: setup.settings.timeoutMs, maxBodyBytes: setup.settings.maxBodyBytes }, setup.fetch ?? fetch);
  mkdirSync(setup.cacheDir, { recursive: true });
  const judged = new Map<string, JudgeScores>();
  let asked = 0;
  let cached = 0;
  let failure: string | null = null;
  for (const v of conversations) {
    if (v.status !== 'PASS' && v.status !== 'FAIL') continue;
    const messages = judgeMessages(v);
    const file = join(setup.cacheDir, `${judgeCacheKey(setup.settings.model, messages)}.json`);
    const hit = readCached(file, setup.settings.model);
    if (hit) {
      judged.set(v.conversation_id, hit);
      cached++;
      continue;
    }
    if (failure) continue;
    try {
      asked++;
      const reply = await ask(setup, doFetch, messages);
      const scores = parseJudgeReply(reply, setup.settings.model);
      if (!scores) throw new Error(`the judge's answer is not the rubric's JSON: ${reply.slice(0, 200)}`);
      writeFileSync(file, `${JSON.stringify(scores.scores)}\n`);
      judged.set(v.conversation_id, scores);
    } catch (err) {
      failure = `${v.conversation_id}: ${err instanceof MivasError ? `${err.code}: ` : ''}${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return { judged, asked, cached, failure };
}
