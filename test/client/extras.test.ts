// The client options the best SDKs have (issue 44 item 5): `fetchOptions` per client and per call, handed to fetch
// as RequestInit extras under the SDK's own keys; per-call `headers` that can never set the SDK's own; and
// `withOptions`, a copy of a client with some options changed.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PspClient, PspValidationError } from '../../src/index.js';

const KEY = 'sk_test_abc123_ExtrasTestKeySecret0123456789';

/** A client whose fetch records each request and init, answering a bank list. */
function recording(options: ConstructorParameters<typeof PspClient>[0] = {}) {
  const seen: Array<{ request: Request; init: RequestInit | undefined }> = [];
  const client = new PspClient({
    apiKey: KEY,
    baseUrl: 'http://psp.test',
    fetch: async (input, init) => {
      seen.push({ request: input as Request, init });
      return Response.json({ items: [] });
    },
    ...options,
  });
  return { client, seen };
}

describe('fetchOptions', () => {
  it("reach fetch with every request, the call's over the client's, the SDK's own keys winning", async () => {
    const dispatcher = { name: 'proxy agent' } as never; // an undici Dispatcher, in Node
    const { client, seen } = recording({ fetchOptions: { dispatcher, keepalive: true, priority: 'low' } });
    await client.banks.list();
    expect(seen[0]!.init).toMatchObject({ dispatcher, keepalive: true, priority: 'low' });
    await client.payments
      .get('0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a78', { fetchOptions: { priority: 'high' } })
      .catch(() => {});
    expect(seen[1]!.init).toMatchObject({ dispatcher, priority: 'high' });
    // The request keeps what the SDK set: manual redirects, its own signal.
    expect(seen[1]!.request.redirect).toBe('manual');
  });

  it('refuse the keys the SDK sets itself, per client and per call, naming them', async () => {
    expect(
      () => new PspClient({ apiKey: KEY, baseUrl: 'http://psp.test', fetchOptions: { redirect: 'follow' } }),
    ).toThrow(/fetchOptions\.redirect/);
    expect(
      () => new PspClient({ apiKey: KEY, baseUrl: 'http://psp.test', fetchOptions: 'x' as never }),
    ).toThrow(PspValidationError);
    const { client, seen } = recording();
    await expect(
      client.banks.list({ fetchOptions: { headers: { authorization: 'Bearer x' } } as never }),
    ).rejects.toThrow(/fetchOptions\.headers/);
    expect(seen).toHaveLength(0);
  });
});

describe('per-call headers', () => {
  it('are sent, and seen by the middleware', async () => {
    const fromMiddleware: string[] = [];
    const { client, seen } = recording({
      middleware: [
        (request, next) => {
          fromMiddleware.push(request.headers.get('x-trace-id') ?? '');
          return next(request);
        },
      ],
    });
    await client.banks.list({ headers: { 'X-Trace-Id': 'trace-1', 'x-tenant': 'shop-7' } });
    expect(seen[0]!.request.headers.get('x-trace-id')).toBe('trace-1');
    expect(seen[0]!.request.headers.get('x-tenant')).toBe('shop-7');
    expect(fromMiddleware).toEqual(['trace-1']);
    expect(seen[0]!.request.headers.get('authorization')).toBe(`Bearer ${KEY}`);
  });

  it.each(['Authorization', 'idempotency-key', 'X-PSP-Signature', 'content-type', 'Accept', 'host'])(
    'can never set %s: refused before anything is sent',
    async (name) => {
      const { client, seen } = recording({ signingSecret: 'thm_ExtrasSigningSecret0123456789' });
      const call = client.payments.create(
        { amount: 100 },
        { headers: { [name]: 'mine' }, idempotencyKey: 'k-1' },
      );
      await expect(call).rejects.toThrow(PspValidationError);
      await expect(call).rejects.toThrow(new RegExp(`headers\\.${name}`));
      expect(seen).toHaveLength(0);
    },
  );

  it('refuses a value that is not a string or holds a line break', async () => {
    const { client } = recording();
    await expect(client.banks.list({ headers: { 'x-a': 1 as never } })).rejects.toThrow(
      /headers\.x-a: must be a string/,
    );
    await expect(client.banks.list({ headers: { 'x-a': 'a\r\nx-b: c' } })).rejects.toThrow(/valid header/);
  });
});

describe('withOptions', () => {
  it('makes a new client with the options changed and the rest kept; the original is unchanged', async () => {
    const { client, seen } = recording({ timeout: 10_000 });
    const other = client.withOptions({ fetchOptions: { priority: 'low' }, maxRetries: 0 });
    expect(other).not.toBe(client);
    expect(other.baseUrl).toBe(client.baseUrl);
    await other.banks.list();
    await client.banks.list();
    expect(seen[0]!.init).toMatchObject({ priority: 'low' });
    expect((seen[1]!.init as Record<string, unknown> | undefined)?.priority).toBeUndefined();
    expect(seen[0]!.request.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    // The key stays out of sight in both.
    expect(inspect(other, { showHidden: true })).not.toContain('ExtrasTestKeySecret');
    expect(JSON.stringify(other)).not.toContain('ExtrasTestKeySecret');
  });

  it('checks the new options as the constructor does', () => {
    const { client } = recording();
    expect(() => client.withOptions({ timeout: -1 })).toThrow(PspValidationError);
  });
});
