/**
 * Shared plumbing for running an example file directly (`npx tsx examples/<name>.ts`). Not part of the SDK and
 * not what you copy: the examples' exported functions are.
 *
 * With PSP_API_KEY (and PSP_BASE_URL) set, an example talks to that service. Without them it starts the
 * embedded reference service in-process, so every example runs on a fresh clone with no configuration.
 */
import { pathToFileURL } from 'node:url';
import { PspClient } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/** True when the module at `moduleUrl` is the file node/tsx was asked to run. */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(entry).href === moduleUrl;
}

export interface ExampleEnv {
  client: PspClient;
  /** The embedded reference, when the example started one (no PSP_API_KEY in the environment). */
  reference?: RunningReference;
  close(): Promise<void>;
}

/** A client from the environment, or one bound to a freshly started embedded reference. */
export async function exampleEnv(): Promise<ExampleEnv> {
  const apiKey = process.env.PSP_API_KEY;
  if (apiKey) {
    return { client: new PspClient({ apiKey, baseUrl: process.env.PSP_BASE_URL }), close: async () => {} };
  }
  const reference = await startReference({ port: 0 });
  console.error(`(no PSP_API_KEY set: started the embedded reference at ${reference.base_url})`);
  return {
    client: new PspClient({ apiKey: reference.api_key, baseUrl: reference.base_url }),
    reference,
    close: () => reference.close(),
  };
}

/** Runs `fn` with an example environment, prints its result, and exits non-zero on failure. */
export async function runExample<T>(fn: (env: ExampleEnv) => Promise<T>): Promise<void> {
  const env = await exampleEnv();
  try {
    const result = await fn(env);
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await env.close();
  }
}
