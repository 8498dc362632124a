import type { MiddlewareHandler } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode } from '../../src/reference/adapters/node-http.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { createCabinet, createSimulator, webhookChaosApi } from '../../src/reference/control.js';
import { Domain } from '../../src/reference/domain/core.js';
import { createApp } from '../../src/reference/http/app.js';
import type { AppEnv } from '../../src/reference/http/context.js';
import { RequestJournal } from '../../src/reference/journal/index.js';
import { createEventStreamHub } from '../../src/reference/sse/index.js';
import { createState } from '../../src/reference/state/index.js';
import { createWebhookService } from '../../src/reference/webhooks/index.js';
import { expectError, setup } from './helpers.js';
import { formsOnly, Redactor } from '../../src/internal/redact.js';

// Every request goes through the one hono app: its router, its middleware and its error handler. No route, the
// busiest two included, answers around them.

let env: ReturnType<typeof setup>;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await env?.ref.close();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The reference's app with `middleware` in front, over the same deps createReference builds. */
function appWith(middleware: MiddlewareHandler<AppEnv>[], journal?: RequestJournal) {
  const clock = new ManualClock(Date.parse('2026-05-06T10:00:00.000Z'));
  const domain = new Domain({ clock });
  const webhooks = createWebhookService({ bus: domain.bus, clock });
  const hub = createEventStreamHub({ bus: domain.bus, clock });
  cleanups.push(async () => {
    domain.close();
    hub.close();
    await webhooks.close();
    clock.dispose();
  });
  const cabinet = createCabinet(domain, webhooks);
  const first = cabinet.createMerchant({ name: 'Shop' });
  const adminToken = `adm_${'a'.repeat(40)}`;
  const simulator = {
    ...createSimulator(domain),
    ...createState({ domain, webhooks, hub, adminToken, facts: first }),
    ...webhookChaosApi(webhooks.chaos),
  };
  const deps = {
    domain,
    cabinet,
    simulator,
    hub,
    webhookOwners: webhooks,
    adminToken,
    redact: new Redactor([first.api_key, first.signing_secret, adminToken]),
    trustProxy: false,
    ...(journal ? { journal } : {}),
  };
  return { app: createApp(deps, { middleware }), key: first.api_key, adminToken };
}

describe('middleware added to the app', () => {
  it('runs for POST /payments and GET /payments/{id}, in-process and over node:http, and sees their answers', async () => {
    const seen: string[] = [];
    const { app, key } = appWith([
      async (c, next) => {
        seen.push(`${c.req.method} ${c.req.path}`);
        await next();
        c.res.headers.set('x-middleware', 'ran');
      },
    ]);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await app.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers,
        body: '{"amount":100}',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('x-middleware')).toBe('ran');
    const { payment } = (await created.json()) as { payment: { id: string } };
    const read = await app.fetch(
      new Request(`http://ref.test/api/v1/public/payments/${payment.id}`, { headers }),
    );
    expect(read.status).toBe(200);
    expect(read.headers.get('x-middleware')).toBe('ran');

    const server = await listenNode((request, info) => app.fetch(request, info));
    cleanups.push(() => server.close());
    const overHttp = await fetch(`${server.url}/api/v1/public/payments`, {
      method: 'POST',
      headers,
      body: '{"amount":200}',
    });
    expect(overHttp.status).toBe(201);
    expect(overHttp.headers.get('x-middleware')).toBe('ran');
    const readOverHttp = await fetch(`${server.url}/api/v1/public/payments/${payment.id}`, { headers });
    expect(readOverHttp.headers.get('x-middleware')).toBe('ran');
    expect(seen).toEqual([
      'POST /api/v1/public/payments',
      `GET /api/v1/public/payments/${payment.id}`,
      'POST /api/v1/public/payments',
      `GET /api/v1/public/payments/${payment.id}`,
    ]);
  });

  it('runs for every kind of answer: other routes, refusals, 404, 405, the control surface, the buyer page', async () => {
    let runs = 0;
    const { app, key, adminToken } = appWith([
      async (_c, next) => {
        runs++;
        await next();
      },
    ]);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const requests = [
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers: bearer('sk_test_nope'),
      }),
      new Request('http://ref.test/api/v1/public/payments/not-a-uuid', { headers: bearer(key) }),
      new Request('http://ref.test/api/v1/public/payments', { method: 'PUT', headers: bearer(key) }),
      new Request('http://ref.test/api/v1/public/banks/sbp', { headers: bearer(key) }),
      new Request('http://ref.test/_simulator/clock', { headers: bearer(adminToken) }),
      new Request('http://ref.test/pay/00000000-0000-4000-8000-000000000000'),
      new Request('http://ref.test/nowhere'),
    ];
    for (const request of requests) expect((await app.fetch(request)).status).toBeLessThan(500);
    expect(runs).toBe(requests.length);
  });

  it('can answer in place of a route (as fault injection will): the route then does nothing', async () => {
    const { app, key } = appWith([
      async (c, next) => {
        if (c.req.header('x-fault') === 'reset')
          return c.json({ error: { code: 'injected', message: 'x' } }, 503);
        await next();
      },
    ]);
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-fault': 'reset',
    };
    const res = await app.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers,
        body: '{"amount":100}',
      }),
    );
    expect(res.status).toBe(503);
  });
});

