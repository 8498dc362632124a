// Webhook chaos (issue 41 item 1) on a real receiver: duplicates (same event id and body, each validly signed),
// reordering (an event sent after the next one of its endpoint), delays on the service clock; each marked in the
// delivery log; the same seed and the same calls give the same deliveries in the same order.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../../src/reference/index.js';
import type { WebhookChaosInput } from '../../../src/reference/domain/cabinet-inputs.js';
import { verifyWebhook } from '../../../src/webhooks/index.js';

interface Received {
  id: string;
  event: string;
  order_id: string;
  body: string;
  valid: boolean;
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** A reference on a manual clock with chaos, and a receiver of its webhooks on 127.0.0.1 that checks signatures. */
async function lab(webhookChaos?: WebhookChaosInput) {
  const received: Received[] = [];
  let ref: RunningReference | undefined;
  let secret = '';
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      let valid = true;
      try {
        verifyWebhook(body, req.headers as Record<string, string>, secret, { now: ref!.clock.now() });
      } catch {
        valid = false;
      }
      const parsed = JSON.parse(body) as { id: string; event: string; data: { order_id?: string } };
      received.push({
        id: parsed.id,
        event: parsed.event,
        order_id: parsed.data.order_id ?? '',
        body,
        valid,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  ref = await startReference({ port: 0, clock: 'manual', ...(webhookChaos ? { webhookChaos } : {}) });
  open.push(() => ref!.close());
  const port = (server.address() as { port: number }).port;
  const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, {
    url: `http://127.0.0.1:${port}/hooks`,
    events: ['payment.succeeded'],
  });
  secret = endpoint.secret;
  const r = ref;
  const pay = async (order: string) => {
    const res = await fetch(`${r.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1000, order_id: order }),
    });
    const { payment } = (await res.json()) as { payment: { id: string } };
    await r.control.succeedPayment(payment.id);
  };
  /** Waits, on the event loop, until the receiver has `n` deliveries. */
  const until = async (n: number) => {
    while (received.length < n) await new Promise((resolve) => setImmediate(resolve));
  };
  /** The delivery log once it holds `n` attempts (written when each answer is in, just after the receiver saw it). */
  const log = async (n = 0) => {
    let items = (await r.control.listDeliveries(endpoint.id)).items;
    while (items.length < n) {
      await new Promise((resolve) => setImmediate(resolve));
      items = (await r.control.listDeliveries(endpoint.id)).items;
    }
    return items;
  };
  return { ref: r, received, pay, until, log };
}

describe('webhook chaos', () => {
  it('duplicate: a delivered event comes again, same id and body, validly signed, marked in the log', async () => {
    const { received, pay, until, log } = await lab({ seed: 1, duplicate: 1 });
    await pay('A-1');
    await until(2);
    const [first, second] = received;
    expect(first!.id).toBe(second!.id);
    expect(second!.body).toBe(first!.body);
    expect(received.every((r) => r.valid)).toBe(true);
    const entries = await log(2);
    expect(entries.map((e) => e.chaos)).toEqual([undefined, 'duplicate']);
    expect(entries.every((e) => e.status_code === 200 && e.event_id === first!.id)).toBe(true);
  });

  it('reorder: an event is held back and sent after the next event of its endpoint', async () => {
    const { received, pay, until, log } = await lab({ seed: 1, reorder: 1 });
    await pay('A-1');
    await pay('A-2');
    await until(2);
    expect(received.map((r) => r.order_id)).toEqual(['A-2', 'A-1']);
    expect(received.every((r) => r.valid)).toBe(true);
    expect((await log(2)).map((e) => e.chaos)).toEqual([undefined, 'reordered']);
  });

  it('reorder: a held event with no event after it goes when its hold is up, on the service clock', async () => {
    const { ref, received, pay, until } = await lab({ seed: 1, reorder: 1 });
    await pay('A-1');
    await ref.control.advanceClock(4);
    expect(received).toHaveLength(0);
    await ref.control.advanceClock(1);
    await until(1);
    expect(received[0]!.order_id).toBe('A-1');
  });

  it('delay: a first attempt waits on the service clock: held by a manual clock until it is advanced', async () => {
    const { ref, received, pay, until, log } = await lab({
      seed: 3,
      delay: { min_seconds: 10, max_seconds: 10 },
    });
    await pay('A-1');
    await ref.control.advanceClock(9);
    expect(received).toHaveLength(0);
    await ref.control.advanceClock(1);
    await until(1);
    expect(received[0]!.valid).toBe(true);
    expect((await log(1))[0]).toMatchObject({ chaos: 'delayed', attempt: 1, status_code: 200 });
  });

  it('the same seed and the same calls give the same deliveries', async () => {
    const chaos = { seed: 42, duplicate: 0.4, reorder: 0.4, delay: { min_seconds: 0, max_seconds: 5 } };
    const runs: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const { ref, received, pay, log } = await lab(chaos);
      for (let i = 1; i <= 12; i++) await pay(`A-${i}`);
      await ref.control.advanceClock(60);
      // Every event delivered at least once, and every planned duplicate with it.
      let entries = await log();
      while (entries.length < 12 || received.length < entries.length) {
        await new Promise((resolve) => setImmediate(resolve));
        entries = await log();
      }
      // Attempts run side by side (up to 16 to one endpoint), so the log's order is the answers'; what each event
      // went through, and how often, is the seed's.
      runs.push(
        entries.map((e) => `${received.find((r) => r.id === e.event_id)?.order_id} ${e.chaos ?? '-'}`).sort(),
      );
      expect(new Set(received.map((r) => r.order_id)).size).toBe(12);
    }
    expect(runs[1]).toEqual(runs[0]);
    // The seed did something: some chaos of each kind in 12 events.
    expect(runs[0]!.join(' ')).toMatch(/duplicate/);
    expect(runs[0]!.join(' ')).toMatch(/reordered/);
  });

  it('is set, read and cleared over HTTP with the admin token; a bad field is a 400 naming it, changing nothing', async () => {
    const { ref } = await lab();
    const call = (method: string, body?: unknown) =>
      fetch(`${ref.base_url}/_simulator/webhook-chaos`, {
        method,
        headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect(await (await call('GET')).json()).toBeNull();
    const put = await call('PUT', {
      duplicate: 0.3,
      reorder: 0.2,
      delay: { min_seconds: 0, max_seconds: 30 },
      seed: 42,
    });
    expect(put.status).toBe(200);
    const config = { seed: 42, duplicate: 0.3, reorder: 0.2, delay: { min_seconds: 0, max_seconds: 30 } };
    expect(await put.json()).toEqual(config);
    for (const [bad, field] of [
      [{ duplicate: 1.5 }, 'duplicate'],
      [{ reorder: -0.1 }, 'reorder'],
      [{ delay: { min_seconds: 10, max_seconds: 5 } }, 'delay'],
      [{ seed: 1.5 }, 'seed'],
      [{ chaos: true }, 'chaos'],
    ] as const) {
      const res = await call('PUT', bad);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('bad_request');
      expect(error.message).toContain(field);
    }
    expect(await (await call('GET')).json()).toEqual(config);
    expect((await call('DELETE')).status).toBe(204);
    expect(await (await call('GET')).json()).toBeNull();
    const noToken = await fetch(`${ref.base_url}/_simulator/webhook-chaos`);
    expect(noToken.status).toBe(401);
  });

  it('startReference refuses bad chaos with a TypeError naming the field', async () => {
    await expect(startReference({ port: 0, webhookChaos: { duplicate: 2 } })).rejects.toThrow(
      /webhookChaos: .*duplicate/,
    );
  });
});
