import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { type DomainEvent, EventBus } from '../../../src/reference/domain/events.js';
import { createEventStreamHub, type EventStreamHub } from '../../../src/reference/sse/index.js';
import { eventSchemas } from '../../../src/schemas/events.js';
import { MERCHANT, oneOfEachKind, payment, paymentChanged, T0 } from '../webhooks/helpers.js';

const OTHER = '6f1c0a7e-1111-4a4a-8a8a-000000000002';
let hub: EventStreamHub | undefined;
afterEach(() => {
  hub?.close();
  hub = undefined;
});

function setup(options: { bufferSize?: number; bufferBytes?: number } = {}) {
  const bus = new EventBus();
  const clock = new ManualClock(T0);
  hub = createEventStreamHub({ bus, clock, ...options });
  return { bus, clock, hub };
}

const decoder = new TextDecoder();

const pendingReads = new WeakMap<
  ReadableStreamDefaultReader<Uint8Array>,
  ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>
>();

/**
 * Reads what the stream has ready right now (stops when a read would wait), as text. A read that is still waiting
 * is kept for the next call, so no chunk is lost between calls.
 */
async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ text: string; done: boolean }> {
  let text = '';
  for (;;) {
    let read = pendingReads.get(reader);
    if (!read) {
      read = reader.read();
      pendingReads.set(reader, read);
    }
    const next = await Promise.race([read, new Promise<'wait'>((r) => setTimeout(() => r('wait'), 5))]);
    if (next === 'wait') return { text, done: false };
    pendingReads.delete(reader);
    if (next.done) return { text, done: true };
    text += decoder.decode(next.value);
  }
}

function parse(text: string): { events: EventSourceMessage[]; comments: string[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c.trim()) });
  parser.feed(text);
  return { events, comments };
}

const allKinds = () => oneOfEachKind('A-1');

describe('framing and payloads (spec 4.8, 2.11, 6.2)', () => {
  test('opens with ": connected", then one event:/data: message per domain event, every status change included', async () => {
    const { bus, hub } = setup();
    const reader = hub.open({ keyId: 'k1', merchantId: MERCHANT }).getReader();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe(': connected\n\n');
    const events = allKinds();
    for (const e of events) bus.publish(e);
    const { text } = await drain(reader);
    // Exact framing: one event line, one data line, an empty line.
    expect(text).toMatch(/^(event: [a-z_.]+\ndata: \{[^\n]*\}\n\n)+$/);
    const parsed = parse(text).events;
    expect(parsed.map((m) => m.event)).toEqual([
      'payment.created',
      'payment.status_changed',
      'payment.status_changed',
      'payout.created',
      'payout.status_changed',
      'refund.created',
      'payment.status_changed',
    ]);
    const envelopes = parsed.map((m) => JSON.parse(m.data));
    const s = eventSchemas();
    for (const env of envelopes) expect(s.SseEnvelope.safeParse(env).success).toBe(true);
    const [created, processing, success, payoutCreated, payoutFailed, refunded, refundedStatus] = envelopes;
    const p = (events[0] as Extract<DomainEvent, { type: 'payment.created' }>).payment;
    expect(created).toEqual({
      kind: 'payment.created',
      payload: { id: p.id, status: 'pending', amount: p.amount, currency: 'RUB', order_id: 'A-1' },
      at: new Date(T0).toISOString(),
    });
    expect(processing.payload).toEqual({ id: p.id, status: 'processing', previous_status: 'pending' });
    expect(success.payload).toEqual({ id: p.id, status: 'succeeded', previous_status: 'processing' });
    expect(success.at).toBe(new Date(T0 + 2).toISOString());
    const po = (events[3] as Extract<DomainEvent, { type: 'payout.created' }>).payout;
    expect(payoutCreated.payload).toEqual({
      id: po.id,
      status: 'pending',
      amount: po.amount,
      currency: 'RUB',
    });
    expect(payoutFailed.payload).toEqual({ id: po.id, status: 'failed', previous_status: 'pending' });
    const r = (events[5] as Extract<DomainEvent, { type: 'refund.created' }>).refund;
    expect(refunded.payload).toEqual({
      id: r.id,
      payment_id: r.payment_id,
      status: 'succeeded',
      amount: 700,
    });
    expect(refundedStatus.payload.status).toBe('refunded');
    expect(s.PaymentCreatedPayload.safeParse(created.payload).success).toBe(true);
    expect(s.StatusChangedPayload.safeParse(processing.payload).success).toBe(true);
    expect(s.PayoutCreatedPayload.safeParse(payoutCreated.payload).success).toBe(true);
    expect(s.RefundCreatedPayload.safeParse(refunded.payload).success).toBe(true);
  });

  test('": ping" every 25 s on the service clock, from one hub-wide timer', async () => {
    const { clock, hub } = setup();
    const a = hub.open({ keyId: 'a', merchantId: MERCHANT }).getReader();
    const b = hub.open({ keyId: 'b', merchantId: OTHER }).getReader();
    await drain(a);
    await drain(b);
    expect(clock.nextDue()).toBe(T0 + 25_000);
    await clock.advance(24_999);
    expect((await drain(a)).text).toBe('');
    await clock.advance(1);
    expect((await drain(a)).text).toBe(': ping\n\n');
    expect((await drain(b)).text).toBe(': ping\n\n');
    await clock.advance(25_000);
    await clock.advance(25_000);
    expect(parse((await drain(a)).text).comments).toEqual(['ping', 'ping']);
    expect(clock.nextDue()).toBe(T0 + 100_000);
  });

  test('heartbeats that fall due in one advance collapse into one ": ping" per stream (ten years: one)', async () => {
    const { clock, hub } = setup();
    const a = hub.open({ keyId: 'a', merchantId: MERCHANT }).getReader();
    const b = hub.open({ keyId: 'b', merchantId: OTHER }).getReader();
    await drain(a);
    await drain(b);
    const tenYears = 10 * 365 * 24 * 3600 * 1000;
    await clock.advance(tenYears);
    expect((await drain(a)).text).toBe(': ping\n\n');
    expect((await drain(b)).text).toBe(': ping\n\n');
    expect(hub.stats()).toMatchObject({ dropped: 0, bufferedBytes: 0 });
    // The grid is kept: the next beat is the first period after the advance.
    expect(clock.nextDue()).toBe(T0 + (Math.floor(tenYears / 25_000) + 1) * 25_000);
    await clock.advance(49_999);
    expect((await drain(a)).text).toBe(': ping\n\n');
  });

  test('no heartbeat timer while no stream is open', async () => {
    const { clock, hub } = setup();
    expect(clock.nextDue()).toBeUndefined();
    const stream = hub.open({ keyId: 'a', merchantId: MERCHANT });
    expect(clock.nextDue()).toBe(T0 + 25_000);
    await stream.cancel();
    expect(clock.nextDue()).toBeUndefined();
  });
});

