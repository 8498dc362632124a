// The contract kit's webhook receiver: anyone who reaches it (through the tunnel a run against a remote service
// uses) may post to it, so what it holds is bounded in bytes as well as in count.
import { afterEach, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../src/conformance/receiver.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

// 40 MiB through a socket: seconds on a loaded machine, so the guard is against a hang, not a speed.
it('keeps the newest deliveries within 32 MiB, whatever their count, and refuses a body over 1 MiB', {
  timeout: 120_000,
}, async () => {
  receiver = await startReceiver();
  const body = (i: number) => `{"n":${i},"pad":"${'x'.repeat((1 << 20) - 64)}"}`;
  for (let i = 0; i < 40; i++) {
    const res = await fetch(receiver.url, { method: 'POST', body: body(i) });
    expect(res.status).toBe(200);
  }
  const held = receiver.deliveries.reduce((n, d) => n + d.raw.length, 0);
  expect(held).toBeLessThanOrEqual(32 << 20);
  expect(receiver.deliveries.length).toBeGreaterThan(20);
  expect(receiver.deliveries.at(-1)?.json).toMatchObject({ n: 39 });

  // Over the body bound: the connection is dropped and nothing is kept.
  const count = receiver.deliveries.length;
  await expect(fetch(receiver.url, { method: 'POST', body: 'y'.repeat((1 << 20) + 1) })).rejects.toThrow();
  expect(receiver.deliveries.length).toBe(count);
});
