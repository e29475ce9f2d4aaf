/**
 * The Python example client, one episode end to end (docs/rl.md, `.ci/run`): starts the real
 * server in this process with the RL routes on (healthcare), the chat-completions stand-in as the
 * policy (replaying the task's reference route), runs `python3 examples/python/mivas_episode.py`
 * against both and checks the reward it prints. Exit 0 on reward 1, 1 otherwise.
 *
 *   npx tsx scripts/rl-python-smoke.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { buildApp, createAppContext } from '../src/server/index.ts';
import { PolicyChatServer, routeBrain } from '../test/support/policy-chat-server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const TASK = 'C1-E1';

/** What one smoke run saw: the client's exit code, its stdout (the verdict JSON) and stderr. */
export interface SmokeResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly verdict: { reward?: number; status?: string; reward_components?: Record<string, number>; episode_id?: string } | null;
}

/** `tokenIn`: how the client sends MIVAS_RL_TOKEN (`header`: Authorization: Bearer; `url`: the /rl/~<token>/ path segment). */
export async function pythonSmoke(python = process.env.PYTHON ?? 'python3', tokenIn: 'header' | 'url' = 'header'): Promise<SmokeResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mivas-py-smoke-'));
  const parsed = loadConfig({ MIVAS_DATA_DIR: dataDir, MIVAS_PACK: 'healthcare', MIVAS_PACKS_DIR: join(ROOT, 'packs'), MIVAS_MIGRATIONS_DIR: join(ROOT, 'migrations'), MIVAS_RL: '1', MIVAS_RL_TOKEN: 'smoke-token', MIVAS_LOG_LEVEL: 'silent' });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const ctx = await createAppContext(parsed.config, { log: pino({ level: 'silent' }) });
  const app = await buildApp(ctx);
  const server = await app.listen({ port: 0, host: '127.0.0.1' });
  const chat = await PolicyChatServer.start(routeBrain(ctx.pack, ctx.pack.tasks.get(TASK) as NonNullable<ReturnType<typeof ctx.pack.tasks.get>>), { apiKey: 'sk-smoke' });
  try {
    const args = [join(ROOT, 'examples/python/mivas_episode.py'), '--server', server, '--pack', 'healthcare', '--task', TASK, '--policy-url', chat.baseUrl, '--policy-model', 'stand-in-1', '--min-reward', '1', '--token-in', tokenIn];
    const child = spawn(python, args, { cwd: ROOT, env: { ...process.env, MIVAS_RL_TOKEN: 'smoke-token', MIVAS_POLICY_API_KEY: 'sk-smoke' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', done);
    });
    let verdict: SmokeResult['verdict'] = null;
    try {
      verdict = JSON.parse(stdout) as SmokeResult['verdict'];
    } catch {
      verdict = null;
    }
    return { code, stdout, stderr, verdict };
  } finally {
    await chat.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let ok = true;
  for (const tokenIn of ['header', 'url'] as const) {
    const result = await pythonSmoke(undefined, tokenIn);
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    const passed = result.code === 0 && result.verdict?.reward === 1;
    console.log(passed ? `python client (token in ${tokenIn}): reward 1 (PASS)` : `python client (token in ${tokenIn}): FAILED (exit ${result.code}, reward ${result.verdict?.reward ?? 'none'})`);
    ok &&= passed;
  }
  process.exit(ok ? 0 : 1);
}