describe('connections', () => {
  test('a second open with the same key writes ": replaced" on the first and closes it', async () => {
    const { bus, hub } = setup();
    const old = hub.open({ keyId: 'k', merchantId: MERCHANT }).getReader();
    bus.publish(allKinds()[0]!);
    const fresh = hub.open({ keyId: 'k', merchantId: MERCHANT }).getReader();
    const before = await drain(old);
    expect(before.done).toBe(true);
    const { events, comments } = parse(before.text);
    expect(comments).toEqual(['connected', 'replaced']);
    expect(events).toHaveLength(1); // what was queued before the replacement still arrives, then `: replaced`
    expect(before.text.endsWith(': replaced\n\n')).toBe(true);
    expect(hub.stats()).toMatchObject({ connections: 1, replaced: 1 });
    bus.publish(allKinds()[0]!);
    const after = await drain(fresh);
    expect(parse(after.text).comments).toEqual(['connected']);
    expect(parse(after.text).events).toHaveLength(1);
    // Another key of the same merchant is a separate connection.
    hub.open({ keyId: 'k2', merchantId: MERCHANT });
    expect(hub.stats()).toMatchObject({ connections: 2, replaced: 1 });
  });

  test('": replaced" reaches even a reader whose buffer is full, after what was buffered', async () => {
    const { bus, hub } = setup({ bufferSize: 4 });
    const old = hub.open({ keyId: 'k', merchantId: MERCHANT }).getReader();
    const p = payment({ status: 'pending' });
    for (let i = 0; i < 10; i++) bus.publish(paymentChanged(p, 'pending', 'processing', { at: T0 + i }));
    expect(hub.stats().dropped).toBe(7);
    hub.open({ keyId: 'k', merchantId: MERCHANT });
    const { text, done } = await drain(old);
    expect(done).toBe(true);
    const parsed = parse(text);
    expect(parsed.comments).toEqual(['connected', 'replaced']);
    expect(parsed.events.map((e) => Date.parse(JSON.parse(e.data).at) - T0)).toEqual([0, 1, 2]);
  });

  test("each stream gets only its merchant's events", async () => {
    const { bus, hub } = setup();
    const mine = hub.open({ keyId: 'a', merchantId: MERCHANT }).getReader();
    const theirs = hub.open({ keyId: 'b', merchantId: OTHER }).getReader();
    const events = allKinds();
    bus.publish(events[0]!);
    bus.publish({ ...events[1]!, merchantId: OTHER });
    bus.publish(events[2]!);
    expect(parse((await drain(mine)).text).events.map((e) => e.event)).toEqual([
      'payment.created',
      'payment.status_changed',
    ]);
    const other = parse((await drain(theirs)).text).events;
    expect(other).toHaveLength(1);
    expect(JSON.parse(other[0]!.data).payload.status).toBe('processing');
  });

  test('a cancelled or aborted stream is removed at once', async () => {
    const { hub } = setup();
    const a = hub.open({ keyId: 'a', merchantId: MERCHANT });
    const controller = new AbortController();
    const b = hub.open({ keyId: 'b', merchantId: MERCHANT, signal: controller.signal });
    expect(hub.stats().connections).toBe(2);
    await a.cancel();
    expect(hub.stats().connections).toBe(1);
    controller.abort();
    expect(hub.stats().connections).toBe(0);
    const r = b.getReader();
    expect(await drain(r)).toEqual({ text: '', done: true });
    // An already-aborted signal opens nothing.
    const dead = hub.open({ keyId: 'c', merchantId: MERCHANT, signal: AbortSignal.abort() });
    expect(hub.stats().connections).toBe(0);
    expect((await dead.getReader().read()).done).toBe(true);
  });

  test('close() ends every stream and stops the heartbeat; later opens end at once', async () => {
    const { bus, clock, hub } = setup();
    const r = hub.open({ keyId: 'a', merchantId: MERCHANT }).getReader();
    bus.publish(allKinds()[0]!);
    hub.close();
    const { text, done } = await drain(r);
    expect(done).toBe(true);
    expect(parse(text).events).toHaveLength(1);
    expect(clock.nextDue()).toBeUndefined();
    expect(hub.stats().connections).toBe(0);
    expect((await hub.open({ keyId: 'b', merchantId: MERCHANT }).getReader().read()).done).toBe(true);
  });
});

