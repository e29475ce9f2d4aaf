/**
 * Pack contract, prompts and README (packs.md §6 items 26 to 31), one parametrised suite over every
 * folder in packs/. The template is built because the README's seed counts come from it.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/core/index.ts';
import { README_BLOCK_NAMES, readReadmeBlocks, renderReadmeBlocks } from '../../../../src/packs/index.ts';
import { PACK_IDS, PACKS_DIR, UNSCORED, usePackWithTemplate } from '../../../support/pack-contract/fixture.ts';
import { filesUnder } from '../../../support/pack-contract/pack-facts.ts';
import { CORE_SECTIONS, enumsOfAgent, headings, isSubsequence, mentions, ROLE_SECTIONS, splitPrompt, words } from '../../../support/pack-contract/prompt-text.ts';

const EM_DASH = '\u2014';

describe.each(PACK_IDS)('pack contract: %s', (id) => {
  const dir = join(PACKS_DIR, id);
  const scored = !UNSCORED.has(id);
  const fx = usePackWithTemplate(id);

  it('26. the core block is byte-identical, sections are in order, non-entry prompts say where the call is', () => {
    const { pack } = fx();
    const parts = pack.blueprint.agents.map((a) => ({ agent: a.name, split: splitPrompt(pack.prompts.get(a.name) ?? '') }));
    for (const p of parts) expect(p.split, `${p.agent}: has # YOUR ROLE:`).toBeDefined();
    const cores = new Set(parts.map((p) => p.split?.core));
    expect(cores.size, 'one core block').toBe(1);
    const core = parts[0]?.split?.core ?? '';
    const coreHeadings = headings(core, '#');
    if (scored) expect(coreHeadings).toEqual(CORE_SECTIONS);
    else expect(coreHeadings[0] === 'WHO YOU ARE' && isSubsequence(coreHeadings, CORE_SECTIONS)).toBe(true);
    const who = core.split(/^# /m)[1] ?? '';
    expect(who).toContain(pack.blueprint.company);
    expect(who).toMatch(/virtual assistant|\bAI\b/);
    for (const { agent, split } of parts) {
      const role = split?.role ?? '';
      expect(headings(role, '#'), agent).toHaveLength(1);
      const roleHeadings = headings(role, '##');
      const isEntry = agent === pack.entryAgent;
      if (scored) expect(roleHeadings, agent).toEqual(isEntry ? ROLE_SECTIONS.slice(1) : ROLE_SECTIONS);
      else expect(isSubsequence(roleHeadings, ROLE_SECTIONS), agent).toBe(true);
      expect(roleHeadings.includes('WHERE THE CALL IS'), `${agent}: WHERE THE CALL IS`).toBe(!isEntry);
    }
  });

  it.runIf(scored)('27. prompts are 600 to 2,000 words with a role part of at least 250', () => {
    const { pack } = fx();
    for (const [agent, text] of pack.prompts) {
      expect(words(text), agent).toBeGreaterThanOrEqual(600);
      expect(words(text), agent).toBeLessThanOrEqual(2000);
      expect(words(splitPrompt(text)?.role ?? ''), `${agent} role part`).toBeGreaterThanOrEqual(250);
    }
  });

  it('28. no em dash in prompts, blueprint, descriptions, scripts, safe messages or tasks', () => {
    const files = [
      ...filesUnder(join(dir, 'prompts')),
      ...filesUnder(join(dir, 'tasks')),
      ...filesUnder(join(dir, 'lib')),
      ...['blueprint.json', 'tools.json', 'tools.ts'].map((f) => join(dir, f)),
    ];
    expect(files.filter((f) => readFileSync(f, 'utf8').includes(EM_DASH)).map((f) => relative(dir, f))).toEqual([]);
    expect(Object.values(fx().pack.module.errorCodes).filter((e) => e.safe_message.includes(EM_DASH))).toEqual([]);
  });

  it('29. each prompt names all its tools and no others; every a | b | c list equals a field enum', () => {
    const { pack } = fx();
    for (const agent of pack.blueprint.agents) {
      const text = pack.prompts.get(agent.name) ?? '';
      const own = agent.tools.map((t) => t.name);
      expect(own.filter((n) => !mentions(text, n)), `${agent.name}: tools not named`).toEqual([]);
      expect([...pack.catalog.keys()].filter((n) => !own.includes(n) && mentions(text, n)), `${agent.name}: foreign tools named`).toEqual([]);
      const { enums, required } = enumsOfAgent(pack, agent.name);
      const lists = [...text.matchAll(/[a-z][a-z0-9_]*(?: \| [a-z][a-z0-9_]*)+/g)].map((m) => m[0].split(' | '));
      for (const list of lists) expect(enums.some((e) => canonicalJson(e) === canonicalJson(list)), `${agent.name}: ${list.join(' | ')} is no enum of its tools`).toBe(true);
      if (!scored) continue;
      for (const e of enums) expect(lists.some((l) => canonicalJson(l) === canonicalJson(e)), `${agent.name}: enum ${e.join(' | ')} not written out`).toBe(true);
      expect([...new Set(required)].filter((r) => !mentions(text, r)), `${agent.name}: required arguments not named`).toEqual([]);
    }
  });

  it('30. the greeting appears verbatim in the entry prompt', () => {
    const { pack } = fx();
    if (scored) expect(pack.blueprint.greeting).toBeDefined();
    if (pack.blueprint.greeting) expect(pack.prompts.get(pack.entryAgent)).toContain(pack.blueprint.greeting);
  });

  it('31. README generated blocks equal their regeneration', () => {
    const { pack, template } = fx();
    const readme = readReadmeBlocks(readFileSync(join(dir, 'README.md'), 'utf8'));
    const seedCounts = Object.fromEntries(Object.entries(template).map(([t, rows]) => [t, rows.length]));
    const fresh = renderReadmeBlocks({ blueprint: pack.blueprint, module: pack.module, tasks: pack.tasks.values(), seedCounts });
    for (const name of README_BLOCK_NAMES) expect(readme[name], `block ${name}`).toBe(fresh[name]);
  });
});
