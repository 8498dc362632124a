import { afterAll, vi } from 'vitest';

// Vitest runs test files one after another in each worker without a fresh module graph (`isolate: false` in
// vitest.config.ts: the graph of src/ is loaded once per worker, not once per file, which halves the suite's
// CPU). This file runs before each test file, so what a file may change for the whole process is put back when it
// ends: fake timers, stubbed globals, the global Request and Response that the node:http adapter with
// `overrideGlobalObjects` replaces (as the CLI runs it). (Redaction keeps nothing process-wide: each client and
// each reference has its own.)
const saved = { Request: globalThis.Request, Response: globalThis.Response, fetch: globalThis.fetch };

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  Object.assign(globalThis, saved);
});
