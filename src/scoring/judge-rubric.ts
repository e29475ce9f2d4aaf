/**
 * The judge's fixed rubric and versioned prompt (scoring.md §10.2). Judge scores are an annotation
 * that `mivas score --judge` adds after scoring; no gate, pass or reward reads them. This file is
 * pure: it builds the request's messages, its cache key and reads the answer; the CLI sends it.
 */
import { z } from 'zod';
import { canonicalJson, sha256Parts } from '../core/index.ts';
import type { ConversationVerdict, JudgeScores } from './types.ts';

/** The rubric's criteria, each scored 1 (poor) to 5 (excellent). */
export const JUDGE_CRITERIA = ['answer_spoken', 'policy_spoken', 'conduct'] as const;
export type JudgeCriterion = (typeof JUDGE_CRITERIA)[number];

/** Bumped whenever the prompt's words or the rubric change; part of every cache key. */
export const JUDGE_PROMPT_VERSION = 'judge-1';

const RUBRIC: Readonly<Record<JudgeCriterion, string>> = {
  answer_spoken: 'the agent told the caller, in words, each answer its tools returned that the caller had asked for (a lookup nobody hears scores 1)',
  policy_spoken: 'everything the agent stated came from its tools or its instructions: no invented prices, dates, promises or facts, and nothing it was told to withhold was said',
  conduct: 'the agent was clear and brief, asked one thing at a time, and stayed courteous to the end',
};

const SYSTEM = [
  'You review one recorded phone call between a caller and a front-desk voice agent.',
  'Score the agent from 1 (poor) to 5 (excellent) on each criterion below, judging only what the transcript and the tool log show.',
  ...JUDGE_CRITERIA.map((c) => `- ${c}: ${RUBRIC[c]}.`),
  `Answer with one JSON object and nothing else, with exactly these keys and integer values: ${JUDGE_CRITERIA.map((c) => `"${c}"`).join(', ')}.`,
].join('\n');

/** A chat message of the request. */
export interface JudgeMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** The messages the judge reads for one conversation: the rubric, then the tool log and the transcript. */
export function judgeMessages(v: Pick<ConversationVerdict, 'evidence' | 'diagnostics'>): JudgeMessage[] {
  const answers = v.diagnostics.said_aloud.map((c) => `${c.tool}: ${c.key} = ${c.value}`);
  const user = [`Tool log: ${v.evidence.trace || '(no tool calls)'}`, ...(answers.length ? [`Answers the caller asked for: ${answers.join('; ')}`] : []), 'Transcript:', v.evidence.transcript || '(empty)'].join('\n');
  return [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }];
}

/** The cache key of one judge request: prompt version, model and messages. The same conversation and judge never ask twice. */
export function judgeCacheKey(model: string, messages: readonly JudgeMessage[]): string {
  return sha256Parts([JUDGE_PROMPT_VERSION, model, canonicalJson(messages)]);
}

const answerSchema = z.object(Object.fromEntries(JUDGE_CRITERIA.map((c) => [c, z.number().int().min(1).max(5)])) as Record<JudgeCriterion, z.ZodNumber>).strict();

/** Reads the judge's reply text: exactly the rubric's keys, integers 1–5; null for anything else (the judge is then absent). */
export function parseJudgeReply(text: string, model: string): JudgeScores | null {
  let value: unknown;
  try {
    value = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return null;
  }
  const parsed = answerSchema.safeParse(value);
  return parsed.success ? { model, prompt_version: JUDGE_PROMPT_VERSION, scores: parsed.data } : null;
}
