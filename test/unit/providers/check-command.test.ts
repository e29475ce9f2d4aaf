import { describe, expect, it } from 'vitest';
import { handoffProblems, runCli } from '../../../src/cli/index.ts';
import { agentSetupOf } from '../../../src/conversation/index.ts';
import { loadPack } from '../../../src/packs/index.ts';

/** The tools JSON as check prints it: pretty, indented by four spaces. */
function indented(value: unknown): string {
  return JSON.stringify(value, null, 2)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: { MIVAS_LOG_LEVEL: 'silent', ...env }, cwd: process.cwd() },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

describe('mivas check --pack P --harness H', () => {
  it('prints per agent the instructions size and the exact tools the model sees, and verifies the wiring', async () => {
    const t = io({ OPENAI_API_KEY: 'sk-test' });
    expect(await runCli(['check', '--pack', 'control-industry', '--harness', 'openai/realtime'], t.io)).toBe(0);
    const out = t.out();
    expect(out).toMatch(/agent reception \(entry\)\n {2}instructions: \d+ chars/);
    expect(out).toContain('tools (2): transfer_to_scheduler, end_call');
    expect(out).toContain('tools (3): check_date, book_appointment, end_call');
    expect(out).toContain('handoffs: transfer_to_scheduler → scheduler');
    const pack = await loadPack('packs', 'control-industry');
    const offered = agentSetupOf(pack, 'scheduler').tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters }));
    expect(out).toContain(indented(offered));
    expect(out).toContain('handoff wiring: every target is wired');
  });

  it('shows the tool shape of the selected harness (Qwen nests them)', async () => {
    const t = io({ DASHSCOPE_API_KEY: 'k' });
    expect(await runCli(['check', '--pack', 'control-industry', '--harness', 'qwen/omni-realtime'], t.io)).toBe(0);
    const pack = await loadPack('packs', 'control-industry');
    const offered = agentSetupOf(pack, 'reception').tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    expect(t.out()).toContain(indented(offered));
  });

  it('fails like boot when the selected harness has no key: exit 3 naming the variable', async () => {
    const t = io();
    expect(await runCli(['check', '--pack', 'control-industry', '--harness', 'xai/grok-voice'], t.io)).toBe(3);
    expect(t.err()).toContain('XAI_API_KEY');
  });

  it('needs --pack', async () => {
    expect(await runCli(['check'], io().io)).toBe(3);
  });

  it('finds no wiring problems in control-industry', async () => {
    const pack = await loadPack('packs', 'control-industry');
    expect(pack.blueprint.agents.flatMap((a) => handoffProblems(pack, a.name))).toEqual([]);
  });
});