describe('the request journal on the one path', () => {
  it("sits before the app's other middleware: an answer made in place of a route is journaled, and only public requests are", async () => {
    const journal = new RequestJournal(new ManualClock(0), formsOnly);
    const { app, key, adminToken } = appWith(
      [
        async (c, next) => {
          if (c.req.header('x-fault')) return c.json({ error: { code: 'injected', message: 'x' } }, 503);
          await next();
        },
      ],
      journal,
    );
    const bearer = (token: string, more: Record<string, string> = {}) => ({
      authorization: `Bearer ${token}`,
      ...more,
    });
    await app.fetch(
      new Request('http://ref.test/api/v1/public/banks/sbp', { headers: bearer(key, { 'x-fault': '1' }) }),
    );
    await app.fetch(
      new Request('http://ref.test/api/v1/public/banks/sbp', { headers: bearer('sk_test_nope') }),
    );
    await app.fetch(new Request('http://ref.test/api/v1/public/banks/sbp', { headers: bearer(key) }));
    await app.fetch(new Request('http://ref.test/_simulator/clock', { headers: bearer(adminToken) }));
    await app.fetch(new Request('http://ref.test/nowhere'));
    expect(journal.list().items.map((e) => [e.status, e.error_code])).toEqual([
      [503, 'injected'],
      [401, 'unauthorized'],
      [200, null],
    ]);
  });
});

describe('the routes of POST /payments and GET /payments/{id}', () => {
  it('answers a percent-encoded path as the plain one', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    const plain = await env.call(`/payments/${payment.id}`);
    const encoded = await env.call(
      `/payments/%${payment.id.charCodeAt(0).toString(16)}${payment.id.slice(1)}`,
    );
    expect(plain.status).toBe(200);
    expect(encoded.status).toBe(200);
    expect(encoded.text).toBe(plain.text);
    const withQuery = await env.call(`/payments/${payment.id}?expand=x#frag`);
    expect(withQuery.text).toBe(plain.text);
  });

  it('answers other paths and methods as their own: trailing slash, deeper path, HEAD, 405', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    const slash = await env.call(`/payments/${payment.id}/`);
    expect(slash.status).toBe(404);
    expect((await env.call('/payments/', { body: { amount: 100 } })).status).not.toBe(201);
    const head = await env.ref.fetch(
      new Request(`http://ref.test/api/v1/public/payments/${payment.id}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${env.ref.api_key}` },
      }),
    );
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expectError(await env.call(`/payments/${payment.id}`, { method: 'PUT' }), 405, 'method_not_allowed');
    expectError(await env.call('/payments', { method: 'GET' }), 405, 'method_not_allowed');
  });

  it('keeps section 5 and the errors of the routes: 401, 404 for a bad id, 400 for a bad body, replay', async () => {
    env = setup();
    expectError(await env.call('/payments', { body: { amount: 100 }, key: null }), 401);
    expectError(await env.call('/payments/not-a-uuid'), 404, 'not_found');
    expectError(await env.call('/payments', { body: { amount: 0 } }), 400, 'bad_request');
    expectError(
      await env.call('/payments', { raw: '{', headers: { 'content-type': 'application/json' } }),
      400,
    );
    const headers = { 'idempotency-key': 'k-1' };
    const first = await env.call('/payments', { body: { amount: 100 }, headers });
    const again = await env.call('/payments', { body: { amount: 100 }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment.id).toBe(first.body.payment.id);
    expect(again.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
