import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { EXIT, exitCodeOf, mintId, randomIds } from '../core/index.ts';
import { CALLER_SILENT, configuredCallers, greetingOf, HANDOFF_MODES, SAY_TO_CALLER, TextEpisode, type EpisodeResult, type HandoffMode, type StepResult } from '../episodes/index.ts';
import { loadPack } from '../packs/index.ts';
import { createSink } from '../server/index.ts';
import { configFromFlags } from './config-flags.ts';
import { failWith, usageProblem, type Command } from './io.ts';
import { closeOutbox, episodeDatabases, episodeOutbox } from './text-run.ts';

export const USAGE = `usage: mivas play --pack P --task T [--caller scripted] [--handoff native|soft] [--max-turns 60]

You play the agent of one text episode in the terminal. Type what to say to the caller, or
  /<tool> {json arguments}   call a tool of the active desk (e.g. /transfer_to_coverage {})
  /tools                     the tools you have now, with their parameters
  /instructions              the active desk's instructions
  /end                       end the call (end_call)
  /quit                      stop here (the episode is scored as truncated)
At the end you get the scorer's verdict, the reward and why. The snapshot is written like any
run's (harness text/human), so mivas score shows it. Exit 0 PASS, 1 FAIL, 2 VOID.`;

function describeTools(tools: readonly { name: string; parameters: Readonly<Record<string, unknown>> }[]): string {
  return tools
    .map((t) => {
      const props = Object.keys((t.parameters.properties as Record<string, unknown> | undefined) ?? {});
      const required = new Set((t.parameters.required as string[] | undefined) ?? []);
      return `  ${t.name}(${props.map((p) => (required.has(p) ? p : `${p}?`)).join(', ')})`;
    })
    .join('\n');
}

/** How the episode ended, in the player's words: stopping with /quit (or end of input) is not a time limit. */
export function endedLine(result: Pick<EpisodeResult, 'end_reason' | 'truncated' | 'turns'>, quit: boolean): string {
  if (quit && result.truncated === 'policy_stopped') return `ended: you quit before the call ended, after ${result.turns} turns; scored as truncated (the snapshot records every episode cut off early as ${result.end_reason}, truncated: policy_stopped)`;
  return `ended: ${result.end_reason}${result.truncated ? ` (truncated: ${result.truncated})` : ''} after ${result.turns} turns`;
}

function verdictText(result: EpisodeResult, quit: boolean): string {
  const c = result.reward_components;
  const lines = [
    '',
    `verdict: ${result.status}  reward ${result.reward.toFixed(3)}  (state ${c.state}, tools ${c.tools}, handoff ${c.handoff}, route ${c.route.toFixed(3)})  ${result.reward_version}`,
    endedLine(result, quit),
  ];
  const handoff = result.verdict.handoff;
  if (handoff) lines.push(`path: expected ${handoff.expected_path.join(' > ') || '(none)'}; yours ${handoff.actual_path.join(' > ') || '(none)'} (${handoff.verdict})`);
  if (result.reasons.length) lines.push('why:', ...result.reasons.map((r) => `  - ${r}`));
  return `${lines.join('\n')}\n`;
}

