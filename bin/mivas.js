#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() });
