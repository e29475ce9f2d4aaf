import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIO } from '../../src/cli/index.ts';
import { packOf } from '../support/episode-rig.ts';
import { PolicyChatServer, routeBrain } from '../support/policy-chat-server.ts';

const REPO = resolve(import.meta.dirname, '../..');
let dir: string;
let chat: PolicyChatServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mivas-rl-cli-'));
  const pack = await packOf('healthcare');
  chat = await PolicyChatServer.start(routeBrain(pack, pack.tasks.get('C1-E1') as NonNullable<ReturnType<typeof pack.tasks.get>>));
}, 60_000);

afterAll(async () => {
  await chat.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(env: Record<string, string> = {}, input?: string): { io: CliIO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: { MIVAS_DATA_DIR: dir, MIVAS_PACKS_DIR: join(REPO, 'packs'), MIVAS_MIGRATIONS_DIR: join(REPO, 'migrations'), MIVAS_LOG_LEVEL: 'silent', ...env },
    cwd: dir,
    ...(input === undefined ? {} : { stdin: Readable.from([input]) }),
  };
  return { io, out, err };
}

function scoresOf(out: string[]): { conversations: { harness: string; status: string; model: string | null; task_id: string }[] } {
  const line = out.join('').split('\n').find((l) => l.startsWith('wrote ') && l.includes('scores.json'));
  const file = line?.slice('wrote '.length).split(', ')[0] ?? '';
  return JSON.parse(readFileSync(file, 'utf8')) as ReturnType<typeof scoresOf>;
}

describe('mivas run --mode text', () => {
  it('runs text episodes with a text policy harness and scores them like calls', async () => {
    const h = cli();
    const code = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--task', 'C1-E1', '--task', 'C1-E2', '--trials', '2'], h.io);
    expect(code, h.err.join('')).toBe(0);
    const scores = scoresOf(h.out);
    expect(scores.conversations.map((c) => [c.harness, c.status])).toEqual(Array.from({ length: 4 }, () => ['text/scripted', 'PASS']));
    expect(h.out.join('')).toContain('report: ');
  });

  it('on Ctrl-C starts nothing new, scores what ran and exits 130 with a partial summary', async () => {
    const signals = new EventEmitter();
    const h = cli();
    // The first finished episode's progress line is the moment a person presses Ctrl-C.
    const io: CliIO = { ...h.io, signals, stderr: { write: (t: string) => (h.err.push(t), t.startsWith('[1/') && signals.emit('SIGINT')) } };
    const code = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--task', 'C1-E1', '--task', 'C1-E2', '--task', 'C1-M1', '--trials', '1', '--concurrency', '1'], io);
    expect(code, h.err.join('')).toBe(130);
    expect(h.err.join('')).toContain('interrupted: no new episodes start');
    expect(h.out.join('')).toContain('interrupted after 1 of 3 episodes');
    expect(scoresOf(h.out).conversations.map((c) => [c.task_id, c.status])).toEqual([['C1-E1', 'PASS']]);
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('--rerun-voids plays only the VOIDs of a run again, under its run id', async () => {
    // A caller endpoint that refuses connections voids every episode (infra_error, never the agent's fault).
    const broken = cli({ MIVAS_CALLER_BASE_URL: 'http://127.0.0.1:9/v1', MIVAS_CALLER_API_KEY: 'x' });
    const first = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--caller', 'llm', '--task', 'C1-E1', '--task', 'C1-E2', '--trials', '1'], broken.io);
    expect(first, broken.err.join('')).toBe(2);
    const runId = /^(run_[0-9a-f]{12}):/m.exec(broken.out.join(''))?.[1] ?? '';
    expect(scoresOf(broken.out).conversations.map((c) => c.status)).toEqual(['VOID', 'VOID']);
    const again = cli();
    const code = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--rerun-voids', runId], again.io);
    expect(again.out.join('')).toContain(`${runId}: 2 text episodes (the VOIDs of ${runId} played again)`);
    // The run now has a scored trial beside each void; the voids still count, so the exit stays 2.
    expect(code).toBe(2);
    expect(scoresOf(again.out).conversations.map((c) => [c.task_id, c.status]).sort()).toEqual([['C1-E1', 'PASS'], ['C1-E1', 'VOID'], ['C1-E2', 'PASS'], ['C1-E2', 'VOID']]);
    const none = cli();
    expect(await runCli(['run', '--mode', 'text', '--pack', 'legal', '--harness', 'text/scripted', '--rerun-voids', runId], none.io)).toBe(0);
    expect(none.out.join('')).toContain('has no VOID conversation on legal');
    const missing = cli();
    expect(await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/scripted', '--rerun-voids', 'run_000000000000'], missing.io)).toBe(3);
    expect(missing.err.join('')).toContain('has no scores at');
  }, 60_000);

  it('benchmarks a chat-completions endpoint as the agent with text/openai-chat', async () => {
    const h = cli({ MIVAS_POLICY_BASE_URL: chat.baseUrl, MIVAS_POLICY_MODEL: 'stand-in-1' });
    const code = await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/openai-chat', '--task', 'C1-E1', '--trials', '1', '--caller', 'scripted'], h.io);
    expect(code, h.err.join('')).toBe(0);
    expect(scoresOf(h.out).conversations).toEqual([expect.objectContaining({ harness: 'text/openai-chat', model: 'stand-in-1', status: 'PASS', task_id: 'C1-E1' })]);
  });

  it('refuses a voice harness, a missing policy endpoint and an llm caller without its endpoint, with exit 3', async () => {
    const voice = cli();
    expect(await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'scripted', '--trials', '1'], voice.io)).toBe(3);
    expect(voice.err.join('')).toContain('text/scripted, text/noop, text/openai-chat');
    const noUrl = cli();
    expect(await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/openai-chat', '--trials', '1'], noUrl.io)).toBe(3);
    expect(noUrl.err.join('')).toContain('MIVAS_POLICY_BASE_URL');
    const llm = cli();
    expect(await runCli(['run', '--mode', 'text', '--pack', 'healthcare', '--harness', 'text/noop', '--caller', 'llm', '--trials', '1'], llm.io)).toBe(3);
    expect(llm.err.join('')).toContain('MIVAS_CALLER_API_KEY');
    expect(await runCli(['run', '--mode', 'sideways', '--pack', 'healthcare', '--harness', 'text/noop'], cli().io)).toBe(3);
  });
});

describe('mivas play', () => {
  it('lets a person play the agent from typed lines and shows the verdict (exit 0 on a PASS)', async () => {
    const typed = ['Let me check that for you.', '/transfer_to_coverage {}', '/check_plan_accepted {"carrier": "aetna", "location_id": "loc_park_ave"}', '/tools', 'Yes, Park Avenue takes Aetna.', '/end', ''].join('\n');
    const h = cli({}, typed);
    const code = await runCli(['play', '--pack', 'healthcare', '--task', 'C1-E1'], h.io);
    const text = h.out.join('');
    expect(code, text + h.err.join('')).toBe(0);
    expect(text).toContain("caller: Hi, I'm a new patient. Do you take Aetna at your Park Avenue office?");
    expect(text).toContain('transfer_to_coverage → {"assistant":"coverage"}');
    expect(text).toContain('desk: coverage');
    expect(text).toContain('  check_plan_accepted(carrier, location_id)');
    expect(text).toContain('verdict: PASS  reward 1.000  (state 1, tools 1, handoff 1, route 1.000)');
    // The line names the conversation and the store's root, the path mivas score --snapshots takes.
    const [, key = '', root = ''] = /snapshot: (\S+) under (\S+) \(mivas score --snapshots \2\)/.exec(text) ?? [];
    expect(JSON.parse(readFileSync(join(root, `${key}.summary.json`), 'utf8'))).toMatchObject({ harness: 'text/human', task_id: 'C1-E1' });
  });

  it('shows why a play failed, with the diff, and exits 1', async () => {
    const h = cli({}, ['/check_plan_accepted {"carrier": "aetna", "location_id": "loc_park_ave"}', '/end', ''].join('\n'));
    const code = await runCli(['play', '--pack', 'healthcare', '--task', 'C1-E1'], h.io);
    const text = h.out.join('');
    expect(code).toBe(1);
    expect(text).toContain('"error_code":"TOOL_NOT_AVAILABLE"');
    expect(text).toContain('verdict: FAIL');
    expect(text).toMatch(/why:\n {2}- /);
    expect(text).toContain('path: expected transfer_to_coverage; yours (none) (incomplete)');
    expect(readdirSync(join(dir, 'snapshots', 'healthcare')).length).toBeGreaterThan(0);
  });
});
