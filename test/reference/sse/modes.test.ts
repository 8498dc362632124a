import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { createReference, type Reference } from '../../../src/reference/service.js';
import { until } from '../../support/sse-server.js';
import { feed } from './helpers.js';

// A test key's stream sees test objects' events only, and a live key's live ones: the stream keeps the same
// visibility as GET, where a key sees only its own mode's objects.

let ref: Reference | undefined;
afterEach(async () => {
  await ref?.close();
});

const BASE = 'http://ref.test/api/v1/public';

function stream(r: Reference, key: string) {
  const controller = new AbortController();
  const ids: string[] = [];
  const parser = createParser({
    onEvent: (e) => {
      if (e.event === 'payment.created')
        ids.push((JSON.parse(e.data) as { payload: { id: string } }).payload.id);
    },
  });
  const done = (async () => {
    const res = await r.fetch(
      new Request(`${BASE}/events`, {
        headers: { authorization: `Bearer ${key}` },
        signal: controller.signal,
      }),
    );
    expect(res.status).toBe(200);
    await feed(res.body!.getReader(), parser);
  })();
  return { ids, stop: () => controller.abort(), done };
}

async function create(r: Reference, key: string): Promise<string> {
  const res = await r.fetch(
    new Request(`${BASE}/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1_000 }),
    }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { payment: { id: string } }).payment.id;
}

describe('SSE visibility by key mode', () => {
  it('a test key sees only test events and a live key only live ones', async () => {
    ref = createReference({ clock: 'manual' });
    const { merchant_id, terminal_id, api_key: testKey } = ref;
    await ref.control.updateMerchant(merchant_id, { live_enabled: true });
    const liveKey = (await ref.control.createApiKey(terminal_id, { mode: 'live' })).api_key;

    const testStream = stream(ref, testKey);
    const liveStream = stream(ref, liveKey);
    const testId = await create(ref, testKey);
    const liveId = await create(ref, liveKey);
    await until(() => expect(testStream.ids.length + liveStream.ids.length).toBe(2));
    testStream.stop();
    liveStream.stop();
    expect(testStream.ids).toEqual([testId]);
    expect(liveStream.ids).toEqual([liveId]);
  });
});
