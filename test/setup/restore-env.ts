import { afterAll } from 'vitest';

/**
 * Workers keep their modules across test files (vitest.config.ts, `isolate: false`), and so their
 * process.env and working folder: each file gets back what it found, so a file that sets
 * credentials for its stand-ins (test/support/s3.ts) cannot change what a later file sees. A test
 * changes values in process.env and puts them back; it never assigns process.env a new object,
 * which would cut the worker's later files, and the threads they start, off from the real one.
 */
const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
});
