import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker imports the sources once and keeps them across test files: importing fastify, the
    // SDKs and the packs again for every file was about 40% of the suite's wall time. Tests keep their
    // state in what they create (servers, temp folders), never in module scope, so sharing is safe.
    isolate: false,
    setupFiles: ['test/setup/restore-env.ts'],
    maxWorkers: 2,
  },
});
