/**
 * Pack contract, tools (packs.md §6 items 8 to 17), one parametrised suite over every folder in
 * packs/. The executor items run every dispatchable tool against call databases copied from the
 * pack's template, with fuzzed arguments under a fixed seed.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cachedReferenceTables, envelopeSchema as envelopeJsonSchema, jsonSchemaOf, renderToolsJson, type CatalogTool } from '../../../../src/packs/index.ts';
import { dumpDatabase, type CallDatabase } from '../../../../src/store/index.ts';
import { envelopeSchema, RUNTIME_ERROR_CODES } from '../../../../src/tools/index.ts';
import { createCallRunner, PACK_IDS, PACKS_DIR, replayCalls, UNSCORED, usePackWithTemplate } from '../../../support/pack-contract/fixture.ts';
import { argsArbitrary, FUZZ_SEED, HOSTILE } from '../../../support/pack-contract/fuzz.ts';
import {
  allowedSafeMessages,
  changedTables,
  dispatchable,
  humanTransferNames,
  listedErrors,
  packSource,
  refusedCodes,
  SESSION_TABLES,
} from '../../../support/pack-contract/pack-facts.ts';
import { words } from '../../../support/pack-contract/prompt-text.ts';
import { propsOf, stringsIn, validArgs, walk } from '../../../support/pack-contract/schema-walk.ts';

const READ_PREFIXES = ['get_', 'list_', 'find_', 'check_', 'classify_', 'explain_', 'verify_', 'quote_', 'hold_'];
const WRITE_PREFIXES = ['book_', 'confirm_', 'cancel_', 'register_', 'record_', 'update_', 'join_', 'send_', 'request_', 'report_', 'take_', 'add_', 'create_', 'set_up_'];
const UPPER_SNAKE = /^[A-Z][A-Z0-9_]*$/;

describe.each(PACK_IDS)('pack contract: %s', (id) => {
  const dir = join(PACKS_DIR, id);
  const scored = !UNSCORED.has(id);
  const fx = usePackWithTemplate(id);
  const { freshDb, run, gates, verifiedDb } = createCallRunner(fx);

  it('8. tools.json equals its regeneration', () => {
    expect(readFileSync(join(dir, 'tools.json'), 'utf8')).toBe(renderToolsJson(fx().pack));
  });

  it('9. inputs are closed, with date, datetime, phone and money forms; no format date-time', () => {
    const problems: string[] = [];
    for (const tool of fx().pack.catalog.values()) {
      walk(tool.inputSchema, '', (node, name) => {
        const where = `${tool.name}.${name || '(input)'}`;
        if (node.type === 'object' && node.additionalProperties !== false) problems.push(`${where}: object not closed`);
        if (node.format === 'date-time') problems.push(`${where}: format date-time`);
        if (node.type === 'number' || node.type === 'integer') {
          if (/(amount|price|fee|balance|cost|deposit|payment)/.test(name) && !name.endsWith('_cents')) problems.push(`${where}: money without _cents`);
          if (name.endsWith('_cents') && node.type !== 'integer') problems.push(`${where}: cents must be an integer`);
        }
        if (node.type !== 'string' || node.enum !== undefined || node.const !== undefined) return;
        if (node.pattern === undefined && node.maxLength === undefined) problems.push(`${where}: open string`);
        const pattern = typeof node.pattern === 'string' ? new RegExp(node.pattern) : undefined;
        const accepts = (ok: string[], bad: string[]): boolean => !!pattern && ok.every((v) => pattern.test(v)) && bad.every((v) => !pattern.test(v));
        if (/(^|_)(datetime|starts_at|ends_at)$|_at$/.test(name) && !accepts(['2026-10-07T10:00'], ['2026-10-07T10:00:00', '2026-10-07T10:00Z', '2026-10-07']))
          problems.push(`${where}: datetime must be YYYY-MM-DDTHH:MM`);
        else if (/(^|_)(date|dob)(_|$)|_on$|date_of_birth/.test(name) && !accepts(['2026-10-07'], ['2026-10-07T10:00', 'October 7', '10/07/2026']))
          problems.push(`${where}: date must be YYYY-MM-DD`);
        if (/(^|_)(phone|mobile)(_|$)/.test(name) && !accepts(['+12125550100'], ['2125550100', '(212) 555-0100'])) problems.push(`${where}: phone must be E.164`);
      });
      walk(tool.outputSchema, '', (node, name) => {
        if (node.format === 'date-time') problems.push(`${tool.name} output ${name}: format date-time`);
      });
    }
    expect(problems).toEqual([]);
  });

  it('10. outputs are the envelope around the declared data', () => {
    for (const tool of fx().pack.catalog.values()) {
      if (tool.kind === 'handoff') {
        expect(tool.outputSchema).toEqual(jsonSchemaOf(z.object({ assistant: z.literal(tool.handoffTo ?? '') })));
        continue;
      }
      const data = tool.definition ? jsonSchemaOf(tool.definition.output) : {};
      expect(tool.outputSchema, tool.name).toEqual(envelopeJsonSchema(data));
    }
  });

  it('11. descriptions have Use when / Returns / Do not use for, end with catalogued error codes, stay under 120 words', () => {
    const { pack } = fx();
    const catalogued = new Set([...Object.keys(pack.module.errorCodes), ...Object.keys(RUNTIME_ERROR_CODES)]);
    for (const tool of pack.catalog.values()) {
      if (tool.kind === 'handoff') continue;
      const d = tool.description;
      const at = ['Use when:', 'Returns:', 'Do not use for:'].map((p) => d.indexOf(p));
      expect(at.every((i, k) => i >= 0 && (k === 0 || i > (at[k - 1] ?? 0))), `${tool.name}: three parts in order`).toBe(true);
      expect(words(d), tool.name).toBeLessThan(120);
      if (!tool.definition) continue;
      const listed = listedErrors(d);
      expect(listed, `${tool.name}: ends with Errors:`).toBeDefined();
      for (const code of listed ?? []) expect(code === 'none' || catalogued.has(code), `${tool.name}: ${code} is catalogued`).toBe(true);
      const returned = refusedCodes(tool.definition.run.toString());
      if (tool.definition.gate) returned.push('NOT_VERIFIED');
      expect(returned.filter((c) => !listed?.includes(c)), `${tool.name}: codes it returns but does not list`).toEqual([]);
    }
  });

  it('12. error codes are UPPER_SNAKE, catalogued, with safe messages free of exception-like text', () => {
    const { pack } = fx();
    for (const [code, entry] of Object.entries(pack.module.errorCodes)) {
      expect(code).toMatch(UPPER_SNAKE);
      expect(typeof entry.recoverable).toBe('boolean');
      expect(entry.safe_message.trim().length, code).toBeGreaterThan(0);
      expect(entry.safe_message, code).not.toMatch(/Error\b|Exception|undefined|\bnull\b|NaN|\[object|stack|[{}<>`$\\]|\bat \S+ \(/);
    }
    const catalogued = new Set([...Object.keys(pack.module.errorCodes), ...Object.keys(RUNTIME_ERROR_CODES)]);
    expect([...new Set(refusedCodes(packSource(pack)))].filter((c) => !catalogued.has(c))).toEqual([]);
  });

  it('13. every dispatchable tool runs through the executor; handoffs, end_call and unknown names do not', () => {
    const { pack, pool } = fx();
    const db = freshDb();
    for (const tool of dispatchable(pack)) {
      const args = validArgs(tool, pool);
      expect(args, `${tool.name}: schema-valid arguments could be built`).toBeDefined();
      const out = run(db, tool, args);
      expect([tool.name, out.executed, out.refusal, out.internalFault]).toEqual([tool.name, true, null, null]);
    }
    const before = dumpDatabase(db.sqlite);
    const stub: CatalogTool = { name: 'no_such_tool', description: '', kind: 'industry', input: z.object({}), inputSchema: {}, outputSchema: {} };
    expect(pack.catalog.has('no_such_tool')).toBe(false);
    for (const tool of [...[...pack.catalog.values()].filter((t) => !t.definition), stub]) {
      const out = run(db, tool, {});
      expect([tool.name, out.executed, out.refusal, out.output.ok]).toEqual([tool.name, false, 'UNKNOWN_TOOL', false]);
    }
    expect(changedTables(before, dumpDatabase(db.sqlite))).toEqual([]);
  });

  it('14. {} and fuzzed arguments always yield an envelope with no input or exception text in safe_message', () => {
    const { pack, pool } = fx();
    const allowed = allowedSafeMessages(pack);
    const check = (tool: CatalogTool, db: CallDatabase, args: unknown): void => {
      const out = run(db, tool, args);
      expect(envelopeSchema.safeParse(out.output).success, tool.name).toBe(true);
      expect(out.internalFault, `${tool.name} threw or broke its output schema for ${JSON.stringify(args)}`).toBeNull();
      if (out.output.ok) return;
      expect(out.output.error_code).toMatch(UPPER_SNAKE);
      expect(allowed.has(out.output.safe_message ?? ''), `${tool.name}: safe_message is a catalogued sentence`).toBe(true);
      for (const s of stringsIn(args)) if (s.trim().length >= 6) expect(out.output.safe_message).not.toContain(s);
    };
    const verified = verifiedDb();
    if (gates().length) expect(verified, 'a call state with every gate open can be reached').toBeDefined();
    const states = [freshDb(), verified].filter((d): d is CallDatabase => d !== undefined);
    for (const tool of dispatchable(pack)) {
      for (const db of states) {
        for (const args of [{}, null, [], 'text', { [Object.keys(propsOf(tool.inputSchema))[0] ?? 'x']: HOSTILE[0] }]) check(tool, db, args);
        fc.assert(fc.property(argsArbitrary(tool.inputSchema, pool), (args) => check(tool, db, args)), { seed: FUZZ_SEED, numRuns: 40, endOnFailure: true });
      }
    }
  });

  it('15. no banned name stems and no card, security-code, social-security or password fields', () => {
    const { pack } = fx();
    for (const tool of pack.catalog.values()) {
      expect(tool.name).not.toMatch(/advice|advise|diagnos|waive|value|valuat|override/);
      walk(tool.inputSchema, '', (_node, name) => expect(name, tool.name).not.toMatch(/card_?num|cvv|cvc|security_code|ssn|social_security|password|passcode/));
    }
  });

  it('16. reads leave scored tables unchanged; writes touch only their writes; prefixes state the effect', () => {
    const { pack, pool } = fx();
    const humans = humanTransferNames(pack);
    for (const tool of dispatchable(pack)) {
      const def = tool.definition;
      if (!def) continue;
      const prefixes = def.effect === 'read' ? READ_PREFIXES : WRITE_PREFIXES;
      if (!humans.includes(tool.name)) expect(prefixes.some((p) => tool.name.startsWith(p)), `${tool.name} prefix fits ${def.effect}`).toBe(true);
      if (def.effect === 'read') expect(def.writes.filter((t) => !SESSION_TABLES.includes(t)), tool.name).toEqual([]);
    }
    const observe = (db: CallDatabase, tool: CatalogTool, args: unknown): void => {
      const before = dumpDatabase(db.sqlite);
      run(db, tool, args);
      const changed = changedTables(before, dumpDatabase(db.sqlite));
      expect(changed.filter((t) => !(tool.definition?.writes ?? []).includes(t)), `${tool.name} wrote outside its writes`).toEqual([]);
    };
    const states = [freshDb(), verifiedDb()].filter((d): d is CallDatabase => d !== undefined);
    for (const tool of dispatchable(pack)) {
      for (const db of states) {
        observe(db, tool, validArgs(tool, pool));
        fc.assert(fc.property(argsArbitrary(tool.inputSchema, pool), (args) => observe(db, tool, args)), { seed: FUZZ_SEED + 1, numRuns: 8, endOnFailure: true });
      }
    }
    for (const task of pack.tasks.values()) {
      const db = freshDb();
      let before = dumpDatabase(db.sqlite);
      replayCalls(pack, task, db, (d, execution) => {
        const after = dumpDatabase(d.sqlite);
        const writes = pack.catalog.get(execution.name)?.definition?.writes ?? [];
        expect(changedTables(before, after).filter((t) => !writes.includes(t)), `${task.task_id} ${execution.name}`).toEqual([]);
        before = after;
        return false;
      });
    }
  }, 120_000); // every tool twice, fuzzed, and every task replayed, each call with two full dumps: heavy on a loaded 2-core machine

  it('16 (cache part). no tool writes a reference table its pack reads through referenceTable (read once per call)', () => {
    const { pack } = fx();
    for (const tool of dispatchable(pack)) {
      expect((tool.definition?.writes ?? []).filter((t) => cachedReferenceTables.has(t)), tool.name).toEqual([]);
    }
  });

  it('17 (gate part). NOT_VERIFIED comes from the executor for gated tools: no gated body or helper returns it, only ungated tool bodies', () => {
    const { pack } = fx();
    const quoted = (source: string): number => source.match(/['"]NOT_VERIFIED['"]/g)?.length ?? 0;
    const defs = dispatchable(pack).flatMap((t) => (t.definition ? [t.definition] : []));
    for (const def of defs.filter((d) => d.gate)) expect(quoted(def.run.toString()), `${def.name} is gated, so its body never answers NOT_VERIFIED`).toBe(0);
    const ungated = defs.filter((d) => !d.gate).reduce((n, d) => n + refusedCodes(d.run.toString()).filter((c) => c === 'NOT_VERIFIED').length, 0);
    expect(quoted(packSource(pack)), 'every NOT_VERIFIED literal in the pack source is a refusal in an ungated tool body').toBe(ungated);
  });

  it('17 (gate part). tools that only protected desks own refuse an unverified caller and write nothing', () => {
    const { pack, pool } = fx();
    const guarded = new Set(Object.values(pack.module.graphRules.gates).flat());
    const humans = humanTransferNames(pack);
    const protectedTools = dispatchable(pack).filter(
      (t) => !humans.includes(t.name) && pack.blueprint.agents.filter((a) => a.tools.some((r) => r.name === t.name)).every((a) => guarded.has(a.name)),
    );
    if (scored && guarded.size) expect(protectedTools.length).toBeGreaterThan(0);
    for (const tool of protectedTools) {
      const db = freshDb();
      const before = dumpDatabase(db.sqlite);
      const out = run(db, tool, validArgs(tool, pool));
      expect([tool.name, out.output.ok, out.output.error_code]).toEqual([tool.name, false, 'NOT_VERIFIED']);
      expect(changedTables(before, dumpDatabase(db.sqlite)).filter((t) => !SESSION_TABLES.includes(t))).toEqual([]);
    }
  });
});
