import { describe, expect, it, vi } from 'vitest';
import { createWebhookHandler, signWebhook, type WebhookEvent } from '../../src/webhooks/index.js';
import { envelope, SECRET } from './helpers.js';

const post = (body: string, headers: Record<string, string>) =>
  new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });

const signed = (event = 'payment.succeeded', data?: object) => {
  const { body, headers } = signWebhook(envelope(event, data), SECRET);
  return post(body, headers);
};

describe('createWebhookHandler', () => {
  it('runs the handler for the event name with the typed event and answers 200', async () => {
    const seen: number[] = [];
    const handle = createWebhookHandler({
      secret: SECRET,
      on: {
        'payment.succeeded': async (event) => {
          await Promise.resolve();
          seen.push(event.data.amount);
        },
      },
    });
    const res = await handle(signed());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    expect(seen).toEqual([150000]);
  });

  it('acknowledges events without a handler with 200, and routes them to fallback', async () => {
    const fallback = vi.fn();
    expect((await createWebhookHandler({ secret: SECRET })(signed('payout.failed'))).status).toBe(200);
    const res = await createWebhookHandler({ secret: SECRET, on: {}, fallback })(
      signed('payment.disputed', {}),
    );
    expect(res.status).toBe(200);
    expect((fallback.mock.calls[0]![0] as WebhookEvent).event).toBe('payment.disputed');
  });

  it('dispatches on own handler keys only (an event named toString reaches fallback)', async () => {
    const fallback = vi.fn();
    const res = await createWebhookHandler({ secret: SECRET, fallback })(signed('toString', {}));
    expect(res.status).toBe(200);
    expect(fallback).toHaveBeenCalledOnce();
    expect((await createWebhookHandler({ secret: SECRET })(signed('__proto__', {}))).status).toBe(200);
  });

  it('answers 400 with the reason on a bad signature and never runs the handler', async () => {
    const fn = vi.fn();
    const handle = createWebhookHandler({ secret: SECRET, on: { 'payment.succeeded': fn } });
    const { body, headers } = signWebhook(envelope(), 'whs_someone_else');
    const res = await handle(post(body, headers));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'no_matching_signature' });
    const unsigned = await handle(post(body, { 'content-type': 'application/json' }));
    expect(await unsigned.json()).toEqual({ error: 'missing_signature' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('honours requireV2 and tolerance', async () => {
    const v1 = signWebhook(envelope(), SECRET, { version: 'v1' });
    const res = await createWebhookHandler({ secret: SECRET, requireV2: true })(post(v1.body, v1.headers));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'v1_not_allowed' });
    const old = signWebhook(envelope(), SECRET, { timestamp: Math.floor(Date.now() / 1000) - 120 });
    const strict = await createWebhookHandler({ secret: SECRET, tolerance: 60 })(post(old.body, old.headers));
    expect(await strict.json()).toEqual({ error: 'timestamp_outside_tolerance' });
  });

  it('answers 500 when a handler throws, so the service retries, and reports the error', async () => {
    const onError = vi.fn();
    const boom = new Error('db down');
    const handle = createWebhookHandler({
      secret: SECRET,
      on: {
        'payment.succeeded': () => {
          throw boom;
        },
      },
      onError,
    });
    const res = await handle(signed());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'handler_failed' });
    expect(onError).toHaveBeenCalledWith(boom, expect.objectContaining({ id: 'evt_01JD3Z8K9QW' }));
  });

  it("logs a throwing handler to console.error by default: the event's id and name and the error, not its data", async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handle = createWebhookHandler({
      secret: SECRET,
      on: { 'payment.succeeded': () => Promise.reject(new Error('x')) },
    });
    expect((await handle(signed())).status).toBe(500);
    expect(spy).toHaveBeenCalledOnce();
    expect(spy.mock.calls[0]![0]).toBe('psp-sdk: webhook evt_01JD3Z8K9QW (payment.succeeded) failed:');
    expect(spy.mock.calls[0]![1]).toBeInstanceOf(Error);
    expect(spy.mock.calls[0]).toHaveLength(2);
    spy.mockRestore();
  });

  it('answers 500 for a misconfigured secret (the receiver must be fixed, then the retry succeeds)', async () => {
    const res = await createWebhookHandler({ secret: '' })(signed());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'missing_secret' });
    const thm = await createWebhookHandler({ secret: 'thm_wrong_kind' })(signed());
    expect(await thm.json()).toEqual({ error: 'invalid_secret' });
  });

  it('answers 405 to other methods', async () => {
    const res = await createWebhookHandler({ secret: SECRET })(new Request('http://127.0.0.1/webhooks'));
    expect(res.status).toBe(405);
  });
});
