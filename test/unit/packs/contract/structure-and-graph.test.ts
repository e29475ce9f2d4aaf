/**
 * Pack contract, structure and graph (packs.md §6 items 1 to 7), one parametrised suite over every
 * folder in packs/. These items read the pack's files and its assembled definition only, so no
 * template is built.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { blueprintSchema, buildCatalog, HUMAN_TRANSFER, RUNTIME_TOOL_NAMES } from '../../../../src/packs/index.ts';
import { PACK_IDS, PACKS_DIR, UNSCORED, usePack } from '../../../support/pack-contract/fixture.ts';
import { handoffTargets, humanTransferNames, reachableFrom } from '../../../support/pack-contract/pack-facts.ts';
import { enumOf, propsOf, requiredOf } from '../../../support/pack-contract/schema-walk.ts';

const ALLOWED_ENTRIES = ['README.md', 'blueprint.json', 'prompts', 'tools.ts', 'lib', 'tools.json', 'schema.ts', 'seed.sql', 'seed.ts', 'compare.json', 'tasks'];

describe.each(PACK_IDS)('pack contract: %s', (id) => {
  const dir = join(PACKS_DIR, id);
  const scored = !UNSCORED.has(id);
  const fx = usePack(id);

  it('1. holds only allowed entries and exactly one seed file', () => {
    const entries = readdirSync(dir);
    expect(entries.filter((e) => !ALLOWED_ENTRIES.includes(e))).toEqual([]);
    expect(entries.filter((e) => e === 'seed.sql' || e === 'seed.ts')).toHaveLength(1);
    expect(readdirSync(join(dir, 'prompts')).filter((f) => !f.endsWith('.md'))).toEqual([]);
  });

  it('2. blueprint.json parses with valid, unique agent names other than human', () => {
    const parsed = blueprintSchema.safeParse(JSON.parse(readFileSync(join(dir, 'blueprint.json'), 'utf8')));
    expect(parsed.error?.issues ?? []).toEqual([]);
    const names = parsed.data?.agents.map((a) => a.name) ?? [];
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name === 'human' || !/^[a-z][a-z_]*$/.test(name)).toBe(false);
  });

  it('3. every system_prompt is prompts/<name>.md and exists; no prompt is unreferenced', () => {
    const { blueprint } = fx().pack;
    for (const a of blueprint.agents) {
      expect(a.system_prompt).toBe(`prompts/${a.name}.md`);
      expect(existsSync(join(dir, a.system_prompt)), a.system_prompt).toBe(true);
    }
    expect(readdirSync(join(dir, 'prompts')).sort()).toEqual(blueprint.agents.map((a) => `${a.name}.md`).sort());
  });

  it('4. referenced tools, tools.ts and tools.json match both ways; each tool is defined once', () => {
    const { pack } = fx();
    const referenced = new Set(pack.blueprint.agents.flatMap((a) => a.tools.map((t) => t.name)));
    const inJson = z.object({ tools: z.array(z.object({ name: z.string() }).passthrough()) }).parse(JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')));
    expect(inJson.tools.map((t) => t.name).sort()).toEqual([...referenced].sort());
    const defined = pack.module.tools.map((t) => t.name);
    expect(new Set(defined).size).toBe(defined.length);
    const generated = new Set(pack.blueprint.agents.flatMap((a) => a.tools.filter((t) => t.handoff || RUNTIME_TOOL_NAMES.includes(t.name)).map((t) => t.name)));
    const needed = [...referenced].filter((n) => !generated.has(n)).sort();
    expect(defined.filter((n) => referenced.has(n)).sort()).toEqual(needed);
    expect(defined.filter((n) => !referenced.has(n))).toEqual([]);
  });

  it('5. handoffs are transfer_to_<agent> into another agent; next_desk exactly into multi-desk gates', () => {
    const { pack } = fx();
    const gateAgents = Object.keys(pack.module.graphRules.gates);
    for (const agent of pack.blueprint.agents) {
      for (const ref of agent.tools.filter((t) => t.handoff)) {
        expect(ref.handoff_to && ref.handoff_to !== agent.name && pack.blueprint.agents.some((a) => a.name === ref.handoff_to)).toBe(true);
        expect(ref.name).toBe(`transfer_to_${ref.handoff_to}`);
        const tool = pack.catalog.get(ref.name);
        const onward = handoffTargets(pack, ref.handoff_to ?? '');
        const props = propsOf(tool?.inputSchema);
        if (gateAgents.includes(ref.handoff_to ?? '') && onward.length > 1) {
          expect(Object.keys(props)).toEqual(['next_desk']);
          expect(requiredOf(tool?.inputSchema)).toEqual(['next_desk']);
          expect([...(enumOf(props.next_desk ?? {}) ?? [])].sort()).toEqual([...onward].sort());
        } else {
          expect(props, `${ref.name} takes no arguments`).toEqual({});
        }
      }
    }
  });

  it("6. end_call on every agent; the runtime's transfer_to_human is the only other session tool", () => {
    const { pack } = fx();
    expect(buildCatalog(pack.blueprint, pack.module.tools, pack.module.graphRules.gates).problems).toEqual([]);
    expect(pack.module.tools.map((t) => t.name).filter((n) => RUNTIME_TOOL_NAMES.includes(n)), 'tools.ts defines no runtime tool').toEqual([]);
    const humans = humanTransferNames(pack);
    for (const agent of pack.blueprint.agents) {
      expect(agent.tools.some((t) => t.name === 'end_call' && t.session === true), `${agent.name} has end_call`).toBe(true);
      const sessions = agent.tools.filter((t) => t.session).map((t) => t.name).sort();
      if (scored) expect(sessions, agent.name).toEqual(['end_call', ...humans].sort());
    }
    expect(humans.length).toBeLessThanOrEqual(1);
    if (scored) {
      expect(humans).toEqual([HUMAN_TRANSFER]);
      expect(pack.catalog.get(HUMAN_TRANSFER)?.definition, 'the human transfer is dispatched').toBeDefined();
    }
  });

  it('7. every agent is reachable, the graph is acyclic, sinks are exactly the agents without handoffs, gates guard their desks', () => {
    const { pack } = fx();
    const names = pack.blueprint.agents.map((a) => a.name);
    expect([...reachableFrom(pack, pack.entryAgent)].sort()).toEqual([...names].sort());
    for (const name of names) {
      for (const next of handoffTargets(pack, name)) expect(reachableFrom(pack, next).has(name), `cycle through ${name} → ${next}`).toBe(false);
    }
    expect([...pack.module.graphRules.sinks].sort()).toEqual(names.filter((n) => handoffTargets(pack, n).length === 0).sort());
    for (const [gate, guarded] of Object.entries(pack.module.graphRules.gates)) {
      expect(names).toContain(gate);
      const around = reachableFrom(pack, pack.entryAgent, gate);
      for (const agent of guarded) {
        expect(names).toContain(agent);
        expect(around.has(agent), `${agent} reachable without ${gate}`).toBe(false);
      }
    }
  });
});
