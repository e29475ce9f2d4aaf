/**
 * Issue 29: diagnostics on every conversation, never in pass. A scripted healthcare run's
 * conversations.csv carries latency, said-aloud and cost columns with the judge columns empty;
 * `mivas score --judge` against a loopback judge stand-in fills them, and scoring again asks the
 * stand-in nothing. The stand-in is strict: it refuses any field the chat completions request of
 * openai/openai-node (commit 7b7d6ca7, src/resources/chat/completions/completions.ts,
 * `Completions.create`, `POST /chat/completions`) would not carry for this use, and any it lacks.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../../src/cli/index.ts';
import { parseCsv } from '../../src/scoring/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mivas-diag-'));
const KEY = 'sk-judge-stand-in';
const ANSWER = { answer_spoken: 2, policy_spoken: 4, conduct: 5 };

const judgeRequest = z
  .object({
    model: z.literal('judge-stand-in'),
    messages: z.array(z.object({ role: z.enum(['system', 'user']), content: z.string().min(1) }).strict()).length(2),
    temperature: z.literal(0),
    response_format: z.object({ type: z.literal('json_object') }).strict(),
  })
  .strict();

/** A strict judge: POST /v1/chat/completions with the bearer key and the request above, or 400/401/404. */
function judgeStandIn(mode: { fail: boolean }): { server: Server; requests: unknown[] } {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: 'not found' } });
      if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { error: { message: 'bad key' } });
      const parsed = judgeRequest.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (!parsed.success) return send(400, { error: { message: parsed.error.message } });
      requests.push(parsed.data);
      if (mode.fail) return send(500, { error: { message: 'judge down' } });
      send(200, { id: `chatcmpl-${requests.length}`, object: 'chat.completion', created: 1, model: parsed.data.model, choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(ANSWER) }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    });
  });
  return { server, requests };
}

