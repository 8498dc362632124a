// Issue 41 item 4: a merchant admin token drives the control surface for its own merchant alone. Every /_cabinet
// and /_simulator route is tried from a table with merchant B's token on merchant A's objects: an object route
// answers 404 and A's object is unchanged, a route of the whole reference answers 403 `forbidden`, a shared route
// (faults, chaos, journal, readiness) shows and changes B's part alone. The table must name every route.
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/reference/http/app.js';
import type { AppDeps } from '../../src/reference/http/context.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { Domain } from '../../src/reference/domain/core.js';
import type { AccessCheck } from '../../src/reference/http/scope.js';
import { type Call, expectError, payoutInput, setup } from './helpers.js';

type Env = ReturnType<typeof setup>;
let env: Env | undefined;
afterEach(() => env?.ref.close());

/** Event-loop turns (no wall-clock timer) until `done` holds; the test's timeout is the only bound. */
async function turnsUntil(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setImmediate(resolve));
}

/** The webhooks each shop was sent, by the `shop_id` of the event's data. */
function lab() {
  const sent: Array<{ shop: string; id: string }> = [];
  env = setup({
    webhookFetch: async (_url, init) => {
      const body = JSON.parse(new TextDecoder().decode(init?.body as Uint8Array)) as {
        id: string;
        data: { shop_id: string };
      };
      sent.push({ shop: body.data.shop_id, id: body.id });
      return new Response('{}', { status: 200 });
    },
  });
  return { env, sent };
}

interface Merchant {
  merchant_id: string;
  shop_id: string;
  terminal_id: string;
  api_key: string;
  merchant_admin_token: string;
}

/** A merchant made by the cabinet, with an endpoint, a payment that succeeded (an event) and a payout. */
async function merchantWithObjects(e: Env) {
  const m = (await e.admin('/_cabinet/merchants', { body: { name: 'Worker' } })).body as Merchant;
  const endpoint = (
    await e.admin(`/_cabinet/shops/${m.shop_id}/webhook-endpoints`, {
      body: { url: 'https://shop.example/hooks' },
    })
  ).body as { id: string };
  const { payment } = await e.createPayment({ amount: 1000 }, { key: m.api_key });
  await e.ref.control.succeedPayment(payment.id);
  await e.ref.control.processPayment((await e.createPayment({ amount: 500 }, { key: m.api_key })).payment.id);
  const payout = (await e.call('/payouts', { key: m.api_key, body: payoutInput() })).body.payout as {
    id: string;
  };
  const keyId = (await e.ref.control.listApiKeys(m.terminal_id)).items[0]!.id;
  const deliveries = async () => (await e.ref.control.listDeliveries(endpoint.id)).items;
  // Delivery is asynchronous: event-loop turns until the log has the attempt, bounded by the test's timeout alone.
  await turnsUntil(async () => (await deliveries()).length > 0);
  const eventId = (await deliveries())[0]!.event_id;
  return {
    ...m,
    endpoint_id: endpoint.id,
    payment_id: payment.id as string,
    payout_id: payout.id,
    keyId,
    eventId,
  };
}

type A = Awaited<ReturnType<typeof merchantWithObjects>> & { ruleId: string };
/** How B's token is tried on a route: the path and options with A's object. */
type Try = (a: A) => { path: string; method: string; body?: unknown };

const NOT_FOUND = 'another merchant: 404';
const FORBIDDEN = 'the whole reference: 403';
const OWN = "its own part: 2xx, only B's";

