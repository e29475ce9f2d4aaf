import type { JsonSchema } from '../packs/index.ts';

/** A tool as offered to the model: name, description and JSON Schema parameters. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/** The active agent as the model sees it (applied with session.update on a handoff). */
export interface AgentSetup {
  readonly name: string;
  readonly instructions: string;
  readonly tools: readonly ToolSpec[];
}

