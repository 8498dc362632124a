// One reference for the whole run, started before any worker (vitest's globalSetup). Each worker makes its own
// merchant with the admin token and then uses that merchant's own token only (worker.ts).
import { startReference } from '../../src/reference/index.js';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject) {
  const ref = await startReference({ port: 0 });
  project.provide('psp', { baseUrl: ref.base_url, adminToken: ref.admin_token });
  return () => ref.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    psp: { baseUrl: string; adminToken: string };
  }
}
