// Spec 2.11, 4.8, 6.2: the Server-Sent Events stream.
import { TIMED_OUT, withDeadline } from '../../internal/deadline.js';
import { expect, field } from '../assert.js';
import { group } from '../check.js';
import type { EventStream } from '../../resources/events.js';
import { type Kit, show } from '../kit.js';
import { dataOf, eventFor, openStream, type RawStream } from '../stream.js';
import { bankId, PHONE, RFC3339 } from './fixtures.js';

const WAIT = 5000;

/**
 * Whether the SDK's stream sees the payment.created of a payment made while it is open. The SDK connects when
 * iterated and says nothing when it is connected: a payment is made each second, up to 5, until one is seen.
 */
async function sees(kit: Kit, stream: EventStream): Promise<boolean> {
  const events = stream[Symbol.asyncIterator]();
  // A read is begun before it is awaited (a payment is made meanwhile): marked handled, so a stream that fails
  // while this check fails for another reason (or has returned) is that check's failure, not an unhandled
  // rejection that ends the run. Awaiting it still throws.
  const pull = () => {
    const read = events.next();
    read.catch(() => undefined);
    return read;
  };
  let next = pull();
  for (let i = 0; i < 5; i++) {
    const { id } = await kit.createPayment({ amount: 210 + i, order_id: 'kit-sse-sdk' });
    const deadline = Date.now() + 1000;
    for (;;) {
      const got = await withDeadline(next, deadline - Date.now());
      if (got === TIMED_OUT) break;
      if (got.done) return false;
      next = pull();
      if (got.value.kind === 'payment.created' && got.value.payload.id === id) return true;
    }
  }
  return false;
}

/** Opens events.stream, runs `body` with it and closes it, whatever `body` does. */
async function withStream(kit: Kit, body: (stream: RawStream) => Promise<void>): Promise<void> {
  const stream = await openStream(kit);
  try {
    await body(stream);
  } finally {
    await stream.close();
  }
}

const FRAMING =
  'Framing: each message is an `event: <kind>` line and a `data: <json>` line, ended by an empty line. The stream opens with the comment line `: connected`.';

