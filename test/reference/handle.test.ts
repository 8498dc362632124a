import { afterEach, describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';
import { DomainError } from '../../src/reference/domain/errors.js';
import { createReference, type Reference, startReference } from '../../src/reference/index.js';

const FACTS = ['admin_token', 'merchant_id', 'shop_id', 'terminal_id', 'api_key', 'signing_secret'] as const;
// The one shape: the facts above, then the control surface, the buyer's buttons and the rest, at the same names.
const SHARED = [...FACTS, 'control', 'pay', 'decline', 'clock', 'fetch', 'stats', 'close'] as const;

interface Made {
  ref: Reference;
  client: PspClient;
  close(): Promise<void>;
}

// Both entry points, driven by the same tests below: what one offers under a name, the other offers too.
const entryPoints: Array<[string, () => Promise<Made>]> = [
  [
    'createReference()',
    async () => {
      const ref = createReference({ clock: 'manual' });
      const client = new PspClient({
        apiKey: ref.api_key,
        baseUrl: 'http://reference.test',
        fetch: (input, init) => ref.fetch(new Request(input, init)),
      });
      return { ref, client, close: () => ref.close() };
    },
  ],
  [
    'startReference()',
    async () => {
      const ref = await startReference({ port: 0, clock: 'manual' });
      return {
        ref,
        client: new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url }),
        close: () => ref.close(),
      };
    },
  ],
];

const opened: Made[] = [];
afterEach(async () => {
  for (const m of opened.splice(0)) await m.close();
});

describe.each(entryPoints)('%s answers the one reference handle', (_name, make) => {
  const start = async () => {
    const made = await make();
    opened.push(made);
    return made;
  };

  it('has the startup facts and the control surface at the same names, and none of the 0.2 aliases', async () => {
    const { ref } = await start();
    for (const name of SHARED) expect(ref, name).toHaveProperty(name);
    expect(ref.api_key).toMatch(/^sk_test_/);
    expect(ref.admin_token).toMatch(/^adm_/);
    expect(ref.signing_secret).toMatch(/^thm_/);
    // The package is unreleased: the facts live on the handle and the control surface is `control`, nowhere else.
    for (const alias of ['facts', 'cabinet', 'simulator', 'reference'])
      expect(ref, alias).not.toHaveProperty(alias);
  });

  it('every control method is async: it returns a Promise, and a refusal rejects instead of throwing', async () => {
    const { ref } = await start();
    const names = Object.keys(ref.control);
    expect(names).toEqual(
      expect.arrayContaining(['createWebhookEndpoint', 'succeedPayment', 'advanceClock', 'getClock']),
    );
    for (const name of names) {
      const method = (ref.control as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      let result: unknown;
      expect(() => {
        result = method('no-such-id');
      }, name).not.toThrow();
      expect(result, name).toBeInstanceOf(Promise);
      await (result as Promise<unknown>).catch(() => {});
    }
    await expect(ref.control.succeedPayment('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(
      DomainError,
    );
  });

  it('control registers a webhook endpoint, moves a payment as the bank, and advances the clock', async () => {
    const { ref, client } = await start();
    const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, {
      url: 'https://shop.example/hooks',
    });
    expect(endpoint.secret).toMatch(/^whs_/);
    const { payment } = await client.payments.create({ amount: 150_000, order_id: 'h-1' });
    await expect(ref.control.succeedPayment(payment.id)).resolves.toMatchObject({ status: 'succeeded' });
    const before = (await ref.control.getClock()).now;
    const { now } = await ref.control.advanceClock(60);
    expect(Date.parse(now) - Date.parse(before)).toBe(60_000);
  });

  it('pay(): the payment reaches its planned outcome as with the page’s Pay; a second press rejects, changes nothing', async () => {
    const { ref, client } = await start();
    const { payment } = await client.payments.create({ amount: 150_000, order_id: 'h-pay' });
    const paid = await ref.pay(payment.id);
    expect(paid).toMatchObject({ id: payment.id, status: 'succeeded' });
    await expect(client.payments.get(payment.id)).resolves.toMatchObject({ status: 'succeeded' });
    await expect(ref.decline(payment.id)).rejects.toMatchObject({ status: 409, code: 'not_pending' });
    await expect(client.payments.get(payment.id)).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('pay() takes a planned decline to failed, and a slow bank to processing', async () => {
    const { ref, client } = await start();
    const declined = await client.payments.create({ amount: 10_901, order_id: 'h-901' });
    await expect(ref.pay(declined.payment.id)).resolves.toMatchObject({ status: 'failed' });
    const slow = await client.payments.create({ amount: 10_904, order_id: 'h-904' });
    await expect(ref.pay(slow.payment.id)).resolves.toMatchObject({ status: 'processing' });
  });

  it('decline(): the payment fails as declined by the buyer; an unknown id rejects 404', async () => {
    const { ref, client } = await start();
    const { payment } = await client.payments.create({
      amount: 150_000,
      order_id: 'h-decline',
      return_url: 'https://shop.example/back', // no redirect to follow: the helper never leaves the process
    });
    const declined = await ref.decline(payment.id.toUpperCase());
    expect(declined).toMatchObject({ id: payment.id, status: 'failed' });
    await expect(client.payments.get(payment.id)).resolves.toMatchObject({ status: 'failed' });
    await expect(ref.pay('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});
