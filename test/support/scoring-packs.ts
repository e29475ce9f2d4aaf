import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, type Blueprint, type Pack, type Task } from '../../src/packs/index.ts';

const REPO = join(import.meta.dirname, '../..');

/** A copy of a pack's in-memory definition with another blueprint (the tools and database stay). */
export function withBlueprint(pack: Pack, blueprint: Blueprint): Pack {
  const { tools } = buildCatalog(blueprint, pack.module.tools, {});
  return { ...pack, blueprint, entryAgent: blueprint.agents[0]?.name ?? '', catalog: tools };
}

const agent = (name: string, tools: Blueprint['agents'][number]['tools']): Blueprint['agents'][number] => ({
  name,
  description: `The ${name} desk.`,
  system_prompt: `prompts/${name}.md`,
  tools: [...tools, { name: 'end_call', session: true }],
});
const hop = (to: string) => ({ name: `transfer_to_${to}`, handoff: true, handoff_to: to });

/** Maple Lane with a relay: reception → intake (check_date) or triage → scheduler (book_appointment); intake → triage. */
export function relayPack(control: Pack): Pack {
  return withBlueprint(control, {
    company: 'Maple Lane Repairs',
    agents: [
      agent('reception', [hop('intake'), hop('triage')]),
      agent('intake', [{ name: 'check_date' }, hop('scheduler'), hop('triage')]),
      agent('triage', [hop('scheduler')]),
      agent('scheduler', [{ name: 'book_appointment' }]),
    ],
  });
}

/** A relay task: check Sunday at intake, then book Monday at the scheduler. */
export function relayTask(control: Pack, fields: Partial<Task> = {}): Task {
  const base = control.tasks.get('S-E2') as Task;
  return { ...base, task_id: 'S-E4', task_name: 'S-E4: Relay booking', exp_handoff_path: ['transfer_to_intake', 'transfer_to_scheduler'], ...fields };
}

/** Copies control-industry (pack and migrations) to `<root>/packs` and `<root>/migrations`, optionally rewriting one task. */
export function copyControlPack(root: string, task?: { id: string; edit: (raw: Record<string, unknown>) => Record<string, unknown> }): string {
  const packDir = join(root, 'packs', 'control-industry');
  mkdirSync(join(root, 'migrations'), { recursive: true });
  cpSync(join(REPO, 'packs', 'control-industry'), packDir, { recursive: true });
  cpSync(join(REPO, 'migrations', 'control-industry'), join(root, 'migrations', 'control-industry'), { recursive: true });
  for (const file of ['tools.ts', 'schema.ts']) {
    const path = join(packDir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll("'../../src/", `'${REPO}/src/`));
  }
  if (task) {
    const file = join(packDir, 'tasks', `${task.id}.json`);
    writeFileSync(file, `${JSON.stringify(task.edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), null, 2)}\n`);
  }
  return join(root, 'packs');
}
