import { defineConfig } from 'vitest/config';

// The package smoke tests (test/package) run against the packed build under several runtimes: they have their
// own config and run after the build, see scripts/test.mjs.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/package/**', 'test/runtimes/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.d.ts'],
      // text prints the per-file table in the run's output; json-summary feeds the figure the runner prints.
      reporter: ['text', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
      // Enforced once the suite of every module has landed; see docs in the package report.
      thresholds: { lines: 0 },
    },
  },
});
