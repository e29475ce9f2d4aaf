import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
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

  it('titles a new conversation with other instructions than the lane\'s last one, and only that one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    dirs.push(dir);
    const lane = join(dir, 'agent-L1');
    mkdirSync(lane);
    const kestrel = { role: 'system', content: '# WHO YOU ARE\nYou answer for Kestrel Electronics.' };
    const bluestem = { role: 'system', content: '# WHO YOU ARE\nYou answer for Bluestem Air.' };
    const write = (seq: number, messages: object[]) => writeFileSync(join(lane, `${seq}.request.json`), JSON.stringify({ messages }));
    const answer = (seq: number) => writeFileSync(join(lane, `${seq}.answer.json`), JSON.stringify({ say: 'ok' }));
    write(1, [kestrel, { role: 'user', content: 'Hi, my order is late.' }]);
    expect(relay('next', '--dir', dir, '--watch', 'agent:L1', '--wait', '0').stdout).toContain('=== NEW CONVERSATION ===');
    answer(1);
    write(2, [kestrel, { role: 'user', content: 'Hi, a second order.' }]);
    expect(relay('next', '--dir', dir, '--watch', 'agent:L1', '--wait', '0').stdout).toContain('=== NEW CONVERSATION ===');
    answer(2);
    write(3, [bluestem, { role: 'user', content: 'Is flight two ten on time?' }]);
    const switched = relay('next', '--dir', dir, '--watch', 'agent:L1', '--wait', '0').stdout;
    expect(switched).toContain('NEW CONVERSATION, NEW INSTRUCTIONS: not those of your last conversation');
    expect(switched).toContain('They begin: You answer for Bluestem Air.');
  });

  it('answers a request anew when an earlier conversation asked the same, and joins only a retry of the latest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-'));
    dirs.push(dir);
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => done(free));
      });
    });
    const server = spawn(process.execPath, [resolve('scripts/model-relay.ts'), 'serve', '--dir', dir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((done) => server.stdout.once('data', done));
      const url = `http://127.0.0.1:${port}/agent/L1/v1/chat/completions`;
      const ask = (text: string): Promise<string> => fetch(url, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: text }] }) }).then((r) => r.text());
      const answered = async (seq: number, say: string, reply: Promise<string>): Promise<string> => {
        for (let i = 0; i < 100 && !existsSync(join(dir, 'agent-L1', `${seq}.request.json`)); i++) await new Promise((r) => setTimeout(r, 50));
        expect(relay('answer', '--dir', dir, '--as', 'agent:L1', '--say', say).code).toBe(0);
        return JSON.parse(await reply).choices[0].message.content as string;
      };
      expect(await answered(1, 'first', ask('Hello'))).toBe('first');
      expect(await answered(2, 'second', ask('Something else'))).toBe('second');
      // The same body as request 1, in a later conversation: a new request 3, not answer 1.
      expect(await answered(3, 'third', ask('Hello'))).toBe('third');
      // A retry of the latest request while it waits joins it: one request file, both get its answer.
      const a = ask('Retry me');
      const b = ask('Retry me');
      expect(await answered(4, 'fourth', a)).toBe('fourth');
      expect(JSON.parse(await b).choices[0].message.content).toBe('fourth');
      expect(existsSync(join(dir, 'agent-L1', '5.request.json'))).toBe(false);
    } finally {
      server.kill();
    }
  });
});
