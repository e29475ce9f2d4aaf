/**
 * Pack contract, tasks (packs.md §6 items 32 to 35, 38 and 42; the items that need scoring, 37 and
 * 39 to 41, live in `mivas tasks validate`), one parametrised suite over every folder in packs/.
 * These items read the tasks and plan routes only, so no template is built.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/core/index.ts';
import type { Task } from '../../../../src/packs/index.ts';
import { planRoute } from '../../../../src/conversation/index.ts';
import { PACK_IDS, UNSCORED, usePack } from '../../../support/pack-contract/fixture.ts';
import { carryFields, dispatchable, humanTransferNames, isProse } from '../../../support/pack-contract/pack-facts.ts';
import { mentions, words } from '../../../support/pack-contract/prompt-text.ts';
import { propsOf, requiredOf } from '../../../support/pack-contract/schema-walk.ts';

describe.each(PACK_IDS)('pack contract: %s', (id) => {
  const scored = !UNSCORED.has(id);
  const fx = usePack(id);

  it('32. tasks parse, ids match grammar and file names, names carry the id, customer names do not', () => {
    const { pack, taskProblems } = fx();
    expect(taskProblems).toEqual([]);
    expect(pack.tasks.size).toBeGreaterThan(0);
    const grammar = scored ? /^(C[1-5]|R)-(E|M|H)[1-4](-(BG|SIG|COR))?$/ : /^S-E[1-9]$/;
    const slugs = new Map<string, string>();
    for (const task of pack.tasks.values()) {
      expect(task.task_id).toMatch(grammar);
      expect(task.task_name.startsWith(`${task.task_id}: `)).toBe(true);
      expect(task.customer_name).not.toMatch(/\b(C[1-5]|R|S)-(E|M|H)\d/);
      expect(task.metadata.category, task.task_id).toBe(task.task_id.split('-')[0]);
      const slug = slugs.get(task.metadata.category) ?? task.metadata.category_slug;
      slugs.set(task.metadata.category, slug);
      expect(task.metadata.category_slug, task.task_id).toBe(slug);
      if (scored) expect(words(task.intent), `${task.task_id} intent words`).toBeGreaterThanOrEqual(60);
      if (scored) expect(words(task.intent), `${task.task_id} intent words`).toBeLessThanOrEqual(250);
    }
  });

  it.runIf(scored)('33. 72 tasks besides the correction variants: 2/4/4 base per category, 24/24/24, 60/6/6, human transfer in six tasks over four categories', () => {
    const { pack } = fx();
    const ids = [...pack.tasks.keys()].filter((id) => !id.endsWith('-COR')).sort();
    const expected = ['C1', 'C2', 'C3', 'C4', 'C5', 'R'].flatMap((c) =>
      ['E1', 'E1-BG', 'E1-SIG', 'E2', 'M1', 'M2', 'M3', 'M4', 'H1', 'H2', 'H3', 'H4'].map((s) => `${c}-${s}`),
    );
    expect(ids).toEqual(expected.sort());
    const count = (f: (t: Task) => string): Record<string, number> =>
      [...pack.tasks.values()].filter((t) => !t.task_id.endsWith('-COR')).reduce<Record<string, number>>((acc, t) => ({ ...acc, [f(t)]: (acc[f(t)] ?? 0) + 1 }), {});
    expect(count((t) => t.metadata.difficulty)).toEqual({ easy: 24, medium: 24, hard: 24 });
    expect(count((t) => t.metadata.audio_condition)).toEqual({ perfect: 60, background_noise: 6, bad_signal: 6 });
    const letter: Record<string, string> = { E: 'easy', M: 'medium', H: 'hard' };
    for (const t of pack.tasks.values()) expect(t.metadata.difficulty, t.task_id).toBe(letter[t.task_id.split('-')[1]?.[0] ?? '']);
    const human = humanTransferNames(pack)[0] ?? '';
    const withHuman = [...pack.tasks.values()].filter((t) => t.exp_tool_calls.some((c) => c.name === human));
    expect(withHuman.length).toBeGreaterThanOrEqual(6);
    expect(new Set(withHuman.map((t) => t.metadata.category)).size).toBeGreaterThanOrEqual(4);
  });

  it.runIf(scored)('33b. every dispatchable tool is required by at least one task', () => {
    const { pack } = fx();
    const used = new Set([...pack.tasks.values()].flatMap((t) => t.exp_tool_calls.map((c) => c.name)));
    expect(dispatchable(pack).map((t) => t.name).filter((n) => !used.has(n))).toEqual([]);
  });

  it('34. audio variants differ from their E1 only in the allowed fields', () => {
    const { pack } = fx();
    const conditions: Record<string, string> = { BG: 'background_noise', SIG: 'bad_signal' };
    for (const task of pack.tasks.values()) {
      const m = /^(.+-E1)-(BG|SIG)$/.exec(task.task_id);
      if (task.task_id.endsWith('-COR')) continue;
      if (!m) {
        expect(task.variant_of, task.task_id).toBeUndefined();
        expect(task.metadata.audio_condition, task.task_id).toBe('perfect');
        continue;
      }
      const source = pack.tasks.get(m[1] ?? '');
      expect(source, `${task.task_id} source`).toBeDefined();
      expect(task.variant_of).toBe(m[1]);
      expect(task.metadata.audio_condition).toBe(conditions[m[2] ?? '']);
      const strip = (t: Task | undefined): unknown => (t ? { ...t, task_id: '', task_name: '', variant_of: undefined, metadata: { ...t.metadata, audio_condition: '' } } : undefined);
      expect(canonicalJson(strip(task)), task.task_id).toBe(canonicalJson(strip(source)));
    }
  });

  it('34b. correction variants are their base task with a correction pin: same expected calls, state, route and difficulty (issue 33)', () => {
    const { pack } = fx();
    for (const task of pack.tasks.values()) {
      if (!task.task_id.endsWith('-COR')) continue;
      const base = pack.tasks.get(task.task_id.replace(/-COR$/, ''));
      expect(task.variant_of, task.task_id).toBe(base?.task_id);
      const corrections = task.scripted_responses.filter((r) => r.duplex?.act === 'correction');
      expect(corrections, task.task_id).toHaveLength(1);
      const graded = (t: Task | undefined): unknown => (t ? { calls: t.exp_tool_calls, state: t.exp_db_state, path: t.exp_handoff_path, forbidden: t.forbidden_tools, metadata: t.metadata } : undefined);
      expect(canonicalJson(graded(task)), task.task_id).toBe(canonicalJson(graded(base)));
    }
  });

  it.runIf(scored)('34c. six or more correction variants, one in every category, none easy (issue 33)', () => {
    const corrections = [...fx().pack.tasks.values()].filter((t) => t.task_id.endsWith('-COR'));
    expect(corrections.length).toBeGreaterThanOrEqual(6);
    expect(new Set(corrections.map((t) => t.metadata.category))).toEqual(new Set(['C1', 'C2', 'C3', 'C4', 'C5', 'R']));
    expect(corrections.filter((t) => t.metadata.difficulty === 'easy')).toEqual([]);
  });

  it('35. call and hop counts fit the difficulty ladder', () => {
    const ladder = { easy: [1, 2, 0, 1], medium: [3, 6, 0, 2], hard: [7, 12, 1, 3] } as const;
    for (const task of fx().pack.tasks.values()) {
      const [minCalls, maxCalls, minHops, maxHops] = ladder[task.metadata.difficulty];
      const fits = (n: number, lo: number, hi: number): boolean => n >= lo && n <= hi;
      expect(fits(task.exp_tool_calls.length, minCalls, maxCalls), `${task.task_id}: ${task.exp_tool_calls.length} calls`).toBe(true);
      expect(fits(task.exp_handoff_path.length, minHops, maxHops), `${task.task_id}: ${task.exp_handoff_path.length} hops`).toBe(true);
    }
  });

  it('38. expected calls exist, sit on the route in order, exclude handoffs and end_call, give required inputs, $present only on prose', () => {
    const { pack } = fx();
    const carried = carryFields(pack);
    for (const task of pack.tasks.values()) {
      for (const call of task.exp_tool_calls) {
        const tool = pack.catalog.get(call.name);
        expect(tool?.definition, `${task.task_id}: ${call.name} is a dispatchable tool`).toBeDefined();
        const props = propsOf(tool?.inputSchema);
        const params = call.parameters ?? {};
        expect(Object.keys(params).filter((k) => !(k in props)), `${task.task_id} ${call.name}: unknown parameters`).toEqual([]);
        expect(requiredOf(tool?.inputSchema).filter((r) => !(r in params) && !carried.has(r)), `${task.task_id} ${call.name}: required inputs`).toEqual([]);
        for (const [k, m] of Object.entries(params)) {
          if (typeof m === 'object' && '$present' in m) expect(isProse(props[k]), `${task.task_id} ${call.name}.${k}: $present on a non-prose field`).toBe(true);
        }
      }
      expect(planRoute(pack, task).problems, task.task_id).toEqual([]);
      const expectedNames = new Set(task.exp_tool_calls.map((c) => c.name));
      for (const f of task.forbidden_tools) {
        expect(pack.catalog.has(f), `${task.task_id}: forbidden ${f} exists`).toBe(true);
        expect(expectedNames.has(f), `${task.task_id}: ${f} both expected and forbidden`).toBe(false);
      }
    }
  });

  it('42. pins use the allowed types and name no tools or desks; intents have exact opening and closing lines', () => {
    const { pack } = fx();
    const toolNames = [...pack.catalog.keys()];
    const desks = pack.blueprint.agents.map((a) => a.name).join('|');
    const deskWords = new RegExp(`\\b(${desks})[ _](desk|agent|specialist|node)\\b|\\bhand ?offs?\\b`, 'i');
    for (const task of pack.tasks.values()) {
      expect(task.intent, task.task_id).toMatch(/open with exactly: "[^"]+"/i);
      const exact = [...task.intent.matchAll(/exactly: "[^"]+"/gi)];
      expect(exact.length, `${task.task_id}: an exact closing line after the opening`).toBeGreaterThanOrEqual(2);
      for (const pin of task.scripted_responses) {
        for (const text of [pin.match_phrase, pin.response_value]) {
          expect(toolNames.filter((n) => mentions(text, n)), `${task.task_id}: pin names a tool`).toEqual([]);
          expect(text, `${task.task_id}: pin names a desk`).not.toMatch(deskWords);
        }
      }
    }
  });
});
