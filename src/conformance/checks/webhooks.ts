// Spec 2.10, 6.1, 8: webhooks as the kit's receiver sees them.
import { sha256Signature } from '../../internal/wire.js';
import { hmacSha256Hex } from '../../internal/hmac.js';
import { verifyWebhook } from '../../webhooks/verify.js';
import { expect, field } from '../assert.js';
import { group } from '../check.js';
import { CheckFailure, CheckSkipped } from '../outcomes.js';
import { type Kit, show } from '../kit.js';
import type { Delivery } from '../receiver.js';
import { bankId, PHONE, RFC3339, expectPlanned } from './fixtures.js';

const WAIT = 10_000;

function hooks(kit: Kit) {
  if (!kit.webhooks || !kit.receiver) throw new CheckSkipped('no webhook receiver');
  return { ...kit.webhooks, receiver: kit.receiver };
}

const about = (event: string, id: string) => (d: Delivery) =>
  d.json?.event === event && d.json.data?.id === id;

/** The delivery of `event` for the object `id`, or a failure. */
async function delivery(kit: Kit, event: string, id: string): Promise<Delivery> {
  const got = await hooks(kit).receiver.next(about(event, id), WAIT);
  if (!got) throw new CheckFailure(`no ${event} webhook for ${id} within ${WAIT / 1000} s`);
  return got;
}

/** A payment of the webhook merchant that sends its events to the receiver. */
async function hookedPayment(kit: Kit, amount: number, order_id: string) {
  const { url, client, receiver } = hooks(kit);
  const made = await kit.createPayment({ amount, order_id, webhook_url: url }, client);
  return { made, client, receiver };
}

/** A payment of the webhook merchant, sending its events to the receiver, then cancelled: its payment.cancelled. */
async function cancelled(kit: Kit, amount: number): Promise<{ id: string; delivery: Delivery }> {
  const { made, client } = await hookedPayment(kit, amount, 'kit-webhook');
  await kit.sdk('payments.cancel', () => client.payments.cancel(made.id));
  return { id: made.id, delivery: await delivery(kit, 'payment.cancelled', made.id) };
}

/** The service's time now, in unix seconds: the reference's clock when there is one. */
async function serviceNow(kit: Kit): Promise<number> {
  if (!kit.control) return Math.floor(Date.now() / 1000);
  const clock = (await kit.admin('GET', '/_simulator/clock')) as { now: string };
  return Math.floor(Date.parse(clock.now) / 1000);
}

/** Waits (up to 5 s of real time) until the reference's delivery log shows the failed attempt of `eventId`. */
async function failureLogged(kit: Kit, eventId: string): Promise<void> {
  const endpoint = kit.webhooks?.endpointId;
  if (!endpoint) return;
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const log = (await kit.admin('GET', `/_cabinet/webhook-endpoints/${endpoint}/deliveries`)) as {
      items?:
        | Array<{ event_id?: string | undefined; next_attempt_at?: string | null | undefined }>
        | undefined;
    };
    if (log.items?.some((d) => d.event_id === eventId && d.next_attempt_at)) return;
    await kit.sleep(50);
  }
}

function parts(header: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq).trim();
    out.set(k, [...(out.get(k) ?? []), part.slice(eq + 1).trim()]);
  }
  return out;
}

