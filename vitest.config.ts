import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The package smoke tests (test/package) run against the packed build under several runtimes: they have their
// own config and run after the build, see scripts/test.mjs.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/package/**', 'test/support/runtimes/**'],
    environment: 'node',
    // Vitest's default (cores - 1) runs one file at a time on CI's 2 cores, while most files spend their time
    // waiting on sockets, child processes and timers: two at a time overlap one file's waits with another's work.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.d.ts'],
      // text prints the per-file table in the run's output; json-summary feeds the line scripts/test.mjs prints.
      reporter: ['text', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
      // Issue 5: the run fails below 90 % of src/ lines (97 % when this was set).
      thresholds: { lines: 90 },
    },
  },
});
