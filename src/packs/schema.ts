import { z } from 'zod';

const agentName = z.string().regex(/^[a-z][a-z_]*$/).refine((n) => n !== 'human', 'the agent name "human" is reserved');
const toolName = z.string().regex(/^[a-z][a-z0-9_]*$/);

/** One tool reference on an agent in blueprint.json. */
export const blueprintToolRefSchema = z
  .object({
    name: toolName,
    handoff: z.boolean().optional(),
    handoff_to: agentName.optional(),
    session: z.boolean().optional(),
  })
  .strict();

/** One specialist in blueprint.json. */
export const blueprintAgentSchema = z
  .object({
    name: agentName,
    description: z.string().min(1).refine((d) => d.trim().split(/\s+/).length <= 30, 'at most 30 words'),
    system_prompt: z.string().regex(/^prompts\/[a-z][a-z_]*\.md$/),
    tools: z.array(blueprintToolRefSchema).min(1),
  })
  .strict();

/** The reason every human-transfer vocabulary has: the caller asked for a person. */
export const CALLER_REQUEST_REASON = 'caller_request';

/** One reason a pack's agents may transfer a caller to a person, with what the agent says then. */
export const humanTransferReasonSchema = z
  .object({
    /** The situation, as the tool description states it ("the caller asks for a person"). */
    when: z.string().min(1).refine((w) => w.trim().split(/\s+/).length <= 16, 'at most 16 words'),
    /** The sentence the agent reads before the call is handed over. */
    script: z.string().min(1),
  })
  .strict();

/**
 * The pack's vocabulary for the runtime's transfer_to_human (src/packs/human-transfer.ts): its
 * reason codes, in the order the model sees them. The tool itself is the runtime's.
 */
export const humanTransferSchema = z
  .object({
    reasons: z
      .record(z.string().regex(/^[a-z][a-z_]*$/), humanTransferReasonSchema)
      .refine((r) => CALLER_REQUEST_REASON in r, `the reasons must include ${CALLER_REQUEST_REASON}`)
      .refine((r) => Object.keys(r).length <= 8, 'at most 8 reasons'),
  })
  .strict();
export type HumanTransferConfig = z.infer<typeof humanTransferSchema>;

/** blueprint.json: the specialist graph; agents[0] is the entry agent. */
export const blueprintSchema = z
  .object({
    company: z.string().min(1),
    greeting: z.string().min(1).optional(),
    /** Present when any agent lists transfer_to_human. */
    human_transfer: humanTransferSchema.optional(),
    agents: z.array(blueprintAgentSchema).min(1),
  })
  .strict();

export type Blueprint = z.infer<typeof blueprintSchema>;
export type BlueprintAgent = z.infer<typeof blueprintAgentSchema>;

/** The closed set of normalisers (scoring.md §4.1). */
export const normaliserNames = ['exact', 'text', 'date', 'datetime_minute', 'phone_e164', 'money_cents', 'number', 'bool', 'set_text'] as const;
export const normaliserSchema = z.enum(normaliserNames);
export type NormaliserName = z.infer<typeof normaliserSchema>;

/** One table's comparison policy in compare.json. */
export const tablePolicySchema = z
  .object({
    scored: z.boolean(),
    reason: z.string().min(1).optional(),
    key: z.array(z.string()).min(1).optional(),
    ignore: z.array(z.string()).optional(),
    normalise: z.record(z.string(), normaliserSchema).optional(),
    mode: z.enum(['exact', 'subset']).optional(),
    extra_when_empty: z.boolean().optional(),
  })
  .strict()
  .refine((p) => p.scored || p.reason, 'an unscored table needs a reason');

/** compare.json: the declarative state-comparison policy of a pack. */
export const comparePolicySchema = z
  .object({
    defaults: z
      .object({ ignore: z.array(z.string()).default([]), strings: normaliserSchema.default('text') })
      .strict(),
    tables: z.record(z.string(), tablePolicySchema),
    arguments: z.record(z.string(), normaliserSchema).optional(),
  })
  .strict();

export type ComparePolicy = z.infer<typeof comparePolicySchema>;
export type TablePolicy = z.infer<typeof tablePolicySchema>;

/** A task-level override of compare.json, merged per table. */
export const compareOverrideSchema = z
  .object({
    defaults: z.object({ ignore: z.array(z.string()).optional(), strings: normaliserSchema.optional() }).strict().optional(),
    tables: z.record(z.string(), tablePolicySchema).optional(),
    arguments: z.record(z.string(), normaliserSchema).optional(),
  })
  .strict();

const literal = z.union([z.string(), z.number(), z.boolean()]);
/** A value matcher in expected parameters or output data: literal, $any_of or $present. */
export const matcherSchema = z.union([
  literal,
  z.object({ $any_of: z.array(literal).min(2) }).strict(),
  z.object({ $present: z.literal(true) }).strict(),
]);
export type Matcher = z.infer<typeof matcherSchema>;

const outputDataSchema: z.ZodType<unknown> = z.lazy(() =>
  z.union([matcherSchema, z.array(outputDataSchema), z.record(z.string(), outputDataSchema)]),
);