export const WEBHOOK_CHECKS = group('webhooks', [
  {
    id: 'headers',
    section: '6.1',
    quote: '| X-PSP-Event-Id | the `evt_` id, the same as in the body |',
    sends: 'payments.create with webhook_url (the receiver), then cancel it',
    expects:
      'a payment.cancelled POST with Content-Type application/json, User-Agent psp-webhook/1.0, X-PSP-Event-Id equal to the body id (evt_...), X-PSP-Timestamp and X-PSP-Signature',
    needs: ['webhooks'],
    async run(kit) {
      const { delivery: d } = await cancelled(kit, 310);
      const h = d.headers;
      expect(
        /^application\/json\b/.test(h['content-type'] ?? ''),
        `Content-Type is ${show(h['content-type'])}`,
      );
      expect(h['user-agent'] === 'psp-webhook/1.0', `User-Agent is ${show(h['user-agent'])}`);
      expect(/^evt_\S+$/.test(String(d.json?.id)), `the body id ${show(d.json?.id)} is not evt_...`);
      expect(
        h['x-psp-event-id'] === d.json?.id,
        `X-PSP-Event-Id ${show(h['x-psp-event-id'])} is not the body id`,
      );
      expect(/^\d+$/.test(h['x-psp-timestamp'] ?? ''), `X-PSP-Timestamp is ${show(h['x-psp-timestamp'])}`);
      expect(h['x-psp-signature'], 'no X-PSP-Signature');
    },
  },
  {
    id: 'envelope',
    section: '2.10',
    quote:
      '| data | object | the full payment or payout object at the time of the event; same fields as the matching GET response |',
    sends: 'payments.create with webhook_url, cancel it, then GET it',
    expects:
      '{ id, event: "payment.cancelled", created_at, data }: data has every field of the GET, and shop_id',
    needs: ['webhooks'],
    async run(kit) {
      const { id, delivery: d } = await cancelled(kit, 320);
      const body = d.json;
      expect(body?.event === 'payment.cancelled', `event is ${show(body?.event)}`);
      expect(
        typeof body.created_at === 'string' && RFC3339.test(body.created_at),
        'created_at is not RFC 3339',
      );
      const got = await kit.api('payments.get', id, {
        key: hooks(kit).key,
        signWith: hooks(kit).signingSecret ?? null,
      });
      const data = body.data ?? {};
      const missing = Object.keys(got.json as object).filter((k) => !(k in data));
      expect(!missing.length, `data lacks fields of the GET: ${missing.join(', ')}`);
      expect(data.status === 'cancelled', `data.status is ${show(data.status)}`);
      expect(
        typeof data.shop_id === 'string' && /^[\da-f-]{36}$/.test(data.shop_id),
        `data.shop_id is ${show(data.shop_id)}`,
      );
    },
  },
  {
    id: 'signature',
    section: '6.1',
    quote:
      '| v2 (recommended) | `t=<unix_ts>,v1=<hex>,v2=<hex>` | HMAC-SHA256 with the endpoint secret over the string `<timestamp>.<raw_body>` (a dot between them) |',
    sends: 'payments.create with webhook_url, then cancel it',
    expects:
      'X-PSP-Signature: v2 over `<t>.<raw body>` with t = X-PSP-Timestamp and fresh (5 minutes), or v1 `sha256=` over the raw body; verifyWebhook accepts it',
    needs: ['webhooks'],
    async run(kit) {
      const { delivery: d } = await cancelled(kit, 330);
      const { secret } = hooks(kit);
      const header = d.headers['x-psp-signature'] ?? '';
      if (header.startsWith('sha256=')) {
        const want = hmacSha256Hex(secret, d.raw);
        expect(header === sha256Signature(want), 'the v1 signature is not HMAC-SHA256 of the raw body');
        return;
      }
      const p = parts(header);
      const t = p.get('t')?.[0] ?? '';
      expect(
        /^\d+$/.test(t) && p.has('v2') && p.has('v1'),
        `X-PSP-Signature ${show(header)} is not t=,v1=,v2=`,
      );
      expect(
        t === d.headers['x-psp-timestamp'],
        `t=${t} is not X-PSP-Timestamp ${show(d.headers['x-psp-timestamp'])}`,
      );
      const want = hmacSha256Hex(secret, `${t}.${d.raw}`);
      expect(
        p.get('v2')?.includes(want),
        'v2 is not HMAC-SHA256 of `<t>.<raw body>` with the endpoint secret',
      );
      const now = await serviceNow(kit);
      expect(Math.abs(now - Number(t)) <= 300, `t=${t} is ${now - Number(t)} s from the service's clock`);
      try {
        verifyWebhook(d.raw, d.headers, secret, { requireV2: true, now: now * 1000 });
      } catch (error) {
        throw new CheckFailure(`psp-sdk/webhooks refuses the delivery: ${(error as Error).message}`);
      }
    },
  },
  {
    id: 'v1-signature',
    section: '6.1',
    quote:
      '| v1 (legacy) | `sha256=<hex>` | HMAC-SHA256 with the endpoint secret over the raw body bytes | none |',
    sends: 'a payment of a cabinet merchant whose endpoint signs with v1, cancelled',
    expects: '`X-PSP-Signature: sha256=<HMAC-SHA256 of the raw body>`',
    needs: ['webhooks', 'control'],
    async run(kit) {
      const { receiver } = hooks(kit);
      const m = await kit.merchant();
      const endpoint = (await kit.admin('POST', `/_cabinet/shops/${m.shop_id}/webhook-endpoints`, {
        url: receiver.url,
        signature_version: 'v1',
      })) as { secret: string };
      const client = kit.clientOf(m);
      const made = await kit.createPayment({ amount: 340, order_id: 'kit-v1' }, client);
      await kit.sdk('payments.cancel', () => client.payments.cancel(made.id));
      const d = await delivery(kit, 'payment.cancelled', made.id);
      const want = sha256Signature(hmacSha256Hex(endpoint.secret, d.raw));
      expect(
        d.headers['x-psp-signature'] === want,
        `X-PSP-Signature ${show(d.headers['x-psp-signature'])} is not v1`,
      );
    },
  },
  {
    id: 'succeeded-and-refunded',
    section: '6.1',
    quote: '| payment.refunded | a refund was made, full or partial; sent once per refund |',
    sends: 'a payment with webhook_url, paid by the buyer, then two partial refunds',
    expects: 'payment.succeeded, then two payment.refunded webhooks with two different event ids',
    needs: ['webhooks'],
    async run(kit) {
      const { made, client, receiver } = await hookedPayment(kit, 1000, 'kit-refunded');
      await kit.pay(made);
      await delivery(kit, 'payment.succeeded', made.id);
      await kit.sdk('payments.refund', () => client.payments.refund(made.id, { amount: 100 }));
      await kit.sdk('payments.refund', () => client.payments.refund(made.id, { amount: 200 }));
      const refunded = about('payment.refunded', made.id);
      const first = await receiver.next(refunded, WAIT);
      const second =
        first && (await receiver.next((d) => refunded(d) && d.json?.id !== first.json?.id, WAIT));
      const ids = new Set(receiver.deliveries.filter(refunded).map((d) => d.json?.id));
      expect(second && ids.size === 2, `${ids.size} payment.refunded webhook(s) for two refunds`);
    },
  },
  {
    id: 'failed-event',
    section: '6.1',
    quote: '| payment.failed | the bank declined; status becomes failed |',
    sends: 'a payment with webhook_url and amount 1901 (planned outcome failed), paid by the buyer',
    expects: 'a payment.failed webhook whose data is failed, and no payment.cancelled',
    needs: ['webhooks'],
    async run(kit) {
      const { made, receiver } = await hookedPayment(kit, 1901, 'kit-failed');
      expectPlanned(kit, made.simulator, 'failed', 1901);
      await kit.pay(made);
      const d = await delivery(kit, 'payment.failed', made.id);
      expect(d.json?.data?.status === 'failed', `data.status is ${show(d.json?.data?.status)}`);
      expect(
        !receiver.deliveries.some(about('payment.cancelled', made.id)),
        'a declined payment sent payment.cancelled',
      );
    },
  },
  {
    id: 'payout-events',
    section: '6.1',
    quote: '| payout.succeeded | the SBP payout passed |',
    sends:
      'payouts.create (amount 100) of a cabinet merchant whose endpoint is the receiver, until it succeeds',
    expects: 'a payout.succeeded webhook whose data is the payout',
    needs: ['webhooks', 'control'],
    async run(kit) {
      const { merchant } = hooks(kit);
      if (!merchant)
        throw new CheckSkipped('payouts carry no webhook_url: their events go to the shop endpoint');
      const client = kit.clientOf(merchant);
      const bank_id = await bankId(kit);
      const made = await kit.sdk('payouts.create', () =>
        client.payouts.create({ amount: 100, phone: PHONE, bank_id }),
      );
      const id = made.payout?.id ?? '';
      await kit.elapse(6);
      const d = await delivery(kit, 'payout.succeeded', id);
      expect(d.json?.data?.status === 'succeeded', `data.status is ${show(d.json?.data?.status)}`);
      expect(field(d.json?.data?.recipient, 'phone') === PHONE, 'data is not the payout');
    },
  },
  {
    id: 'retry-schedule',
    section: '6.1',
    quote:
      'Otherwise retries follow an exponential schedule with delays of 10 seconds, 1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours, 24 hours, 48 hours.',
    sends: 'a payment with webhook_url, cancelled; the receiver answers 500 to the first attempt',
    expects: 'no second attempt before 10 s of service time; then one with the same event id and body',
    needs: ['webhooks'],
    async run(kit) {
      const { made, client, receiver } = await hookedPayment(kit, 350, 'kit-retry');
      const match = about('payment.cancelled', made.id);
      receiver.refuse((d) => match(d) && !receiver.deliveries.some(match));
      try {
        await kit.sdk('payments.cancel', () => client.payments.cancel(made.id));
        const first = await receiver.next(match, WAIT);
        expect(first, `no payment.cancelled webhook for ${made.id}`);
        const second = (d: Delivery) => match(d) && d !== first;
        let retry: Delivery | undefined;
        if (kit.control?.clock === 'manual') {
          // The receiver sees the attempt before the service has read its 500: the clock moves only once the
          // failure is in the endpoint's delivery log, so that the retry is scheduled from the time it failed.
          await failureLogged(kit, String(first.json?.id));
          expect(!receiver.deliveries.some(second), 'a retry came at once after the failure');
          await kit.elapse(9);
          const early = await receiver.next(second, 1500);
          expect(!early, 'a retry came before 10 s of service time');
          await kit.elapse(1);
          retry = await receiver.next(second, WAIT);
        } else {
          retry = await receiver.next(second, 15_000);
          if (retry) {
            const gap = (retry.at - first.at) / 1000;
            expect(gap >= 9.5, `the retry came ${gap.toFixed(1)} s after the first attempt, not 10 s`);
          }
        }
        expect(retry, 'no retry after a 500 within the first step of the schedule');
        expect(retry.json?.id === first.json?.id, 'the retry carries another event id');
        expect(retry.headers['x-psp-event-id'] === first.headers['x-psp-event-id'], 'X-PSP-Event-Id changed');
        expect(retry.raw === first.raw, 'the retry sent another body');
      } finally {
        receiver.refuse(undefined);
      }
    },
  },
]);