/** `mivas play`: a person plays the agent of a text episode against the chosen caller. */
export const playCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: { pack: { type: 'string' }, task: { type: 'string' }, caller: { type: 'string', default: 'scripted' }, handoff: { type: 'string', default: 'native' }, 'max-turns': { type: 'string', default: '60' }, help: { type: 'boolean' } },
  });
  const maxTurns = Number(values['max-turns']);
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const problem = !values.pack ? '--pack is required' : !values.task ? '--task is required' : !Number.isInteger(maxTurns) || maxTurns < 1 ? `--max-turns takes a whole number of at least 1 (got ${JSON.stringify(values['max-turns'])})` : !HANDOFF_MODES.includes(values.handoff as HandoffMode) ? `--handoff takes native or soft (got ${JSON.stringify(values.handoff)})` : null;
  if (problem || !values.pack || !values.task) return usageProblem(io, 'play', problem ?? '--pack and --task are required');
  const config = configFromFlags(io, { MIVAS_PACK: values.pack, MIVAS_LOG_LEVEL: io.env.MIVAS_LOG_LEVEL ?? 'warn' });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const pack = await loadPack(resolve(config.packsDir), values.pack, resolve(config.migrationsDir));
  const task = pack.tasks.get(values.task);
  if (!task) return failWith(io, 'TASK_NOT_FOUND', `pack ${pack.id} has no task ${values.task}`);
  const caller = configuredCallers(config.caller)({ pack, task, kind: values.caller ?? 'scripted', seed: null, episodeId: 'play' });
  if (!caller) return failWith(io, 'USAGE', `--caller ${values.caller}: this build has the scripted caller only`);
  const sink = createSink(config);
  const outbox = episodeOutbox(config, sink, io);
  const { databases, templateDump } = episodeDatabases(config, pack);
  const writes: Promise<unknown>[] = [];
  const id = mintId(randomIds(), 'episode');
  const { episode, callerSaid } = await TextEpisode.start({
    pack,
    task,
    id,
    databases,
    templateDump,
    caller,
    policy: 'human',
    handoffMode: values.handoff as HandoffMode,
    maxTurns,
    epochMs: () => Date.now(),
    store: (p, callId, parts) => writes.push(outbox.store(p, callId, parts)),
  });
  const out = (text: string): void => void io.stdout.write(`${text}\n`);
  const view = episode.view();
  out(`mivas play: ${pack.id} / ${task.task_id} (${view.handoff_mode} handoffs, ${values.caller} caller, ${maxTurns} turns at most). /help for commands.`);
  out(`desk: ${view.agent}\ntools:\n${describeTools(view.tools)}`);
  out(`agent: ${greetingOf(pack)}`);
  out(callerSaid ? `caller: ${callerSaid}` : CALLER_SILENT);
  const show = (step: StepResult): void => {
    if (step.tool_name === SAY_TO_CALLER) {
      const data = step.output.data as { caller_said?: string | null; caller_hung_up?: boolean } | undefined;
      out(data?.caller_said ? `caller: ${data.caller_said}` : step.output.ok === false ? `refused: ${JSON.stringify(step.output)}` : CALLER_SILENT);
      if (data?.caller_hung_up) out('(the caller hung up)');
    } else out(`${step.tool_name} → ${JSON.stringify(step.output)}`);
    if (step.handoff) out(`desk: ${step.agent}${step.tools ? `\ntools:\n${describeTools(step.tools)}` : ''}`);
  };
  const lines = createInterface({ input: io.stdin ?? process.stdin, terminal: false });
  if (io.stdout.isTTY) io.stdout.write('> ');
  for await (const raw of lines) {
    const line = raw.trim();
    if (episode.isDone()) break;
    if (line === '/quit') break;
    if (line === '/help') out(USAGE);
    else if (line === '/tools') out(describeTools(episode.view().tools));
    else if (line === '/instructions') out(episode.view().instructions);
    else if (line.startsWith('/')) {
      const [, name = '', json = ''] = /^\/(\S+)\s*(.*)$/.exec(line) ?? [];
      let args: unknown = {};
      try {
        args = name === 'end' ? { reason: 'caller_done' } : json ? JSON.parse(json) : {};
      } catch {
        out(`not JSON: ${json} (write /${name} {"field": "value"})`);
        continue;
      }
      show(await episode.step({ name: name === 'end' ? 'end_call' : name, arguments: args }));
    } else if (line) show(await episode.step({ name: SAY_TO_CALLER, arguments: { text: line } }));
    if (episode.isDone()) break;
    if (io.stdout.isTTY) io.stdout.write('> ');
  }
  lines.close();
  // Still running here: the person typed /quit or their input ended.
  const quit = !episode.isDone();
  const result = await episode.finish('policy_stopped');
  await Promise.all(writes);
  await closeOutbox(outbox, io, 'the next mivas play or mivas run --mode text');
  databases.closeAll();
  io.stdout.write(verdictText(result, quit));
  // The store's root, which the next command takes: mivas score --snapshots ROOT.
  out(`snapshot: ${result.snapshot} under ${sink.root} (mivas score --snapshots ${sink.root})`);
  return result.status === 'PASS' ? EXIT.ok : result.status === 'FAIL' ? EXIT.checkFailed : EXIT.incomplete;
};
