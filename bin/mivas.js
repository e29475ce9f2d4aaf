#!/usr/bin/env node
// Runs the TypeScript CLI on Node's own type stripping (Node 24: erasable syntax only, enforced by
// tsconfig's erasableSyntaxOnly), so there is no build step and no compiler at start-up.
// drizzle-orm is loaded from its CommonJS build (src/core/module-hooks.ts): its ESM build costs
// the process 0.8 s of CPU and about 200 MB at boot.
const { loadDrizzleAsCommonJs } = await import('../src/core/index.ts');
loadDrizzleAsCommonJs();
const { main } = await import('../src/cli/index.ts');
await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() });
