import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReference,
  type Reference,
  type RunningReference,
  startReference,
} from '../../../src/reference/index.js';

// Issue 32 F7: the buyer's page trusted any Host. A page whose name the attacker's DNS points at the reference
// (DNS rebinding) is same-origin to the browser, so the cross-site check lets its POST pay (303, `succeeded`).

const open: Array<Reference> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((ref) => ref.close()));
});

async function started(options: Parameters<typeof startReference>[0] = {}): Promise<RunningReference> {
  const ref = await startReference({ port: 0, ...options });
  open.push(ref);
  return ref;
}

/** A request to the running reference with the given `Host` header, as a rebound browser page would send it. */
function withHost(
  ref: RunningReference,
  method: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(ref.base_url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, host, connection: 'close' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function newPayment(ref: Reference, base = 'http://ref.test'): Promise<string> {
  const res = await ref.fetch(
    new Request(`${base}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1000 }),
    }),
  );
  const created = (await res.json()) as { payment: { id: string } };
  return created.payment.id;
}

async function statusOf(ref: Reference, id: string): Promise<string> {
  const res = await ref.fetch(
    new Request(`http://ref.test/api/v1/public/payments/${id}`, {
      headers: { authorization: `Bearer ${ref.api_key}` },
    }),
  );
  return ((await res.json()) as { status: string }).status;
}

describe('buyer page: the Host it answers to (issue 32 F7)', () => {
  it('refuses a DNS-rebound page with 421 and the error body: it neither reads nor pays', async () => {
    const ref = await started();
    const id = await newPayment(ref);
    const port = new URL(ref.base_url).port;
    const rebound = `evil.example:${port}`;
    // What the browser sends from the rebound page: its own name, and "same-origin" (it is, to the browser).
    const browser = { 'sec-fetch-site': 'same-origin', origin: `http://${rebound}` };
    const page = await withHost(ref, 'GET', `/pay/${id}`, rebound);
    const pay = await withHost(ref, 'POST', `/pay/${id}/pay`, rebound, browser);
    for (const answer of [page, pay]) {
      expect(answer.status).toBe(421);
      expect(answer.type).toContain('application/json');
      expect(JSON.parse(answer.body)).toEqual({
        error: {
          code: 'misdirected_request',
          message:
            'The buyer\'s page is not served under the host "evil.example"; if that is this reference\'s name, ' +
            'start it with --public-host (the publicHost option).',
        },
      });
    }
    expect(await statusOf(ref, id)).toBe('pending');
    // The page's own names still act: the address it listens on and localhost.
    expect((await withHost(ref, 'GET', `/pay/${id}`, `localhost:${port}`)).status).toBe(200);
    const own = await withHost(ref, 'POST', `/pay/${id}/pay`, `127.0.0.1:${port}`, {
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status).toBe(303);
    expect(await statusOf(ref, id)).toBe('succeeded');
  });

  it('serves the names of publicHost and publicUrl (a container behind a proxy), and no other', async () => {
    const ref = await started({
      publicHost: ['psp', 'PSP.internal.test.'],
      publicUrl: 'https://pay.example.test',
    });
    const id = await newPayment(ref);
    for (const host of ['psp:4010', 'psp.internal.test', 'pay.example.test', 'PSP']) {
      expect((await withHost(ref, 'GET', `/pay/${id}`, host)).status, host).toBe(200);
    }
    for (const host of ['psp.evil.example', 'example.test', 'psp.']) {
      const status = (await withHost(ref, 'GET', `/pay/${id}`, host)).status;
      expect(status, host).toBe(host === 'psp.' ? 200 : 421);
    }
  });

  it('leaves the public API and the control surface alone: only the page is checked', async () => {
    const ref = await started();
    const api = await withHost(ref, 'GET', '/api/v1/public/banks/sbp', 'evil.example', {
      authorization: `Bearer ${ref.api_key}`,
    });
    expect(api.status).toBe(200);
  });

  it("createReference checks only when given publicHost; then IP addresses pass (the demo's other-machine URL)", async () => {
    const plain = createReference();
    open.push(plain);
    const id = await newPayment(plain);
    expect((await plain.fetch(new Request(`http://evil.example/pay/${id}`))).status).toBe(200);

    const checked = createReference({ publicHost: [] });
    open.push(checked);
    const mine = await newPayment(checked);
    expect((await checked.fetch(new Request(`http://evil.example/pay/${mine}`))).status).toBe(421);
    for (const base of ['http://192.0.2.7:4010', 'http://[2001:db8::7]:4010', 'http://localhost:4010']) {
      expect((await checked.fetch(new Request(`${base}/pay/${mine}`))).status, base).toBe(200);
    }
  });

  it('refuses a publicHost that is no host name with a TypeError, before anything starts', () => {
    for (const bad of ['http://psp', 'psp:4010', 'psp/pay', '']) {
      expect(() => createReference({ publicHost: bad })).toThrow(TypeError);
    }
  });
});
