import type { ZodError } from 'zod';
import type { CatalogTool, Pack, ToolContext, ToolDefinition, ToolResult } from '../packs/index.ts';
import { isPlainObject } from '../core/index.ts';
import { hasGate } from '../packs/index.ts';
import type { CallDatabase } from '../store/index.ts';
import { runtimeRefusal, RUNTIME_ERROR_CODES, type Envelope, type Refusal } from './envelope.ts';

/** One tool execution as the executor saw it; the graph runtime turns it into a timeline event. */
export interface ToolExecution {
  readonly name: string;
  readonly agent: string;
  readonly arguments: unknown;
  readonly canonicalArguments: Record<string, unknown> | null;
  readonly output: Envelope;
  readonly executed: boolean;
  readonly refusal: Refusal | null;
  /** Set when pack code threw or broke its contract; the exception stays out of the envelope. */
  readonly internalFault: string | null;
  readonly durationMs: number;
}

/** What the executor needs for one call. */
export interface ExecutorContext {
  readonly pack: Pack;
  readonly callId: string;
  readonly database: CallDatabase;
  readonly nowMs: () => number;
}

function invalidFields(error: ZodError): string[] {
  return [...new Set(error.issues.map((i) => (i.path.length ? i.path.join('.') : '(arguments)')))];
}

/** Thrown inside the tool's transaction when its output breaks its schema, so its writes roll back. */
class OutputContractError extends Error {}

function runChecked(definition: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): ToolResult<unknown> {
  const result = definition.run(args, ctx);
  if (!result.ok) return result;
  const checked = definition.output.safeParse(result.data);
  if (!checked.success) throw new OutputContractError(`output of ${definition.name} broke its schema: ${checked.error.message}`);
  return { ok: true, data: checked.data };
}

function packEnvelope(pack: Pack, result: ToolResult<unknown>, tool: CatalogTool): { output: Envelope; fault: string | null } {
  if (result.ok) return { output: { ok: true, data: result.data }, fault: null };
  const entry = pack.module.errorCodes[result.error_code] ?? (RUNTIME_ERROR_CODES as Record<string, { safe_message: string }>)[result.error_code];
  if (!entry) return { output: runtimeRefusal('INTERNAL_ERROR'), fault: `${tool.name} returned uncatalogued code ${result.error_code}` };
  const output: Envelope = { ok: false, error_code: result.error_code, safe_message: entry.safe_message };
  return { output: result.data === undefined ? output : { ...output, data: result.data }, fault: null };
}

/**
 * Runs one dispatchable tool (an industry tool or the human-transfer tool) for `agent`. Never
 * throws: every outcome, including a pack bug, is an envelope (architecture.md §6).
 */
export function executeTool(ctx: ExecutorContext, agent: string, tool: CatalogTool, rawArguments: unknown): ToolExecution {
  const started = ctx.nowMs();
  const finish = (fields: Omit<ToolExecution, 'name' | 'agent' | 'arguments' | 'durationMs'>): ToolExecution => ({
    name: tool.name,
    agent,
    arguments: rawArguments,
    durationMs: ctx.nowMs() - started,
    ...fields,
  });
  const definition = tool.definition;
  if (!definition) return finish({ canonicalArguments: null, output: runtimeRefusal('UNKNOWN_TOOL'), executed: false, refusal: 'UNKNOWN_TOOL', internalFault: null });
  if (!isPlainObject(rawArguments)) {
    return finish({ canonicalArguments: null, output: runtimeRefusal('INVALID_ARGUMENTS', { invalid_fields: ['(arguments)'] }), executed: false, refusal: 'INVALID_ARGUMENTS', internalFault: null });
  }
  let normalized: Record<string, unknown>;
  try {
    normalized = definition.normalize ? definition.normalize(rawArguments) : rawArguments;
  } catch {
    normalized = rawArguments;
  }
  const parsed = definition.input.safeParse(normalized);
  // The declared schema says additionalProperties: false; a field it does not name is refused, not dropped.
  const unknownFields = Object.keys(normalized).filter((k) => !(k in definition.input.shape));
  if (!parsed.success || unknownFields.length > 0) {
    const fields = [...(parsed.success ? [] : invalidFields(parsed.error)), ...unknownFields];
    return finish({ canonicalArguments: null, output: runtimeRefusal('INVALID_ARGUMENTS', { invalid_fields: fields }), executed: false, refusal: 'INVALID_ARGUMENTS', internalFault: null });
  }
  const canonicalArguments = parsed.data as Record<string, unknown>;
  const toolContext: ToolContext = { db: ctx.database.db, call: { callId: ctx.callId, agent }, clock: ctx.pack.clock };
  if (definition.gate && !hasGate(ctx.database.db, definition.gate)) {
    return finish({ canonicalArguments, output: runtimeRefusal('NOT_VERIFIED'), executed: true, refusal: null, internalFault: null });
  }
  try {
    const result = ctx.database.inTransaction(() => runChecked(definition, canonicalArguments, toolContext));
    const { output, fault } = packEnvelope(ctx.pack, result, tool);
    return finish({ canonicalArguments, output, executed: true, refusal: null, internalFault: fault });
  } catch (err) {
    const fault = err instanceof Error ? `${err.name}: ${err.message}` : 'non-error thrown';
    return finish({ canonicalArguments, output: runtimeRefusal('INTERNAL_ERROR'), executed: true, refusal: null, internalFault: fault });
  }
}