/** One expected tool call of a task. */
/**
 * Why a required call is required (the necessity check of `mivas tasks validate`): it writes
 * expected state, it answers what the caller asks, or a rule in its agent's prompt requires it
 * (`quote` is then a verbatim fragment of that prompt, which the validator looks up).
 */
export const callReasonSchema = z
  .object({
    because: z.enum(['writes_state', 'answers_caller', 'prompt_rule']),
    quote: z.string().min(8).optional(),
  })
  .strict()
  .refine((w) => w.because !== 'prompt_rule' || w.quote !== undefined, { message: 'a prompt_rule reason quotes the prompt line' });

export const expectedCallSchema = z
  .object({
    name: toolName,
    why: callReasonSchema.optional(),
    parameters: z.record(z.string(), matcherSchema).optional(),
    output: z
      .object({
        ok: z.boolean(),
        error_code: z.string().regex(/^[A-Z][A-Z0-9_]*$/).optional(),
        data: z.record(z.string(), outputDataSchema).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ExpectedCall = z.infer<typeof expectedCallSchema>;

/** The acts a caller plays over the agent's speech (docs/caller.md, "Duplex acts"). */
export const DUPLEX_ACTS = ['correction', 'barge_in', 'back_channel'] as const;
export type DuplexActKind = (typeof DUPLEX_ACTS)[number];

/**
 * A pin's duplex trigger (packs.md §3.4): the caller says the pin over the agent, mid-utterance,
 * once the agent's utterance so far says one of `agent_says` and none of `not_when_agent_says` (the NOT
 * clause, required as for context pins; each a list of phrases, any of which counts), after
 * `cut_in_after_ms` more of the agent's audio. A
 * correction names the value it replaces (`stale_value`) and the value graded instead
 * (`corrected_value`), each as the expected state or calls would carry it.
 */
export const duplexTriggerSchema = z
  .object({
    act: z.enum(DUPLEX_ACTS),
    agent_says: z.array(z.string().min(1)).min(1),
    not_when_agent_says: z.array(z.string().min(1)).min(1),
    cut_in_after_ms: z.number().int().min(0).max(3_000).default(0),
    stale_value: z.string().min(1).optional(),
    corrected_value: z.string().min(1).optional(),
  })
  .strict()
  .refine((d) => (d.act === 'correction') === (d.stale_value !== undefined && d.corrected_value !== undefined), {
    message: 'a correction names stale_value and corrected_value; a barge_in or back_channel names neither',
  })
  .refine((d) => d.act !== 'correction' || d.stale_value !== d.corrected_value, { message: 'a correction changes the value' });
export type DuplexTrigger = z.infer<typeof duplexTriggerSchema>;

/** A task's scripted caller reply (a pin); with `duplex`, said over the agent when its trigger holds. */
export const scriptedResponseSchema = z
  .object({
    match_type: z.literal('context'),
    match_phrase: z.string().min(1),
    response_type: z.literal('phrase'),
    response_value: z.string().min(1),
    occurrence_mode: z.enum(['always', 'first_n']).optional(),
    occurrence_n: z.number().int().positive().optional(),
    duplex: duplexTriggerSchema.optional(),
  })
  .strict()
  .refine((r) => !r.duplex || /\bNOT\b/.test(r.match_phrase), { message: 'a duplex pin\'s match_phrase has a NOT clause, as every context pin' });

/** tasks/<TASK-ID>.json: one locked task (packs.md §3.1). */
export const taskSchema = z
  .object({
    task_id: z.string().regex(/^((C[1-5]|R)-(E|M|H)[1-4](-(BG|SIG|COR))?|S-E[1-9])$/),
    task_name: z.string().min(1),
    intent: z.string().min(1),
    traits: z.array(z.object({ trait_name: z.string().min(1), value: z.union([z.string(), z.number(), z.boolean()]) }).strict()),
    customer_name: z.string().min(1),
    exp_handoff_path: z.array(z.string().regex(/^transfer_to_[a-z][a-z_]*$/)),
    exp_tool_calls: z.array(expectedCallSchema),
    behaviors: z.object({ creativity: z.literal(0) }).strict(),
    scripted_responses: z.array(scriptedResponseSchema).default([]),
    metadata: z
      .object({
        category: z.string().min(1),
        category_slug: z.string().regex(/^[a-z][a-z0-9-]*$/),
        difficulty: z.enum(['easy', 'medium', 'hard']),
        audio_condition: z.enum(['perfect', 'background_noise', 'bad_signal']),
      })
      .strict(),
    exp_db_state: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
    forbidden_tools: z.array(toolName).default([]),
    variant_of: z.string().optional(),
    compare: compareOverrideSchema.optional(),
  })
  .strict()
  .refine((t) => t.task_name.startsWith(`${t.task_id}: `), 'task_name must start with "<task_id>: "')
  .refine((t) => !t.customer_name.includes(t.task_id), 'customer_name must not contain the task id');

export type Task = z.infer<typeof taskSchema>;
