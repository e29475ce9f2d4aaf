#!/usr/bin/env node
// Runs the TypeScript CLI on Node's own type stripping (Node 24: erasable syntax only, enforced by
// tsconfig's erasableSyntaxOnly), so there is no build step and no compiler at start-up.
// drizzle-orm is loaded from its CommonJS build (src/core/module-hooks.ts): its ESM build costs
// the process 0.8 s of CPU and about 200 MB at boot.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Node flags a command needs that V8 reads only at start-up. `score` reads one final.json of about
// 110 KB per conversation, and with Node 24's default V8 grows the young generation to 128 MB and
// keeps it: 300 MB peak against 190 MB with 16 MB semi-spaces (docs/performance.md, "Scoring").
// Without them the CLI starts itself again with them, forwarding signals and the exit status.
const COMMAND_NODE_FLAGS = { score: ['--max-semi-space-size=16'] };

const missing = (COMMAND_NODE_FLAGS[process.argv[2]] ?? []).filter((flag) => !process.execArgv.some((given) => given.split('=')[0] === flag.split('=')[0]));
if (missing.length > 0) {
  const child = spawn(process.execPath, [...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  });
} else {
  const { loadDrizzleAsCommonJs } = await import('../src/core/index.ts');
  loadDrizzleAsCommonJs();
  const { main } = await import('../src/cli/index.ts');
  await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() });
}
