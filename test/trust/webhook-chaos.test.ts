import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createReference, type Reference } from '../../src/reference/index.js';
import { verifyWebhook } from '../../src/webhooks/index.js';

/**
 * A receiver that fails half of its deliveries at random (a 500 after it has read the event, or a reset
 * connection) still ends up with every one of 2,000 events: the schedule of spec 6.1 retries them on the manual
 * clock, and the few that fail all 9 attempts are resent by hand from the cabinet, as the spec provides.
 * Every duplicate it sees carries the same evt_ id.
 */

const SCHEDULE_S = [10, 60, 300, 1_800, 7_200, 21_600, 86_400, 172_800];
const EVENTS = 2_000;

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Seen {
  attempts: number;
  acked: boolean;
  ids: Set<string>;
}

let ref: Reference | undefined;
let server: http.Server | undefined;
afterAll(async () => {
  await ref?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('webhooks to a receiver that fails 50 % of the time', () => {
  it('every one of 2,000 events arrives, with stable evt_ ids on duplicates', async () => {
    const random = rng(42);
    let failing = true;
    const byPayment = new Map<string, Seen>();
    let requests = 0;
    let badSignatures = 0;
    let secret = '';

    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests++;
        const body = Buffer.concat(chunks).toString('utf8');
        let event: ReturnType<typeof verifyWebhook>;
        try {
          event = verifyWebhook(body, req.headers, secret, { now: ref!.clock.now() });
        } catch {
          badSignatures++;
          res.writeHead(400).end();
          return;
        }
        const paymentId = (event.data as { id: string }).id;
        const seen = byPayment.get(paymentId) ?? { attempts: 0, acked: false, ids: new Set<string>() };
        byPayment.set(paymentId, seen);
        seen.attempts++;
        seen.ids.add(event.id);
        const roll = random();
        if (failing && roll < 0.25) {
          req.socket.destroy(); // the connection drops before any answer
          return;
        }
        if (failing && roll < 0.5) {
          res.writeHead(500).end('processed, then failed'); // the service will send it again
          return;
        }
        seen.acked = true;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    ref = createReference({ clock: 'manual' });
    await ref.control.updateMerchant(ref.merchant_id, {
      rate_limit: { limit: 1_000_000, window_seconds: 1 },
    });
    const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, {
      url,
      events: ['payment.succeeded'],
    });
    secret = endpoint.secret;

    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const res = await ref.fetch(
        new Request('http://ref.test/api/v1/public/payments', {
          method: 'POST',
          headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 1_000 + i * 1_000 }),
        }),
      );
      const id = ((await res.json()) as { payment: { id: string } }).payment.id;
      await ref.control.succeedPayment(id);
      ids.push(id);
    }

    // All first attempts happen at one instant of the manual clock, so after schedule step k every event not yet
    // acknowledged has had exactly k + 1 attempts: wait for that, then advance to the next retry.
    const deliveryLog = async () => (await ref!.control.listDeliveries(endpoint.id)).items;
    const settledAt = async (k: number) => {
      await expect
        .poll(
          () =>
            byPayment.size === EVENTS &&
            [...byPayment.values()].every((v) => v.acked || v.attempts === k + 1),
          { timeout: 60_000, interval: 20 },
        )
        .toBe(true);
    };
    await settledAt(0);
    for (let k = 0; k < SCHEDULE_S.length; k++) {
      await ref.control.advanceClock(SCHEDULE_S[k]!);
      await settledAt(k + 1);
    }
    // The schedule is over: nothing more is sent however long we wait.
    const before = requests;
    await ref.control.advanceClock(30 * 86_400);
    expect(requests).toBe(before);

    const exhausted = ids.filter((id) => !byPayment.get(id)?.acked);
    const log = await deliveryLog();
    const evtOf = new Map<string, string>();
    for (const [pid, s] of byPayment) evtOf.set(pid, [...s.ids][0]!);
    for (const pid of exhausted) {
      const entries = log.filter((d) => d.event_id === evtOf.get(pid));
      // The receiver saw all 9 attempts; the (bounded) log's last entry says no attempt is planned.
      expect(byPayment.get(pid)!.attempts).toBe(9);
      if (entries.length) expect(entries.at(-1)!.next_attempt_at).toBeNull();
    }
    const acknowledgedBySchedule = EVENTS - exhausted.length;

    // Hand resend from the cabinet, with the receiver healthy again: the same evt_ ids arrive.
    failing = false;
    const resendIds = new Set<string>();
    for (const d of log)
      if (exhausted.some((pid) => evtOf.get(pid) === d.event_id)) resendIds.add(d.event_id);
    for (const id of resendIds) await ref.control.resendEvent(id);
    await expect.poll(() => ids.every((id) => byPayment.get(id)?.acked), { timeout: 30_000 }).toBe(true);

    const duplicates = [...byPayment.values()].reduce((s, v) => s + v.attempts - 1, 0);
    console.log(
      `[webhook-chaos] events=${EVENTS} requests=${requests} acknowledged-by-schedule=${acknowledgedBySchedule}` +
        ` exhausted-after-9=${exhausted.length} resent-by-hand=${resendIds.size} duplicates-seen=${duplicates} bad-signatures=${badSignatures}`,
    );
    expect(byPayment.size).toBe(EVENTS);
    expect(badSignatures).toBe(0);
    for (const s of byPayment.values()) expect(s.ids.size).toBe(1); // duplicates carry the same evt_ id
    expect(new Set([...byPayment.values()].map((s) => [...s.ids][0])).size).toBe(EVENTS);
    expect(duplicates).toBeGreaterThan(0);
  }, 180_000);
});