export const EVENT_CHECKS = group('events', [
  {
    id: 'framing',
    section: '4.8',
    quote: FRAMING,
    sends: 'events.stream, then payments.create { amount: 170 }',
    expects:
      '200 text/event-stream opening with `: connected`; then `event: payment.created`, `data: <json>`, an empty line',
    async run(kit) {
      await withStream(kit, async (stream) => {
        expect(stream.status === 200, `events.stream answered ${stream.status}`);
        expect(
          stream.contentType.startsWith('text/event-stream'),
          `content-type is ${show(stream.contentType)}`,
        );
        const first = await stream.line(WAIT);
        expect(first === ': connected', `the stream opened with ${show(first)}, not ": connected"`);
        const made = await kit.createPayment({ amount: 170, order_id: 'kit-sse' });
        const frame = await stream.frame(eventFor('payment.created', made.id), WAIT);
        expect(frame, `no payment.created message for ${made.id} within ${WAIT / 1000} s`);
        expect(
          frame.lines.length === 2 &&
            frame.lines[0] === 'event: payment.created' &&
            frame.lines[1]?.startsWith('data: '),
          `the message is not an event line and a data line: ${show(frame.lines)}`,
        );
      });
    },
  },
  {
    id: 'created-envelope',
    section: '2.11',
    quote:
      '| payload | object | for payment events includes `id` and `status`; `payment.created` also includes `amount` |',
    sends: 'events.stream, then payments.create { amount: 180 }',
    expects:
      'payment.created data { kind: "payment.created", payload: { id, status: "pending", amount: 180 }, at }',
    async run(kit) {
      await withStream(kit, async (stream) => {
        const made = await kit.createPayment({ amount: 180, order_id: 'kit-sse-envelope' });
        const frame = await stream.frame(eventFor('payment.created', made.id), WAIT);
        expect(frame, `no payment.created message for ${made.id}`);
        const data = dataOf(frame);
        const payload = data.payload as Record<string, unknown> | undefined;
        expect(data.kind === 'payment.created', `kind is ${show(data.kind)}`);
        expect(payload?.id === made.id, `payload.id is ${show(payload?.id)}`);
        expect(payload?.status === 'pending', `payload.status is ${show(payload?.status)}`);
        expect(payload?.amount === 180, `payload.amount is ${show(payload?.amount)}, not 180`);
        expect(typeof data.at === 'string' && RFC3339.test(data.at), `at is ${show(data.at)}, not RFC 3339`);
      });
    },
  },
  {
    id: 'status-changed',
    section: '6.2',
    quote:
      'Kinds: `payment.created`, `payment.status_changed`, `payout.created`, `payout.status_changed`, `refund.created`.',
    sends: 'events.stream, then create and cancel a payment, pay and refund another, create a payout',
    expects: 'payment.status_changed { id, status: "cancelled" }, refund.created and payout.created messages',
    async run(kit) {
      await withStream(kit, async (stream) => {
        const made = await kit.createPayment({ amount: 190, order_id: 'kit-sse-cancel' });
        await kit.api('payments.cancel', made.id);
        const cancelled = await stream.frame(
          (f) =>
            eventFor('payment.status_changed', made.id)(f) &&
            dataOf(f).payload !== undefined &&
            field(dataOf(f).payload, 'status') === 'cancelled',
          WAIT,
        );
        expect(cancelled, `no payment.status_changed to cancelled for ${made.id}`);
        const paid = await kit.succeededPayment(200);
        await kit.api('payments.refund', paid.id, { body: { amount: 50 } });
        expect(await stream.frame(eventFor('refund.created', paid.id), WAIT), 'no refund.created message');
        const payout = await kit.api('payouts.create', {
          body: { amount: 100, phone: PHONE, bank_id: await bankId(kit) },
        });
        const id = String(field(field(payout.json, 'payout'), 'id'));
        expect(await stream.frame(eventFor('payout.created', id), WAIT), 'no payout.created message');
      });
    },
  },
  {
    id: 'reconnect',
    section: '6.2',
    quote: 'One connection per key; the client reconnects by itself after a break.',
    sends: "the SDK's events.stream(), closed after one event, then a second one",
    expects: 'each connection sees the payment.created of the payment made while it was open',
    async run(kit) {
      const client = kit.client();
      for (const round of ['first', 'second']) {
        const stream = client.events.stream({ maxRetries: 2 });
        try {
          expect(
            await sees(kit, stream),
            `the SDK's ${round} stream saw none of the payments made while it was open`,
          );
        } finally {
          stream.close();
        }
      }
    },
  },
  {
    id: 'one-per-key',
    section: '8',
    quote: '| SSE connections | one per key |',
    sends: 'events.stream, then a second events.stream with the same key',
    expects: 'the first stream ends; the second opens with `: connected`',
    async run(kit) {
      const first = await openStream(kit);
      const second = await openStream(kit);
      try {
        expect((await second.line(WAIT)) === ': connected', 'the second stream did not open');
        const end = await first.frame(() => false, WAIT);
        const ended = end === undefined && (await first.line(1)) === undefined;
        expect(ended, 'the first stream still runs beside a second one on the same key');
      } finally {
        await first.close();
        await second.close();
      }
    },
  },
  {
    id: 'heartbeat',
    section: '4.8',
    quote: 'A comment line `: ping` is sent as a heartbeat every 25 seconds.',
    sends: "events.stream, then 25 s of service time (the reference's manual clock, or real time)",
    expects: 'a `: ping` comment line',
    needs: ['control'],
    async run(kit) {
      await withStream(kit, async (stream) => {
        expect((await stream.line(WAIT)) === ': connected', 'the stream did not open with : connected');
        await kit.elapse(25);
        const ping = await stream.frame((f) => f.lines[0] === ': ping', WAIT);
        expect(ping, 'no `: ping` within 25 s of service time');
      });
    },
  },
]);