/** Every control route, keyed as hono lists it, with what B's token meets. */
const ROUTES: Record<string, [expect: string, Try]> = {
  'POST /_cabinet/merchants': [FORBIDDEN, () => ({ method: 'POST', path: '/_cabinet/merchants', body: {} })],
  'GET /_cabinet/merchants/:id': [
    NOT_FOUND,
    (a) => ({ method: 'GET', path: `/_cabinet/merchants/${a.merchant_id}` }),
  ],
  'PATCH /_cabinet/merchants/:id': [
    NOT_FOUND,
    (a) => ({
      method: 'PATCH',
      path: `/_cabinet/merchants/${a.merchant_id}`,
      body: { block: 'aml_blocked' },
    }),
  ],
  'GET /_cabinet/terminals/:id': [
    NOT_FOUND,
    (a) => ({ method: 'GET', path: `/_cabinet/terminals/${a.terminal_id}` }),
  ],
  'PATCH /_cabinet/terminals/:id': [
    NOT_FOUND,
    (a) => ({
      method: 'PATCH',
      path: `/_cabinet/terminals/${a.terminal_id}`,
      body: { require_signature: true },
    }),
  ],
  'GET /_cabinet/terminals/:id/api-keys': [
    NOT_FOUND,
    (a) => ({ method: 'GET', path: `/_cabinet/terminals/${a.terminal_id}/api-keys` }),
  ],
  'POST /_cabinet/terminals/:id/api-keys': [
    NOT_FOUND,
    (a) => ({
      method: 'POST',
      path: `/_cabinet/terminals/${a.terminal_id}/api-keys`,
      body: { mode: 'test' },
    }),
  ],
  'DELETE /_cabinet/api-keys/:id': [
    NOT_FOUND,
    (a) => ({ method: 'DELETE', path: `/_cabinet/api-keys/${a.keyId}` }),
  ],
  'POST /_cabinet/shops/:id/webhook-endpoints': [
    NOT_FOUND,
    (a) => ({
      method: 'POST',
      path: `/_cabinet/shops/${a.shop_id}/webhook-endpoints`,
      body: { url: 'https://attacker.example/hooks' },
    }),
  ],
  'POST /_cabinet/webhook-endpoints/:id/rotate-secret': [
    NOT_FOUND,
    (a) => ({ method: 'POST', path: `/_cabinet/webhook-endpoints/${a.endpoint_id}/rotate-secret` }),
  ],
  'DELETE /_cabinet/webhook-endpoints/:id': [
    NOT_FOUND,
    (a) => ({ method: 'DELETE', path: `/_cabinet/webhook-endpoints/${a.endpoint_id}` }),
  ],
  'GET /_cabinet/webhook-endpoints/:id/deliveries': [
    NOT_FOUND,
    (a) => ({ method: 'GET', path: `/_cabinet/webhook-endpoints/${a.endpoint_id}/deliveries` }),
  ],
  'POST /_cabinet/events/:id/resend': [
    NOT_FOUND,
    (a) => ({ method: 'POST', path: `/_cabinet/events/${a.eventId}/resend` }),
  ],
  ...Object.fromEntries(
    (['succeed', 'fail', 'expire', 'process'] as const).map((action) => [
      `POST /_simulator/payments/:id/${action}`,
      [NOT_FOUND, (a: A) => ({ method: 'POST', path: `/_simulator/payments/${a.payment_id}/${action}` })],
    ]),
  ),
  ...Object.fromEntries(
    (['succeed', 'fail'] as const).map((action) => [
      `POST /_simulator/payouts/:id/${action}`,
      [NOT_FOUND, (a: A) => ({ method: 'POST', path: `/_simulator/payouts/${a.payout_id}/${action}` })],
    ]),
  ),
  'POST /_simulator/clock/advance': [
    FORBIDDEN,
    () => ({ method: 'POST', path: '/_simulator/clock/advance', body: { seconds: 60 } }),
  ],
  'GET /_simulator/clock': [FORBIDDEN, () => ({ method: 'GET', path: '/_simulator/clock' })],
  'GET /_simulator/snapshot': [FORBIDDEN, () => ({ method: 'GET', path: '/_simulator/snapshot' })],
  'POST /_simulator/restore': [FORBIDDEN, () => ({ method: 'POST', path: '/_simulator/restore', body: {} })],
  'GET /_simulator/health': [
    'the same for everyone: 200',
    () => ({ method: 'GET', path: '/_simulator/health' }),
  ],
  'PUT /_simulator/webhook-chaos': [
    OWN,
    () => ({ method: 'PUT', path: '/_simulator/webhook-chaos', body: { duplicate: 1 } }),
  ],
  'GET /_simulator/webhook-chaos': [OWN, () => ({ method: 'GET', path: '/_simulator/webhook-chaos' })],
  'DELETE /_simulator/webhook-chaos': [OWN, () => ({ method: 'DELETE', path: '/_simulator/webhook-chaos' })],
  'GET /_simulator/readiness': [OWN, () => ({ method: 'GET', path: '/_simulator/readiness' })],
  'POST /_simulator/faults': [
    OWN,
    () => ({ method: 'POST', path: '/_simulator/faults', body: { kind: 'error' } }),
  ],
  'GET /_simulator/faults': [OWN, () => ({ method: 'GET', path: '/_simulator/faults' })],
  'DELETE /_simulator/faults/:id': [
    NOT_FOUND,
    (a) => ({ method: 'DELETE', path: `/_simulator/faults/${a.ruleId}` }),
  ],
  'DELETE /_simulator/faults': [OWN, () => ({ method: 'DELETE', path: '/_simulator/faults' })],
  'GET /_simulator/requests': [OWN, () => ({ method: 'GET', path: '/_simulator/requests' })],
  'DELETE /_simulator/requests': [OWN, () => ({ method: 'DELETE', path: '/_simulator/requests' })],
};