describe('slow readers (spec 6.2: best-effort)', () => {
  test('a reader that does not keep up loses single messages (counted); others get everything; memory stays bounded', async () => {
    const { bus, hub } = setup({ bufferSize: 16 });
    const slow = hub.open({ keyId: 'slow', merchantId: MERCHANT }).getReader();
    const fast = hub.open({ keyId: 'fast', merchantId: MERCHANT }).getReader();
    let fastText = '';
    const p = payment({ status: 'pending' });
    for (let i = 0; i < 200; i++) {
      bus.publish(paymentChanged(p, 'pending', 'processing', { at: T0 + i }));
      if (i % 10 === 9) fastText += (await drain(fast)).text;
      expect(hub.stats().bufferedBytes).toBeLessThanOrEqual(2 * 16 * 300);
    }
    fastText += (await drain(fast)).text;
    expect(parse(fastText).events).toHaveLength(200);
    // The slow reader's buffer held `: connected` and 15 messages; the other 185 were dropped.
    const stats = hub.stats();
    expect(stats.dropped).toBe(185);
    const slowText = (await drain(slow)).text;
    const got = parse(slowText).events.map((e) => Date.parse(JSON.parse(e.data).at) - T0);
    expect(got).toEqual(Array.from({ length: 15 }, (_, i) => i));
    // Once it reads again it gets new messages.
    bus.publish(paymentChanged(p, 'processing', 'succeeded', { at: T0 + 1000 }));
    expect(parse((await drain(slow)).text).events).toHaveLength(1);
    expect(hub.stats().dropped).toBe(185);
  });

  test('the byte cap bounds a slow reader too', async () => {
    const { bus, hub } = setup({ bufferSize: 10_000, bufferBytes: 4096 });
    hub.open({ keyId: 'slow', merchantId: MERCHANT });
    const p = payment({ status: 'pending' });
    for (let i = 0; i < 1000; i++) bus.publish(paymentChanged(p, 'pending', 'processing'));
    const { bufferedBytes, dropped } = hub.stats();
    expect(bufferedBytes).toBeLessThanOrEqual(4096);
    expect(bufferedBytes).toBeGreaterThan(3000);
    expect(dropped).toBeGreaterThan(950);
  });

  test('fan-out: 1,000 streams each get an event, encoded once (the same bytes)', async () => {
    const { bus, hub } = setup();
    const readers = Array.from({ length: 1000 }, (_, i) =>
      hub.open({ keyId: `k${i}`, merchantId: MERCHANT }).getReader(),
    );
    await Promise.all(readers.map((r) => r.read()));
    const pending = readers.map((r) => r.read());
    bus.publish(allKinds()[0]!);
    const chunks = await Promise.all(pending);
    const first = chunks[0]!.value!;
    for (const c of chunks) expect(c.value).toBe(first);
    expect(hub.stats()).toMatchObject({ connections: 1000, dropped: 0, bufferedBytes: 0 });
  });
});

describe('hub options', () => {
  test.each([
    ['bufferSize', 0],
    ['bufferBytes', 100],
    ['heartbeatMs', Number.NaN],
  ])('%s = %s is a RangeError naming it', (name, value) => {
    expect(() =>
      createEventStreamHub({ bus: new EventBus(), clock: new ManualClock(T0), [name]: value }),
    ).toThrow(new RegExp(`^${name} must be an integer`));
  });
});
