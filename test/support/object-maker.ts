// The tests make an object of each kind a row's id names with the contract kit's makers (OBJECT_MAKERS in
// src/conformance/checks/fixtures.ts), the one place a new kind's maker is written.
import { makeObject } from '../../src/conformance/checks/fixtures.js';
import { Kit } from '../../src/conformance/kit.js';

/** Makes objects over `fetch` at `baseUrl` with `apiKey`, as the merchant of that key. */
export function objectMaker(
  fetch: typeof globalThis.fetch,
  baseUrl: string,
  apiKey: string,
): (kind: string) => Promise<string> {
  const kit = new Kit({
    baseUrl,
    apiKey,
    signingSecret: undefined,
    adminToken: undefined,
    fetch,
    maxRequests: Number.MAX_SAFE_INTEGER,
    deadline: Number.POSITIVE_INFINITY,
  });
  return (kind) => makeObject(kit, kind);
}
