import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createApiError,
  NotFoundError,
  PspConnectionError,
  PspValidationError,
} from '../../src/client/errors.js';
import type { StreamTap } from '../../src/client/event-stream.js';
import { type Waitable, WaitTimeoutError, waitFor } from '../../src/resources/wait-for.js';

const ID = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
const FINAL = ['succeeded', 'failed', 'expired', 'cancelled', 'refunded'];
type P = { id: string; status: string };

/** A GET that answers the statuses in turn (the last one again and again), counting reads and live signals. */
function reads(...statuses: (string | Error)[]) {
  const signals: AbortSignal[] = [];
  let n = 0;
  const get = vi.fn(async (signal: AbortSignal): Promise<P> => {
    signals.push(signal);
    const s = statuses[Math.min(n++, statuses.length - 1)]!;
    if (s instanceof Error) throw s;
    return { id: ID, status: s };
  });
  return { get, signals };
}

function waitable(get: Waitable<P>['get'], tap?: StreamTap): Waitable<P> {
  return { get, kinds: ['payment.status_changed', 'payment.created'], id: ID, final: FINAL, tap };
}

/** A signal whose listeners are counted. */
function countedSignal() {
  const ac = new AbortController();
  let listeners = 0;
  const add = ac.signal.addEventListener.bind(ac.signal);
  const remove = ac.signal.removeEventListener.bind(ac.signal);
  ac.signal.addEventListener = ((...a: Parameters<typeof add>) => {
    listeners++;
    add(...a);
  }) as typeof add;
  ac.signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
    listeners--;
    remove(...a);
  }) as typeof remove;
  return { ac, listeners: () => listeners };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitFor', () => {
  it('resolves at once, with no timer left, when the status is already final', async () => {
    const { get } = reads('succeeded');
    await expect(waitFor(waitable(get))).resolves.toEqual({ id: ID, status: 'succeeded' });
    expect(get).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('polls with doubling delays from pollInterval until a status of until', async () => {
    const { get } = reads('pending', 'pending', 'processing', 'succeeded');
    const p = waitFor(waitable(get), { pollInterval: 100 });
    await vi.advanceTimersByTimeAsync(0);
    expect(get).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(get).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(get).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(get).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(get).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(400);
    await expect(p).resolves.toEqual({ id: ID, status: 'succeeded' });
    expect(get).toHaveBeenCalledTimes(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits for the statuses of until only', async () => {
    const { get } = reads('pending', 'processing', 'succeeded');
    const p = waitFor(waitable(get), { until: ['processing'], pollInterval: 10 });
    await vi.advanceTimersByTimeAsync(10);
    await expect(p).resolves.toEqual({ id: ID, status: 'processing' });
  });

  it('rejects with WaitTimeoutError carrying the last object, and leaves no timer or listener', async () => {
    const { get } = reads('pending');
    const { ac, listeners } = countedSignal();
    const p = waitFor(waitable(get), { timeout: 5_000, pollInterval: 1_000, signal: ac.signal });
    const caught = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const err = await caught;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError<P>).last).toEqual({ id: ID, status: 'pending' });
    expect((err as Error).message).toContain('within 5000 ms');
    // 0, 1000, 3000 (then 7000 is past the deadline)
    expect(get).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners()).toBe(0);
  });

  it('rejects with the signal reason on abort, aborts the read under way, and leaves nothing behind', async () => {
    let readSignal: AbortSignal | undefined;
    const get = (signal: AbortSignal) => {
      readSignal = signal;
      return new Promise<P>((_r, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    };
    const { ac, listeners } = countedSignal();
    const p = waitFor(waitable(get), { signal: ac.signal });
    const reason = new Error('shutting down');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(readSignal?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners()).toBe(0);
    // Already aborted: rejects before reading.
    const { get: g2 } = reads('pending');
    await expect(waitFor(waitable(g2), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(g2).not.toHaveBeenCalled();
  });

  it('keeps waiting through a transient failure and rejects on a lasting one', async () => {
    const { get } = reads(new PspConnectionError('no answer'), 'succeeded');
    const p = waitFor(waitable(get), { pollInterval: 10 });
    await vi.advanceTimersByTimeAsync(10);
    await expect(p).resolves.toEqual({ id: ID, status: 'succeeded' });
    const notFound = new NotFoundError({ status: 404, headers: new Headers(), attempts: 1 } as never);
    const { get: g2 } = reads(notFound);
    await expect(waitFor(waitable(g2))).rejects.toBe(notFound);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits through a 503 but rejects at once on a 501, which no later read can heal', async () => {
    const answer = (status: number) =>
      createApiError({
        status,
        body: undefined,
        headers: new Headers(),
        attempts: 1,
        idempotencyKey: undefined,
      });
    const { get } = reads(answer(503), 'succeeded');
    const p = waitFor(waitable(get), { pollInterval: 10 });
    await vi.advanceTimersByTimeAsync(10);
    await expect(p).resolves.toEqual({ id: ID, status: 'succeeded' });
    const notImplemented = answer(501);
    const { get: g2 } = reads(notImplemented, 'succeeded');
    await expect(waitFor(waitable(g2), { pollInterval: 10 })).rejects.toBe(notImplemented);
    expect(g2).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wakes on an event of the open stream about this object, and reads every 30 s as a safety net', async () => {
    const tap: StreamTap = { live: 1, listeners: new Set() };
    const { get } = reads('pending', 'pending', 'succeeded');
    const p = waitFor(waitable(get, tap), { pollInterval: 10 });
    await vi.advanceTimersByTimeAsync(0);
    expect(tap.listeners.size).toBe(1);
    // While the stream is live, no fast polling.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(get).toHaveBeenCalledTimes(1);
    const emit = (kind: string, payload: Record<string, unknown>) => {
      for (const l of tap.listeners) l({ kind, payload, at: '2026-05-06T10:00:00Z' } as never);
    };
    emit('payment.status_changed', { id: 'another', status: 'succeeded' });
    emit('payment.status_changed', { id: ID, status: 'processing' });
    emit('payout.status_changed', { id: ID, status: 'succeeded' });
    await vi.advanceTimersByTimeAsync(0);
    expect(get).toHaveBeenCalledTimes(1);
    // The safety read at 30 s (still pending), then the event that matters.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(get).toHaveBeenCalledTimes(2);
    emit('payment.status_changed', { id: ID, status: 'succeeded' });
    await expect(p).resolves.toEqual({ id: ID, status: 'succeeded' });
    expect(get).toHaveBeenCalledTimes(3);
    expect(tap.listeners.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reads again when the stream breaks, then polls while no stream is live', async () => {
    const tap: StreamTap = { live: 1, listeners: new Set() };
    const { get } = reads('pending', 'pending', 'pending', 'failed');
    const p = waitFor(waitable(get, tap), { pollInterval: 100 });
    await vi.advanceTimersByTimeAsync(0);
    tap.live = 0;
    for (const l of tap.listeners) l(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(get).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(200 + 400);
    await expect(p).resolves.toEqual({ id: ID, status: 'failed' });
  });

  it('refuses bad options before reading', async () => {
    const { get } = reads('pending');
    for (const bad of [{ timeout: 0 }, { pollInterval: -1 }, { until: [] }, { until: 'succeeded' }])
      await expect(waitFor(waitable(get), bad as never)).rejects.toBeInstanceOf(PspValidationError);
    expect(get).not.toHaveBeenCalled();
  });
});
