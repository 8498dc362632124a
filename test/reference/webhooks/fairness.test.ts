import { afterEach, expect, test } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { STARTS_PER_TURN } from '../../../src/reference/webhooks/queue.js';
import { createWebhookService, type WebhookService } from '../../../src/reference/webhooks/index.js';
import { SHOP_A, succeeded, T0 } from './helpers.js';

let svc: WebhookService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A fetch whose requests stay open until the test answers them (with a status), and which records each start. */
function heldTransport() {
  const held: Array<(status: number) => void> = [];
  const fetch = ((_url: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      held.push((status) => resolve(new Response(null, { status })));
      init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
    })) as typeof globalThis.fetch;
  return { held, fetch };
}

test('a backlog starts a few attempts per event-loop turn, so requests queued behind it get turns too', async () => {
  const { held, fetch } = heldTransport();
  const bus = new EventBus();
  svc = createWebhookService({ bus, clock: new ManualClock(T0), fetch, maxInFlight: 64 });
  for (let i = 0; i < 4; i++) svc.createEndpoint(SHOP_A, { url: `http://127.0.0.1:9/${i}` });
  for (let i = 0; i < 10; i++) bus.publish(succeeded()); // 40 deliveries, 16 per endpoint allowed at once
  expect(held).toHaveLength(0); // publishing only queues
  const perTurn: number[] = [];
  for (let turn = 0; turn < 8 && held.length < 40; turn++) {
    const before = held.length;
    // Other work queued now (an API request's I/O, say) runs in the same turn as the next batch, not after all.
    let otherRan = false;
    setImmediate(() => {
      otherRan = true;
    });
    await nextTurn();
    expect(otherRan).toBe(true);
    perTurn.push(held.length - before);
  }
  expect(held).toHaveLength(40);
  expect(Math.max(...perTurn)).toBe(STARTS_PER_TURN);
  expect(perTurn.length).toBeGreaterThanOrEqual(Math.ceil(40 / STARTS_PER_TURN));
  for (const answer of held) answer(204);
  await svc.idle();
});

test('a completion refills from a later turn, not from its own microtask', async () => {
  const { held, fetch } = heldTransport();
  const bus = new EventBus();
  svc = createWebhookService({ bus, clock: new ManualClock(T0), fetch, maxInFlight: 1 });
  svc.createEndpoint(SHOP_A, { url: 'http://127.0.0.1:9/x' });
  bus.publish(succeeded());
  bus.publish(succeeded());
  await nextTurn();
  expect(held).toHaveLength(1);
  held[0]!(204);
  // Microtasks alone (the completion's promise chain) start nothing.
  for (let i = 0; i < 20; i++) await Promise.resolve();
  expect(held).toHaveLength(1);
  await nextTurn();
  await nextTurn();
  expect(held).toHaveLength(2);
  held[1]!(204);
  await svc.idle();
});
