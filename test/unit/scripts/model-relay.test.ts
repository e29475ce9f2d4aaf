import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** The relay as players run it (Node strips its types), with a bounded wait. */
function relay(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [resolve('scripts/model-relay.ts'), ...args], { encoding: 'utf8', timeout: 20_000 });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('scripts/model-relay.ts', () => {
  it('prints its usage on --help (stdout, exit 0) and on a bad flag or command (stderr, exit 2)', () => {
    const help = relay('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npx tsx scripts/model-relay.ts <command>');
    expect(help.stdout).toContain('lane   --lane L');
    const bad = relay('next', '--dir', '/tmp/x', '--bogus');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--bogus'");
    expect(bad.stderr).toContain('usage:');
    expect(relay('fly', '--dir', '/tmp/x').stderr).toContain('unknown command "fly"');
  });

  it('marks a lane done when its run ends, so a player waiting on it stops at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    dirs.push(dir);
    const run = relay('lane', '--dir', dir, '--lane', 'L1', '--', process.execPath, '-e', 'process.exit(process.env.MIVAS_POLICY_BASE_URL.endsWith("/agent/L1/v1") ? 3 : 9)');
    expect(run.code).toBe(3);
    expect(JSON.parse(readFileSync(join(dir, 'done-L1'), 'utf8'))).toEqual({ lane: 'L1', exit_code: 3 });
    const waited = relay('next', '--dir', dir, '--watch', 'agent:L1', '--wait', '30');
    expect(waited.stdout).toContain('NO MORE CONVERSATIONS');
    expect(existsSync(join(dir, 'done-L2'))).toBe(false);
    expect(relay('next', '--dir', dir, '--watch', 'agent:L2', '--wait', '0').stdout).toContain('nothing yet');
  });

  it('tells the player of a seat that must answer with a tool call (the llm caller) how to, and no one else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    dirs.push(dir);
    const tools = [{ type: 'function', function: { name: 'say_pin', parameters: {} } }, { type: 'function', function: { name: 'stay_silent', parameters: {} } }];
    const messages = [{ role: 'system', content: 'You are the caller.' }, { role: 'user', content: 'Hello, how can I help?' }];
    mkdirSync(join(dir, 'caller-L1'));
    writeFileSync(join(dir, 'caller-L1', '1.request.json'), JSON.stringify({ messages, tools, tool_choice: 'required' }));
    mkdirSync(join(dir, 'agent-L2'));
    writeFileSync(join(dir, 'agent-L2', '1.request.json'), JSON.stringify({ messages, tools }));
    const caller = relay('next', '--dir', dir, '--watch', 'caller:L1', '--wait', '0').stdout;
    expect(caller).toContain('YOU ARE THE CALLER on lane L1');
    expect(caller).toContain('answers with exactly one tool call: --tool NAME --args JSON, NAME one of say_pin, stay_silent');
    const agent = relay('next', '--dir', dir, '--watch', 'agent:L2', '--wait', '0').stdout;
    expect(agent).toContain('YOU ARE THE AGENT on lane L2');
    expect(agent).not.toContain('exactly one tool call');
  });
});