async function mivas(args: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const sink = { write: (t: string) => out.push(t) };
  const code = await runCli(args, { stdout: sink, stderr: sink, env: { MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent', ...env }, cwd: process.cwd() });
  return { code, out: out.join('') };
}

function csvRows(file: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(readFileSync(file, 'utf8')).filter((r) => r.length > 1);
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}

const mode = { fail: false };
const stand = judgeStandIn(mode);
let judgeUrl = '';
let runId = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve));
  judgeUrl = `http://127.0.0.1:${(stand.server.address() as AddressInfo).port}/v1`;
  const run = await mivas(['run', '--pack', 'healthcare', '--harness', 'scripted', '--trials', '1', '--task', 'C1-E1', '--task', 'C3-M1', '--fast'], {});
  expect(run.code, run.out).toBe(0);
  runId = readdirSync(join(dataDir, 'scores'))[0] ?? '';
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => stand.server.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnostics (never in pass)', () => {
  it('a scripted healthcare run carries latency, said-aloud and cost columns; the judge columns are empty', () => {
    const rows = csvRows(join(dataDir, 'scores', runId, 'conversations.csv'));
    expect(rows.map((r) => r.task_id).sort()).toEqual(['C1-E1', 'C3-M1']);
    for (const row of rows) {
      expect(row.status).toBe('PASS');
      for (const column of ['latency_p50_ms', 'latency_p95_ms', 'turn_latencies_ms', 'said_aloud_checked', 'said_aloud_missed', 'cost_usd_est', 'diag_judge_model', 'diag_judge_conduct']) expect(Object.keys(row)).toContain(column);
      expect(Number(row.latency_p50_ms)).toBeGreaterThanOrEqual(0);
      expect(row.turn_latencies_ms).toMatch(/^\d+(\.\d+)?(;\d+(\.\d+)?)*$/);
      expect(row.diag_judge_model).toBe('');
      expect(row.diag_judge_answer_spoken).toBe('');
    }
    // The scripted agent looks the plan up and never says the answer: PASS, and the diagnostic names it.
    const plan = rows.find((r) => r.task_id === 'C1-E1');
    expect([plan?.said_aloud_checked, plan?.said_aloud_missed]).toEqual(['1', 'check_plan_accepted.status=accepted']);
    const scores = JSON.parse(readFileSync(join(dataDir, 'scores', runId, 'scores.json'), 'utf8')) as { aggregates: { diagnostics: { said_aloud_checked: number; said_aloud_said: number; judge_mean: unknown } } };
    expect(scores.aggregates.diagnostics.said_aloud_said).toBe(0);
    expect(scores.aggregates.diagnostics.said_aloud_checked).toBeGreaterThan(1);
    expect(scores.aggregates.diagnostics.judge_mean).toBeNull();
  });

  it('the same snapshots score to byte-identical scores.json without a judge', async () => {
    const args = ['score', '--snapshots', join(dataDir, 'snapshots', 'healthcare'), '--run', runId, '--fast'];
    await mivas([...args, '--out', join(dataDir, 'a')], {});
    await mivas([...args, '--out', join(dataDir, 'b')], {});
    expect(readFileSync(join(dataDir, 'a', 'scores.json'), 'utf8')).toBe(readFileSync(join(dataDir, 'b', 'scores.json'), 'utf8'));
  }, 60_000);

  it('--judge fills the judge columns from the stand-in; scoring again asks it nothing', async () => {
    const env = { MIVAS_JUDGE_BASE_URL: judgeUrl, MIVAS_JUDGE_MODEL: 'judge-stand-in', MIVAS_JUDGE_API_KEY: KEY };
    const args = ['score', '--snapshots', join(dataDir, 'snapshots', 'healthcare'), '--run', runId, '--fast', '--judge'];
    const first = await mivas([...args, '--out', join(dataDir, 'judged')], env);
    expect(first.code, first.out).toBe(0);
    expect(stand.requests).toHaveLength(2);
    const rows = csvRows(join(dataDir, 'judged', 'conversations.csv'));
    for (const row of rows) expect([row.diag_judge_model, row.diag_judge_answer_spoken, row.diag_judge_policy_spoken, row.diag_judge_conduct]).toEqual(['judge-stand-in', '2', '4', '5']);
    // The verdicts did not move: the judge is beside them.
    expect(rows.map((r) => r.status)).toEqual(['PASS', 'PASS']);
    // The conversation page shows the diagnostics: the unsaid answer and the judge's scores.
    const site = join(dataDir, 'judged-site');
    const report = await mivas(['report', '--scores', join(dataDir, 'judged'), '--out', site, '--snapshots', join(dataDir, 'snapshots'), '--audio', 'none'], env);
    expect(report.code, report.out).toBe(0);
    const planCall = rows.find((r) => r.task_id === 'C1-E1')?.conversation_id ?? '';
    const page = readFileSync(join(site, `conv-${planCall}.html`), 'utf8');
    expect(page).toContain('<td>check_plan_accepted</td><td>status</td><td>accepted</td><td><span class="bad">✗ not said</span></td>');
    expect(page).toContain('answer_spoken 2/5, policy_spoken 4/5, conduct 5/5 (judge-stand-in, judge-1)');

    const again = await mivas([...args, '--out', join(dataDir, 'judged-again')], env);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('0 asked, 2 from the cache');
    expect(stand.requests).toHaveLength(2);
    expect(readFileSync(join(dataDir, 'judged-again', 'conversations.csv'), 'utf8')).toBe(readFileSync(join(dataDir, 'judged', 'conversations.csv'), 'utf8'));
  }, 60_000);

  it('a failing judge leaves its scores absent (never 0) and exits 2; --judge without a judge is a usage error', async () => {
    mode.fail = true;
    const env = { MIVAS_JUDGE_BASE_URL: judgeUrl, MIVAS_JUDGE_MODEL: 'judge-stand-in', MIVAS_JUDGE_API_KEY: KEY, MIVAS_DATA_DIR: join(dataDir, 'other') };
    const args = ['score', '--snapshots', join(dataDir, 'snapshots', 'healthcare'), '--run', runId, '--fast', '--judge', '--out', join(dataDir, 'failed')];
    const failed = await mivas(args, env);
    expect(failed.code).toBe(2);
    expect(failed.out).toContain('JUDGE_FAILED');
    for (const row of csvRows(join(dataDir, 'failed', 'conversations.csv'))) expect([row.diag_judge_model, row.diag_judge_conduct]).toEqual(['', '']);
    const unset = await mivas(args, {});
    expect(unset.code).toBe(3);
    expect(unset.out).toContain('MIVAS_JUDGE_BASE_URL');
  }, 60_000);
});