/** The control routes of the app as hono lists them, and whether each has an access check among its handlers. */
function controlRoutes(): Map<string, boolean> {
  const deps = {
    domain: new Domain({ clock: new ManualClock(0) }),
    cabinet: {},
    simulator: {},
    faults: {},
    journal: {},
    readiness: () => ({}),
    adminToken: 'x',
    trustProxy: false,
  } as unknown as AppDeps;
  const routes = new Map<string, boolean>();
  for (const r of createApp(deps).routes) {
    if (r.method === 'ALL' || !/^\/_(cabinet|simulator)\//.test(r.path)) continue;
    const key = `${r.method} ${r.path}`;
    routes.set(key, routes.get(key) === true || 'access' in (r.handler as Partial<AccessCheck>));
  }
  return routes;
}

/** What A owns, read with the admin token: unchanged by anything B's token tried. */
async function stateOfA(e: Env, a: A) {
  const get = async (path: string) => (await e.admin(path)).body;
  return {
    merchant: await get(`/_cabinet/merchants/${a.merchant_id}`),
    terminal: await get(`/_cabinet/terminals/${a.terminal_id}`),
    keys: await get(`/_cabinet/terminals/${a.terminal_id}/api-keys`),
    deliveries: (
      (await get(`/_cabinet/webhook-endpoints/${a.endpoint_id}/deliveries`)) as { items: unknown[] }
    ).items.length,
    // From the snapshot, not the public API: a read with A's key would add to A's journal.
    ...(await e.admin('/_simulator/snapshot').then(({ body }) => ({
      payment: body.payments.find((p: { id: string }) => p.id === a.payment_id),
      payout: body.payouts.find((p: { id: string }) => p.id === a.payout_id),
    }))),
    clock: await get('/_simulator/clock'),
    faults: (
      (await get('/_simulator/faults')) as { items: Array<{ match: { merchant_id?: string } }> }
    ).items.filter((r) => r.match.merchant_id === a.merchant_id),
    chaos: await e.ref.control.getWebhookChaos(a.merchant_id),
    everyone: await get('/_simulator/webhook-chaos'),
    requests: ((await get(`/_simulator/requests?merchant=${a.merchant_id}`)) as { items: unknown[] }).items
      .length,
  };
}

describe('a merchant admin token (POST /_cabinet/merchants answers it)', () => {
  it('is on every control route, each with its access check, and the table names every route', () => {
    const routes = controlRoutes();
    expect([...routes.keys()].sort()).toEqual(Object.keys(ROUTES).sort());
    expect([...routes].filter(([, checked]) => !checked).map(([key]) => key)).toEqual([]);
  });

  it.each(Object.keys(ROUTES))(
    "%s with B's token on A's objects: as its row says, A unchanged",
    async (key) => {
      const [want, make] = ROUTES[key]!;
      const { env: e } = lab();
      const objects = await merchantWithObjects(e);
      const b = await merchantWithObjects(e);
      // A's share of the shared things: a fault rule and chaos set for A, A's journal entries.
      const rule = await e.admin('/_simulator/faults', {
        body: { kind: 'latency', delay_ms: 1, match: { merchant_id: objects.merchant_id } },
      });
      await e.ref.control.setWebhookChaos({ seed: 3, reorder: 0.5 }, objects.merchant_id);
      const a = { ...objects, ruleId: rule.body.id as string };
      const before = await stateOfA(e, a);
      const { path, method, body } = make(a);
      const r: Call = await e.call(path, {
        key: b.merchant_admin_token,
        method,
        ...(body === undefined ? {} : { body }),
      });
      if (want === NOT_FOUND) expectError(r, 404, 'not_found');
      else if (want === FORBIDDEN) expectError(r, 403, 'forbidden');
      else expect(r.status, r.text).toBeLessThan(300);
      if (want === OWN && method === 'GET') expect(r.text).not.toContain(a.merchant_id);
      expect(await stateOfA(e, a)).toEqual(before);
      // The same route with A's own token reaches A's object (or A's part): the 404 was about the owner, not the id.
      if (want === NOT_FOUND && method === 'GET') {
        expect((await e.call(path, { key: a.merchant_admin_token, method })).status).toBe(200);
      }
    },
  );

  it("drives its own merchant's objects, and is refused on the public API", async () => {
    const { env: e } = lab();
    const b = await merchantWithObjects(e);
    const own = (path: string, o: Parameters<Env['call']>[1] = {}) =>
      e.call(path, { key: b.merchant_admin_token, ...o });
    expect((await own(`/_cabinet/merchants/${b.merchant_id}`)).body.merchant_id).toBe(b.merchant_id);
    const { payment } = await e.createPayment({ amount: 700 }, { key: b.api_key });
    expect((await own(`/_simulator/payments/${payment.id}/succeed`, { method: 'POST' })).body.status).toBe(
      'succeeded',
    );
    expect((await own(`/_simulator/payouts/${b.payout_id}/succeed`, { method: 'POST' })).status).toBe(200);
    expect(
      (await own(`/_cabinet/terminals/${b.terminal_id}/api-keys`, { body: { mode: 'test' } })).status,
    ).toBe(201);
    expect((await own(`/_cabinet/events/${b.eventId}/resend`, { method: 'POST' })).status).toBe(202);
    const readiness = await own('/_simulator/readiness');
    expect(readiness.status).toBe(200);
    expect(readiness.body.score).toBeTypeOf('number');
    expectError(await own(`/_simulator/readiness?merchant=${e.ref.merchant_id}`), 404, 'not_found');
    // Not an API key: the public API refuses it and says what it is for.
    const r = await e.call('/payments', { key: b.merchant_admin_token, body: { amount: 100 } });
    expectError(r, 401, 'unauthorized');
    expect(r.body.error.message).toContain('/_cabinet');
    expect(r.text).not.toContain(b.merchant_admin_token);
  });

  it('puts fault rules and chaos in force for its merchant alone', async () => {
    const { env: e, sent } = lab();
    const a = await merchantWithObjects(e);
    const b = await merchantWithObjects(e);
    const asB = { key: b.merchant_admin_token };
    const rule = await e.call('/_simulator/faults', { ...asB, body: { kind: 'error', status: 503 } });
    expect(rule.status).toBe(201);
    expect(rule.body.match.merchant_id).toBe(b.merchant_id);
    expectError(
      await e.call('/_simulator/faults', {
        ...asB,
        body: { kind: 'error', match: { merchant_id: a.merchant_id } },
      }),
      400,
      'bad_request',
    );
    expectError(
      await e.call('/_simulator/faults', {
        ...asB,
        body: { kind: 'error', match: { unauthenticated: true } },
      }),
      400,
      'bad_request',
    );
    expect((await e.call('/banks/sbp', { key: b.api_key })).status).toBe(503);
    expect((await e.call('/banks/sbp', { key: a.api_key })).status).toBe(200);
    expect((await e.call('/_simulator/faults', { ...asB, method: 'DELETE' })).status).toBe(204);
    expect((await e.call('/banks/sbp', { key: b.api_key })).status).toBe(200);

    expect(
      (await e.call('/_simulator/webhook-chaos', { ...asB, method: 'PUT', body: { seed: 1, duplicate: 1 } }))
        .status,
    ).toBe(200);
    expect((await e.admin('/_simulator/webhook-chaos')).body).toBeNull();
    sent.length = 0;
    for (const m of [a, b]) {
      const { payment } = await e.createPayment({ amount: 300 }, { key: m.api_key });
      await e.ref.control.succeedPayment(payment.id);
    }
    await e.advance(1);
    await e.ref.control.getClock();
    const by = (shop: string) => sent.filter((s) => s.shop === shop);
    await turnsUntil(async () => by(b.shop_id).length >= 2 && by(a.shop_id).length >= 1);
    expect(by(b.shop_id)).toHaveLength(2);
    expect(by(a.shop_id)).toHaveLength(1);
    expect(new Set(by(b.shop_id).map((s) => s.id)).size).toBe(1);
  });

  it('clears its own journal entries alone, and outlives a snapshot and restore (the state holds its digest only)', async () => {
    const { env: e } = lab();
    const a = await merchantWithObjects(e);
    const b = await merchantWithObjects(e);
    const asB = { key: b.merchant_admin_token };
    const count = async (m: Merchant) =>
      (await e.admin(`/_simulator/requests?merchant=${m.merchant_id}`)).body.items.length as number;
    const aBefore = await count(a);
    expect(await count(b)).toBeGreaterThan(0);
    expect((await e.call('/_simulator/requests', { ...asB, method: 'DELETE' })).status).toBe(204);
    expect(await count(b)).toBe(0);
    expect(await count(a)).toBe(aBefore);

    const snapshot = (await e.admin('/_simulator/snapshot')).body;
    expect(JSON.stringify(snapshot)).not.toContain(b.merchant_admin_token);
    expect((await e.admin('/_simulator/restore', { body: snapshot })).status).toBe(200);
    expect((await e.call(`/_cabinet/merchants/${b.merchant_id}`, asB)).status).toBe(200);
    expectError(await e.call(`/_cabinet/merchants/${a.merchant_id}`, asB), 404, 'not_found');
  });
});
