import { afterEach, describe, expect, test } from 'vitest';
import { PspClient } from '../../src/index.js';
import { createReference, type Reference } from '../../src/reference/service.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';

let ref: Reference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

const DAY = 24 * 60 * 60;

/**
 * A reference on a manual clock whose webhooks go straight to a `createWebhookHandler` (no socket), and the
 * receiver's answers. `now` is the handler's option under test.
 */
async function receiverOnTestClock(now: 'service clock' | 'wall clock') {
  const answers: Array<{ status: number; body: string }> = [];
  const received: WebhookEvent[] = [];
  let handle: ((request: Request) => Promise<Response>) | undefined;
  const r = createReference({
    clock: 'manual',
    webhookFetch: async (input, init) => {
      const res = await handle!(new Request(input, init));
      answers.push({ status: res.status, body: await res.clone().text() });
      return res;
    },
  });
  ref = r;
  const { secret } = await r.control.createWebhookEndpoint(r.shop_id, { url: 'https://shop.example/hooks' });
  handle = createWebhookHandler({
    secret,
    ...(now === 'service clock' ? { now: r.clock.now } : {}),
    on: { 'payment.succeeded': (event) => void received.push(event) },
  });
  const client = new PspClient({
    apiKey: r.api_key,
    baseUrl: 'http://ref.test',
    fetch: (input, init) => r.fetch(new Request(input, init)),
    maxRetries: 0,
  });
  return { r, client, answers, received };
}

describe('a webhook receiver under test follows the reference clock (now: ref.clock.now)', () => {
  test('a day after the start, deliveries still verify', async () => {
    const { r, client, answers, received } = await receiverOnTestClock('service clock');
    await r.control.advanceClock(DAY);
    const { payment } = await client.payments.create({ amount: 1500 });
    await r.pay(payment.id);
    await expect.poll(() => received.map((e) => e.data.id)).toEqual([payment.id]);
    expect(answers.map((a) => a.status)).toEqual([200]);
  });

  test('without it, the same delivery is refused as outside the tolerance (what the option fixes)', async () => {
    const { r, client, answers } = await receiverOnTestClock('wall clock');
    await r.control.advanceClock(DAY);
    const { payment } = await client.payments.create({ amount: 1500 });
    await r.pay(payment.id);
    await expect.poll(() => answers.length).toBe(1);
    expect(answers[0]).toMatchObject({
      status: 400,
      body: expect.stringContaining('timestamp_outside_tolerance'),
    });
  });

  test("the clock's now is bound: handed on alone it reads the service time", async () => {
    ref = createReference({ clock: 'manual' });
    const { now } = ref.clock;
    const before = now();
    await ref.control.advanceClock(DAY);
    expect(now() - before).toBe(DAY * 1000);
  });
});
