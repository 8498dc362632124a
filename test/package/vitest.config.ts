import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Smoke tests of the packed package: run after `npm run build`, against the tarball installed in a temp consumer.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/package/**/*.test.ts'],
    environment: 'node',
    // The smoke tests mostly wait on child processes: two files at a time even on 2 cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/package/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
