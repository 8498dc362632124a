import { afterEach, describe, expect, it } from 'vitest';
import { createReference, type Reference } from '../../src/reference/index.js';

// payment_url's origin is memoised per request URL; a different origin must still give its own URL.
const refs: Reference[] = [];
afterEach(async () => {
  await Promise.all(refs.splice(0).map((r) => r.close()));
});

async function create(ref: Reference, origin: string, contentType: string) {
  const res = await ref.fetch(
    new Request(`${origin}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': contentType },
      body: JSON.stringify({ amount: 1000 }),
    }),
  );
  return {
    status: res.status,
    body: (await res.json()) as { payment_url?: string; error?: { code: string; message: string } },
  };
}

describe('payment_url and the JSON content-type fast path', () => {
  it('follows the origin of each request, back and forth', async () => {
    const ref = createReference({ clock: 'manual' });
    refs.push(ref);
    for (const origin of ['http://a.test', 'http://a.test', 'https://b.test:8443', 'http://a.test']) {
      const { status, body } = await create(ref, origin, 'application/json');
      expect(status).toBe(201);
      expect(body.payment_url).toMatch(new RegExp(`^${origin.replace(/\./g, '\\.')}/pay/[0-9a-f-]{36}$`));
    }
  });

  it('uses publicUrl when set, whatever the request origin', async () => {
    const ref = createReference({ clock: 'manual', publicUrl: 'https://pay.example.test/' });
    refs.push(ref);
    for (const origin of ['http://a.test', 'http://b.test']) {
      const { body } = await create(ref, origin, 'application/json; charset=utf-8');
      expect(body.payment_url).toMatch(/^https:\/\/pay\.example\.test\/pay\/[0-9a-f-]{36}$/);
    }
  });

  it('still judges every other content type in full', async () => {
    const ref = createReference({ clock: 'manual' });
    refs.push(ref);
    expect((await create(ref, 'http://a.test', 'Application/JSON; Charset="UTF-8"')).status).toBe(201);
    expect((await create(ref, 'http://a.test', 'application/vnd.api+json')).status).toBe(201);
    const latin = await create(ref, 'http://a.test', 'application/json; charset=latin1');
    expect(latin.status).toBe(400);
    expect(latin.body.error?.code).toBe('bad_request');
    expect(latin.body.error?.message).toMatch(/^Unsupported media type/);
    expect((await create(ref, 'http://a.test', 'text/plain')).status).toBe(400);
  });
});
