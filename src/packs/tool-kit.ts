import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { z } from 'zod';
import type { PackClock, PackClockSpec } from './pack-clock.ts';

/** The drizzle handle a tool receives: the call's own SQLite file. */
export type PackDb = BetterSQLite3Database<Record<string, never>>;

/** What a pack tool may see: the call database, the call and the pack clock (architecture.md convention 11). */
export interface ToolContext {
  readonly db: PackDb;
  readonly call: { readonly callId: string; readonly agent: string };
  readonly clock: PackClock;
}

/** A refusal the tool means to report; its safe message comes from the pack's error catalogue. */
export interface ToolRefusal {
  readonly ok: false;
  readonly error_code: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** The outcome of a tool's run: success with data, or a catalogued refusal. */
export type ToolResult<D> = { readonly ok: true; readonly data: D } | ToolRefusal;

/** One industry (or human-transfer) tool of a pack. */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Canonical input; its JSON Schema is what the model sees. */
  readonly input: I;
  /** Schema of `data` on success. */
  readonly output: O;
  readonly effect: 'read' | 'write';
  readonly writes: readonly string[];
  /** The call-session flag the tool needs (for example "verified"). */
  readonly gate?: string;
  /** The quote tool whose token this tool consumes. */
  readonly confirms?: string;
  /** Fields of the output whose values later calls carry forward (tokens, hold ids). */
  readonly carryForward?: readonly string[];
  /** Pure, tolerant preprocessing of raw arguments before the strict parse (packs.md §2.4). */
  readonly normalize?: (raw: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  run(args: z.output<I>, ctx: ToolContext): ToolResult<z.output<O>>;
}

/** One entry of a pack's error catalogue. */
export interface ErrorCodeEntry {
  readonly safe_message: string;
  readonly recoverable: boolean;
}

/** The exports of packs/<id>/tools.ts. */
export interface PackToolsModule {
  readonly tools: readonly ToolDefinition[];
  readonly clock: PackClockSpec;
  readonly policy: Readonly<Record<string, number | string | boolean | readonly (number | string)[]>>;
  readonly graphRules: { readonly sinks: readonly string[]; readonly gates: Readonly<Record<string, readonly string[]>> };
  readonly errorCodes: Readonly<Record<string, ErrorCodeEntry>>;
  /** Optional generated seed (packs with seed.ts instead of seed.sql live there). */
}

/** Declares a tool with its input and output types inferred. */
export function defineTool<I extends z.ZodObject, O extends z.ZodType>(def: ToolDefinition<I, O>): ToolDefinition {
  return def as unknown as ToolDefinition;
}

/** A successful tool result. */
export function ok<D>(data: D): { readonly ok: true; readonly data: D } {
  return { ok: true, data };
}

/** A catalogued refusal; `data` may carry `recoverable` and computed details, never raw input. */
export function refuse(errorCode: string, data?: Record<string, unknown>): ToolRefusal {
  return data === undefined ? { ok: false, error_code: errorCode } : { ok: false, error_code: errorCode, data };
}

export type { PackClock, PackClockSpec };
