import { z } from 'zod';
import { CALL_ID_PATTERN, ConfigError } from '../core/index.ts';
import type { UnmappedReason } from './types.ts';

/** One conversation-to-task pair from `--mapping`, with the caller platform's status when known. */
export interface MappingEntry {
  readonly conversation_id: string;
  readonly task_id: string | null;
  readonly pack: string | null;
  /** The Bluejay result status (`COMPLETED`, `NO_ANSWER`, `RUNNING`...); null for plain mapping files. */
  readonly platform_status: string | null;
}

/** Caller-platform statuses of a result that is still running: PENDING (scoring.md §2.3). */
export const PENDING_STATUSES = ['QUEUED', 'PENDING', 'RUNNING', 'IN_PROGRESS'] as const;

const idSchema = z.string().regex(CALL_ID_PATTERN);
const taskIdSchema = z.string().min(1);

/** A plain JSON mapping: a list of pairs, `{mappings: [...]}`, or an object of conversation id → task id. */
const pairSchema = z.object({ conversation_id: idSchema, task_id: taskIdSchema, pack: z.string().optional() }).strict();
const plainJsonSchema = z.union([z.array(pairSchema), z.object({ mappings: z.array(pairSchema) }).strict(), z.record(idSchema, taskIdSchema)]);

/** The mapping `mivas bluejay results --out mapping.json` writes: every result id of one run. */
export const bluejayMappingSchema = z
  .object({
    source: z.literal('bluejay'),
    run_id: z.string().optional(),
    results: z.array(
      z
        .object({
          result_id: idSchema,
          status: z.string().regex(/^[A-Z_]+$/).optional(),
          pack: z.string().optional(),
          case_key: z.string().min(1).nullable().optional(),
          test_name: z.string().nullable().optional(),
          traits: z.array(z.object({ trait_name: z.string(), value: z.unknown() }).passthrough()).optional(),
        })
        .passthrough(),
    ),
  })
  .strict();

type BluejayResult = z.infer<typeof bluejayMappingSchema>['results'][number];

/** The task id of a Bluejay result: the digital human's `case_key` trait, else the `test_name` prefix before `:`. */
export function bluejayTaskId(result: Pick<BluejayResult, 'case_key' | 'test_name' | 'traits'>): string | null {
  const trait = result.traits?.find((t) => t.trait_name === 'case_key')?.value;
  const caseKey = result.case_key ?? (typeof trait === 'string' && trait.trim() ? trait : null);
  if (caseKey) return caseKey.trim();
  const prefix = result.test_name?.split(':')[0]?.trim();
  return result.test_name?.includes(':') && prefix ? prefix : null;
}

/** Splits RFC 4180 CSV text into records of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += text[++i];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (row.push(field), (field = ''));
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      (row = []), (field = '');
    } else field += ch;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows;
}

function fromCsv(text: string, file: string): MappingEntry[] {
  const [header, ...records] = parseCsv(text).filter((r) => r.some((f) => f.trim() !== ''));
  const col = (name: string): number => header?.indexOf(name) ?? -1;
  const [idCol, taskCol, packCol] = [col('conversation_id'), col('task_id'), col('pack')];
  if (idCol < 0 || taskCol < 0) throw new ConfigError('MAPPING_INVALID', `${file}: the CSV header needs conversation_id and task_id`);
  return records.map((r, i) => {
    const id = idSchema.safeParse(r[idCol]?.trim());
    if (!id.success) throw new ConfigError('MAPPING_INVALID', `${file}: row ${i + 2}: invalid conversation_id`);
    return { conversation_id: id.data, task_id: r[taskCol]?.trim() || null, pack: (packCol >= 0 && r[packCol]?.trim()) || null, platform_status: null };
  });
}

function fromJson(value: unknown, file: string): MappingEntry[] {
  const bluejay = bluejayMappingSchema.safeParse(value);
  if (bluejay.success) {
    return bluejay.data.results.map((r) => ({ conversation_id: r.result_id, task_id: bluejayTaskId(r), pack: r.pack ?? null, platform_status: r.status ?? null }));
  }
  const plain = plainJsonSchema.safeParse(value);
  if (!plain.success) throw new ConfigError('MAPPING_INVALID', `${file}: not a mapping (pairs, {mappings}, an id → task object, or a Bluejay mapping)`);
  const data = plain.data;
  const pairs = Array.isArray(data) ? data : 'mappings' in data && Array.isArray(data.mappings) ? data.mappings : Object.entries(data).map(([conversation_id, task_id]) => ({ conversation_id, task_id: String(task_id) }));
  return pairs.map((p) => ({ conversation_id: p.conversation_id, task_id: p.task_id, pack: 'pack' in p && typeof p.pack === 'string' ? p.pack : null, platform_status: null }));
}

/** Parses a `--mapping` file (CSV or JSON by content); a conversation listed twice with two tasks is an error. */
export function parseMapping(text: string, file: string): Map<string, MappingEntry> {
  const trimmed = text.trimStart();
  let entries: MappingEntry[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ConfigError('MAPPING_INVALID', `${file}: invalid JSON`);
    }
    entries = fromJson(value, file);
  } else entries = fromCsv(text, file);
  const out = new Map<string, MappingEntry>();
  for (const entry of entries) {
    const seen = out.get(entry.conversation_id);
    if (seen && seen.task_id !== entry.task_id) throw new ConfigError('MAPPING_INVALID', `${file}: ${entry.conversation_id} is mapped to both ${seen.task_id} and ${entry.task_id}`);
    out.set(entry.conversation_id, entry);
  }
  return out;
}

/** The task id a conversation maps to, or why it maps to none (scoring.md §2.3, checked before voids). */
export function resolveTaskId(recorded: readonly (string | null)[], entry: MappingEntry | undefined): { taskId: string | null; unmapped: UnmappedReason | null } {
  const sources = [...recorded, entry?.task_id ?? null].filter((t): t is string => t !== null && t !== '');
  const distinct = [...new Set(sources)];
  if (distinct.length > 1) return { taskId: null, unmapped: 'mapping_conflict' };
  const [taskId] = distinct;
  return taskId ? { taskId, unmapped: null } : { taskId: null, unmapped: 'no_task' };
}

/** True when the platform reports the result as still running. */
export function isPending(entry: MappingEntry | undefined): boolean {
  return entry?.platform_status !== null && entry?.platform_status !== undefined && (PENDING_STATUSES as readonly string[]).includes(entry.platform_status);
}
