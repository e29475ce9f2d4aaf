import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import { EXIT, exitCodeOf, systemClock } from '../core/index.ts';
import { agentSetupOf } from '../conversation/index.ts';
import { loadPack, toolsOfAgent, type Pack } from '../packs/index.ts';
import { createHarnessFactory, type AgentSetup, type HarnessFactory } from '../providers/index.ts';
import { configFromFlags } from './config-flags.ts';
import { failWith, type Command } from './io.ts';

export const USAGE = `usage: mivas check --pack P [--harness H]
Prints, per agent, the instructions' size and the exact tool list the harness offers its model,
and verifies that every handoff target is wired. Opens no connection. The harness's settings are
validated as at boot, so a missing key exits 3.`;

/** Problems with one agent's handoffs: each must name a catalog handoff tool whose target is an agent with a prompt. */
export function handoffProblems(pack: Pack, agent: string): string[] {
  const problems: string[] = [];
  const refs = pack.blueprint.agents.find((a) => a.name === agent)?.tools ?? [];
  for (const ref of refs) {
    const tool = pack.catalog.get(ref.name);
    if (!tool) {
      problems.push(`${agent}: lists ${ref.name}, which is not in the tool catalog`);
      continue;
    }
    if (tool.kind !== 'handoff') continue;
    const target = tool.handoffTo;
    if (!target || !pack.blueprint.agents.some((a) => a.name === target)) problems.push(`${agent}: ${tool.name} hands off to ${target ?? '(nothing)'}, which is not an agent`);
    else if ((pack.prompts.get(target) ?? '').trim() === '') problems.push(`${agent}: ${tool.name} hands off to ${target}, which has no instructions`);
    else if (toolsOfAgent(pack, target).length === 0) problems.push(`${agent}: ${tool.name} hands off to ${target}, which offers no tools`);
  }
  return problems;
}

/** One agent's block: instructions size, tool names, and the tools exactly as the model sees them. */
function describeAgent(pack: Pack, harness: HarnessFactory, setup: AgentSetup): string {
  const offered = harness.offeredTools ? harness.offeredTools(setup) : setup.tools;
  const entry = setup.name === pack.entryAgent ? ' (entry)' : '';
  const edges = toolsOfAgent(pack, setup.name).flatMap((t) => (t.kind === 'handoff' && t.handoffTo ? [`${t.name} → ${t.handoffTo}`] : []));
  const lines = [
    `agent ${setup.name}${entry}`,
    `  instructions: ${setup.instructions.length} chars, ${Buffer.byteLength(setup.instructions)} bytes`,
    `  tools (${setup.tools.length}): ${setup.tools.map((t) => t.name).join(', ')}`,
    `  handoffs: ${edges.length ? edges.join(', ') : 'none'}`,
    harness.offeredTools ? `  offered to the model as:` : `  offered as (a keyless harness sends no tools to a model):`,
    ...JSON.stringify(offered, null, 2)
      .split('\n')
      .map((l) => `    ${l}`),
  ];
  return lines.join('\n');
}

/** `mivas check --pack P --harness H`: shows what the model will be offered and checks the handoff wiring. */
export const checkCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, harness: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (!values.pack) return failWith(io, 'USAGE', USAGE);
  const config = configFromFlags(io, { MIVAS_PACK: values.pack, MIVAS_HARNESS: values.harness });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const pack = await loadPack(resolve(io.cwd, config.packsDir), config.pack, resolve(io.cwd, config.migrationsDir));
  // Tone speech: the keyless harnesses need a synth to be built, and check never speaks.
  const synth = await createSpeechSynth(16_000, { preferTones: true });
  const harness = createHarnessFactory(config.harness, { synth, clock: systemClock(), noopWaitMs: config.noopWaitMs, providers: config.providers });
  const blocks = pack.blueprint.agents.map((a) => describeAgent(pack, harness, agentSetupOf(pack, a.name)));
  const problems = pack.blueprint.agents.flatMap((a) => handoffProblems(pack, a.name));
  io.stdout.write(`mivas check: pack ${pack.id}, harness ${harness.name}\n\n${blocks.join('\n\n')}\n\n`);
  io.stdout.write(problems.length ? `handoff wiring: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}\n` : 'handoff wiring: every target is wired\n');
  return problems.length ? EXIT.checkFailed : EXIT.ok;
};
