/**
 * Reading agent prompts: word counts, tool mentions, the core and role parts, their headings, and the
 * enums a prompt must write out.
 */
import type { Pack } from '../../../src/packs/index.ts';
import { enumOf, requiredOf, walk } from './schema-walk.ts';

/** The headings of the shared core block, in order. */
export const CORE_SECTIONS: readonly string[] = ['WHO YOU ARE', 'HOW YOU SPEAK', 'GUARDRAILS', 'HANDOFFS ARE SILENT', 'TRUTH COMES FROM TOOLS', 'SECURITY', 'WHAT YOU MAY SAY WITHOUT A TOOL'];

/** The sub-headings of a role part, in order; the entry agent's omits the first. */
export const ROLE_SECTIONS: readonly string[] = ['WHERE THE CALL IS', 'GOAL', 'TOOLS AT THIS DESK', 'ROUTING', 'EDGE CASES', 'ENDING THE CALL'];

/** The number of whitespace-separated words in a text. */
export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Whether a text names an identifier as a whole word. */
export function mentions(text: string, name: string): boolean {
  return new RegExp(`(?<![a-z0-9_])${name}(?![a-z0-9_])`).test(text);
}

/** Whether `list` appears in `of` in order and holds nothing that `of` lacks. */
export function isSubsequence(list: readonly string[], of: readonly string[]): boolean {
  let i = 0;
  for (const item of of) if (item === list[i]) i++;
  return i === list.length && list.every((x) => of.includes(x));
}

/** A prompt split at its `# YOUR ROLE:` heading into core and role parts, or undefined without one. */
export function splitPrompt(text: string): { core: string; role: string } | undefined {
  const m = /^# YOUR ROLE: .+$/m.exec(text);
  return m ? { core: text.slice(0, m.index), role: text.slice(m.index) } : undefined;
}

/** The texts of the headings of one level in a markdown text. */
export function headings(text: string, level: '#' | '##'): string[] {
  return [...text.matchAll(new RegExp(`^${level} (.+)$`, 'gm'))].map((m) => (m[1] ?? '').trim());
}

/** The multi-value enums and required argument names across the input schemas of an agent's tools. */
export function enumsOfAgent(pack: Pack, agent: string): { enums: string[][]; required: string[] } {
  const enums: string[][] = [];
  const required: string[] = [];
  for (const ref of pack.blueprint.agents.find((a) => a.name === agent)?.tools ?? []) {
    const tool = pack.catalog.get(ref.name);
    if (!tool) continue;
    required.push(...requiredOf(tool.inputSchema));
    walk(tool.inputSchema, '', (node) => {
      const values = enumOf(node);
      if (values && values.length > 1) enums.push(values);
    });
  }
  return { enums, required };
}
