import { afterEach, describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

// Spec 2.2 allows any metadata key. The keys that name Object.prototype's parts are stored as the data they are:
// they round-trip through create and get, over HTTP, for a raw caller and for the SDK, and pollute nothing.

const TRICKY = '{"__proto__":"p","constructor":"c","prototype":"t","hasOwnProperty":"h","toString":"s"}';
const EXPECTED = [
  ['__proto__', 'p'],
  ['constructor', 'c'],
  ['prototype', 't'],
  ['hasOwnProperty', 'h'],
  ['toString', 's'],
];

let ref: RunningReference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

/** The metadata of a parsed answer as its own entries: `toEqual` on an object would not see `__proto__`. */
const entries = (meta: unknown) => Object.entries(meta as object).sort();

describe('metadata keys named like Object.prototype parts', () => {
  it('round-trip through create -> get over HTTP, and pollute no prototype', async () => {
    ref = await startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
    const headers = { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' };
    const created = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers,
      body: `{"amount":100,"metadata":${TRICKY}}`,
    });
    const text = await created.text();
    expect(created.status, text).toBe(201);
    const payment = JSON.parse(text).payment as { id: string; metadata: object };
    expect(entries(payment.metadata)).toEqual(EXPECTED.sort());
    const read = await fetch(`${ref.base_url}/api/v1/public/payments/${payment.id}`, { headers });
    const raw = await read.text();
    expect(raw).toContain('"__proto__":"p"');
    expect(entries(JSON.parse(raw).metadata)).toEqual(EXPECTED.sort());
    // An object value under __proto__ is refused (values are strings), so no prototype can be reached through it.
    const attack = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers,
      body: '{"amount":100,"metadata":{"__proto__":{"polluted":"yes"}},"__proto__":{"polluted":"yes"}}',
    });
    expect(attack.status).toBe(400);
    await attack.body?.cancel();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(payment.metadata)).toBe(Object.prototype);
  });

  it('the SDK sends such keys and parses answers that carry them, strict and tolerant', async () => {
    ref = await startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
    for (const strict of [true, false]) {
      const client = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url, strict });
      const metadata = JSON.parse(TRICKY) as Record<string, string>;
      const created = await client.payments.create({ amount: 100, metadata });
      expect(entries(created.payment.metadata)).toEqual(EXPECTED.sort());
      const read = await client.payments.get(created.payment.id);
      expect(entries(read.metadata)).toEqual(EXPECTED.sort());
      expect(read.metadata?.constructor).toBe('c');
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
