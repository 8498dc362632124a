// Test-only: small deliberate deviations of the service, each served through an HTTP proxy in front of a real
// reference (or, for webhooks, through the reference's webhookFetch seam), so that the contract kit can be shown
// to fail. Nothing here ships: users cannot switch a mutant on.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { CheckGroup } from '../../src/conformance/index.js';

/** One mutant: what it changes, and the checks of the kit that must catch it. */
export interface Mutant {
  name: string;
  /** The check ids that must fail against it (each of them). */
  catches: `${CheckGroup}.${string}`[];
  /** Rewrites a public request before the reference sees it (`key`: the reference's own API key). */
  request?: (req: Request, key: string) => Request | Promise<Request>;
  /** Rewrites the reference's answer. */
  response?: (res: Response, req: Request) => Response | Promise<Response>;
  /** Delivers a webhook in place of the reference's own fetch. */
  webhook?: (req: Request, send: typeof fetch) => Promise<Response>;
}

const json = (body: unknown, status: number, headers?: Record<string, string>) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...Object.fromEntries(new Headers(headers)) },
  });

const path = (req: Request) => new URL(req.url).pathname;
const isPost = (req: Request, re: RegExp) => req.method === 'POST' && re.test(path(req));
const PAYMENTS = /\/api\/v1\/public\/payments$/;
const REFUND = /\/payments\/[^/]+\/refund$/;
const CANCEL = /\/payments\/[^/]+\/cancel$/;

/** A copy of `req` with `headers` changed (a header set to undefined is removed) and/or another body. */
async function rewrite(
  req: Request,
  change: { headers?: Record<string, string | undefined>; body?: string },
) {
  const headers = new Headers(req.headers);
  for (const [name, value] of Object.entries(change.headers ?? {}))
    value === undefined ? headers.delete(name) : headers.set(name, value);
  // Another body: the old length would stall it (fetch sets the new one), and the client's signature, which the
  // service checked over what was sent, would now refuse it as invalid_signature, hiding the mutant's own change.
  if (change.body !== undefined) {
    headers.delete('content-length');
    headers.delete('x-psp-signature');
  }
  const body = change.body ?? (req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.text());
  return new Request(req.url, { method: req.method, headers, body });
}

/** The answer's JSON, changed by `edit`, with the same status and headers. */
async function editJson(
  res: Response,
  edit: (body: Record<string, unknown>) => unknown,
  status = res.status,
) {
  const body = (await res.json()) as Record<string, unknown>;
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(edit(body)), { status, headers });
}

const codeOf = async (res: Response) =>
  (
    (await res
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined
  )?.error?.code;

/** The SSE body, line by line through `edit` (a line mapped to null is dropped). */
function editStream(res: Response, edit: (line: string, prev: string) => string | null): Response {
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) return res;
  let buffer = '';
  let prev = '';
  const lines = new TransformStream<string, string>({
    transform(chunk, controller) {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const out = edit(line, prev);
        prev = line;
        if (out !== null) controller.enqueue(`${out}\n`);
        nl = buffer.indexOf('\n');
      }
    },
  });
  const body = res.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(lines)
    .pipeThrough(new TextEncoderStream());
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Resends a webhook with `change` applied to its headers and/or body. */
const changedWebhook =
  (change: (headers: Headers, body: string) => string | undefined) =>
  async (req: Request, send: typeof fetch): Promise<Response> => {
    const headers = new Headers(req.headers);
    const body = await req.text();
    const out = change(headers, body) ?? body;
    headers.delete('content-length');
    return send(req.url, { method: 'POST', headers, body: out, redirect: 'manual', signal: req.signal });
  };

export const MUTANTS: Mutant[] = [
  {
    name: 'a replay makes a second payment (the Idempotency-Key is dropped)',
    catches: ['idempotency.payment-replay', 'idempotency.sdk-retry-once'],
    request: (req) =>
      isPost(req, PAYMENTS) ? rewrite(req, { headers: { 'idempotency-key': undefined } }) : req,
  },
  {
    name: 'a refund replay makes a second refund',
    catches: ['idempotency.refund-replay'],
    request: (req) =>
      isPost(req, REFUND) ? rewrite(req, { headers: { 'idempotency-key': undefined } }) : req,
  },
  {
    name: 'a payout replay makes a second payout',
    catches: ['idempotency.payout-replay'],
    request: (req) =>
      isPost(req, /\/payouts$/) ? rewrite(req, { headers: { 'idempotency-key': undefined } }) : req,
  },
  {
    name: 'a replay answers without `idempotent: true`',
    catches: ['idempotency.payment-replay'],
    response: (res, req) =>
      isPost(req, PAYMENTS) && res.status === 200 ? editJson(res, ({ idempotent: _, ...rest }) => rest) : res,
  },
  {
    name: 'idempotent_conflict answered as 409 conflict',
    catches: ['idempotency.payment-conflict', 'idempotency.refund-and-payout-conflict'],
    response: async (res) =>
      (await codeOf(res)) === 'idempotent_conflict'
        ? json({ error: { code: 'conflict', message: 'conflict' } }, 409)
        : res,
  },
  {
    name: 'an Idempotency-Key of 65 characters accepted (cut to 64)',
    catches: ['idempotency.key-length'],
    request: (req) => {
      const key = req.headers.get('idempotency-key');
      return key && key.length > 64
        ? rewrite(req, { headers: { 'idempotency-key': key.slice(0, 64) } })
        : req;
    },
  },
  {
    name: '429 without Retry-After',
    catches: ['rate-limit.retry-after'],
    response: (res) => {
      if (res.status !== 429) return res;
      const headers = new Headers(res.headers);
      headers.delete('retry-after');
      return new Response(res.body, { status: 429, headers });
    },
  },
  {
    // Issue 42: a service that sends Retry-After in milliseconds; the kit neither waits it out nor passes it.
    name: 'Retry-After in milliseconds (x1000)',
    catches: ['rate-limit.retry-after'],
    response: (res) => {
      const after = res.headers.get('retry-after');
      if (res.status !== 429 || after === null) return res;
      const headers = new Headers(res.headers);
      headers.set('retry-after', String(Number(after) * 1000));
      return new Response(res.body, { status: 429, headers });
    },
  },
  {
    name: 'Retry-After in fractional seconds',
    catches: ['rate-limit.retry-after'],
    response: (res) => {
      if (res.status !== 429) return res;
      const headers = new Headers(res.headers);
      headers.set('retry-after', '0.5');
      return new Response(res.body, { status: 429, headers });
    },
  },
  {
    name: 'a refund above the amount accepted',
    catches: ['refunds.above-balance'],
    response: (res, req) =>
      isPost(req, REFUND) && res.status === 422
        ? json({ id: crypto.randomUUID(), status: 'succeeded', amount: 1001 }, 201)
        : res,
  },
  {
    name: 'SSE payment.created without amount',
    catches: ['events.created-envelope'],
    response: (res) =>
      editStream(res, (line, prev) =>
        prev === 'event: payment.created' && line.startsWith('data: ')
          ? `data: ${JSON.stringify(((d) => ({ ...d, payload: { ...d.payload, amount: undefined } }))(JSON.parse(line.slice(6))))}`
          : line,
      ),
  },
  {
    name: 'SSE without the `: connected` comment',
    catches: ['events.framing'],
    response: (res) => editStream(res, (line) => (line === ': connected' ? null : line)),
  },
  {
    name: 'SSE data line before the event line',
    catches: ['events.framing'],
    response: (res) => {
      let held: string | null = null;
      return editStream(res, (line) => {
        if (line.startsWith('event: ')) {
          held = line;
          return null;
        }
        if (held && line.startsWith('data: ')) {
          const out = `${line}\n${held}`;
          held = null;
          return out;
        }
        return line;
      });
    },
  },
  {
    name: 'SSE without heartbeats',
    catches: ['events.heartbeat'],
    response: (res) => editStream(res, (line) => (line === ': ping' ? null : line)),
  },
  {
    name: 'ip_not_allowed answered as 401',
    catches: ['auth.ip-not-allowed'],
    response: async (res) =>
      (await codeOf(res)) === 'ip_not_allowed'
        ? json({ error: { code: 'unauthorized', message: 'no' } }, 401)
        : res,
  },
  {
    name: 'an error body without code',
    catches: ['operations.banks.list.no-key', 'operations.payments.get.unknown-id'],
    response: (res) =>
      res.status >= 400 && res.headers.get('content-type')?.includes('json')
        ? editJson(res, (b) => ({ error: { message: (b.error as { message?: string })?.message } }))
        : res,
  },
  {
    name: 'a request without Authorization served as the default merchant',
    catches: ['operations.banks.list.no-key', 'operations.payments.create.no-key'],
    request: (req, key) =>
      req.headers.get('authorization') || !path(req).startsWith('/api/')
        ? req
        : rewrite(req, { headers: { authorization: `Bearer ${key}` } }),
  },
  {
    name: 'cancel of a cancelled payment answers 200',
    catches: ['payments.cancel-not-pending'],
    response: async (res, req) =>
      isPost(req, CANCEL) && (await codeOf(res)) === 'not_pending' ? json({ status: 'cancelled' }, 200) : res,
  },
  {
    name: 'an unknown payment is 400',
    catches: ['operations.payments.get.unknown-id'],
    response: (res, req) =>
      req.method === 'GET' && res.status === 404
        ? json({ error: { code: 'bad_request', message: 'bad id' } }, 400)
        : res,
  },
  {
    name: 'amount 0 accepted (taken as 1)',
    catches: ['payments.create-refusals'],
    request: async (req) => {
      if (!isPost(req, PAYMENTS)) return req;
      const text = await req.clone().text();
      return text.includes('"amount":0')
        ? rewrite(req, { body: text.replace('"amount":0', '"amount":1') })
        : req;
    },
  },
  {
    name: 'payment answers without currency',
    catches: ['payments.create', 'payments.get'],
    response: (res, req) =>
      req.method === 'GET' && /\/payments\/[^/]+$/.test(path(req)) && res.status === 200
        ? editJson(res, ({ currency: _, ...rest }) => rest)
        : isPost(req, PAYMENTS) && res.status === 201
          ? editJson(res, (b) => ({ ...b, payment: { ...(b.payment as object), currency: undefined } }))
          : res,
  },
  {
    name: 'a succeeded payment without customer info',
    catches: ['payments.buyer-pays'],
    response: (res, req) =>
      req.method === 'GET' && /\/payments\/[^/]+$/.test(path(req)) && res.status === 200
        ? editJson(res, (b) =>
            b.status === 'succeeded'
              ? {
                  ...b,
                  customer_phone_mask: null,
                  customer_payer_bank: null,
                  customer_card_mask: null,
                  customer_card_brand: null,
                  customer_card_holder: null,
                }
              : b,
          )
        : res,
  },
  {
    name: 'cancel answers { status: "canceled" }',
    catches: ['payments.cancel'],
    response: (res, req) =>
      isPost(req, CANCEL) && res.status === 200 ? json({ status: 'canceled' }, 200) : res,
  },
  {
    name: 'a refund with no amount refunds 1',
    catches: ['refunds.partial-then-rest'],
    request: async (req) =>
      isPost(req, REFUND) && (await req.clone().text()) === '{}'
        ? rewrite(req, { body: '{"amount":1}' })
        : req,
  },
  {
    name: 'a refund of a pending payment is 422',
    catches: ['refunds.not-succeeded'],
    response: async (res, req) =>
      isPost(req, REFUND) && res.status === 409 && (await codeOf(res)) === 'not_succeeded'
        ? json({ error: { code: 'amount_exceeds_balance', message: 'no' } }, 422)
        : res,
  },
  {
    name: 'a payout phone of 9 digits accepted (padded)',
    catches: ['payouts.input-refusals'],
    request: async (req) => {
      if (!isPost(req, /\/payouts$/)) return req;
      const text = await req.clone().text();
      return text.includes('"+7999000000"')
        ? rewrite(req, { body: text.replace('"+7999000000"', '"+79990000000"') })
        : req;
    },
  },
  {
    name: 'payouts never leave pending',
    catches: ['payouts.outcome'],
    response: (res, req) =>
      req.method === 'GET' && /\/payouts\/[^/]+$/.test(path(req)) && res.status === 200
        ? editJson(res, (b) => ({ ...b, status: 'pending', completed_at: null }))
        : res,
  },
  {
    name: 'the bank directory holds 29 banks',
    catches: ['banks.directory', 'banks.sdk-list'],
    response: (res, req) =>
      path(req).endsWith('/banks/sbp') && res.status === 200
        ? editJson(res, (b) => ({ items: (b.items as unknown[]).slice(1) }))
        : res,
  },
  {
    name: 'signature_required answered as 403',
    catches: ['signing.signature-required'],
    response: async (res) =>
      (await codeOf(res)) === 'signature_required'
        ? json({ error: { code: 'forbidden', message: 'no' } }, 403)
        : res,
  },
  {
    name: 'invalid_signature answered as bad_request',
    catches: ['signing.invalid-signature'],
    response: async (res) =>
      (await codeOf(res)) === 'invalid_signature'
        ? json({ error: { code: 'bad_request', message: 'no' } }, 400)
        : res,
  },
  {
    name: 'a v2 signature over re-serialised JSON (the body sent with other spacing)',
    catches: ['webhooks.signature'],
    webhook: changedWebhook((_, body) => JSON.stringify(JSON.parse(body), null, 1)),
  },
  {
    name: 'a webhook User-Agent other than psp-webhook/1.0',
    catches: ['webhooks.headers'],
    webhook: changedWebhook((headers) => {
      headers.set('user-agent', 'undici');
      return undefined;
    }),
  },
  {
    name: 'X-PSP-Event-Id not the body id',
    catches: ['webhooks.headers'],
    webhook: changedWebhook((headers) => {
      headers.set('x-psp-event-id', `evt_${'0'.repeat(32)}`);
      return undefined;
    }),
  },
  {
    name: 'a bank decline sent as payment.cancelled',
    catches: ['webhooks.failed-event'],
    webhook: changedWebhook((_, body) =>
      body.replace('"event":"payment.failed"', '"event":"payment.cancelled"'),
    ),
  },
  {
    name: 'a retry sooner than the schedule (at once after a failure)',
    catches: ['webhooks.retry-schedule'],
    webhook: async (req, send) => {
      const body = await req.text();
      const again = () => send(req.url, { method: 'POST', headers: req.headers, body, redirect: 'manual' });
      const first = await again();
      return first.status >= 500 ? again() : first;
    },
  },
  {
    name: 'a failed delivery never retried',
    catches: ['webhooks.retry-schedule'],
    webhook: async (req, send) => {
      const res = await send(req.url, {
        method: 'POST',
        headers: req.headers,
        body: await req.text(),
        redirect: 'manual',
      });
      return res.status >= 500 ? new Response(null, { status: 200 }) : res;
    },
  },
];

/** The proxy: `target` behind `mutant`, on 127.0.0.1. */
export async function startProxy(
  target: string,
  current: () => Mutant | undefined,
  key: string,
  seen?: (req: Request, res: Response) => void,
): Promise<{ url: string; broken: string[]; close(): Promise<void> }> {
  // Requests the proxy could not forward: a mutant must be caught for what it changes, not for a 502 of its own.
  const broken: string[] = [];
  const forward = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
    const headers = new Headers(req.headers);
    headers.delete('host');
    return fetch(`${target}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body,
      redirect: 'manual',
    });
  };
  const server = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req: Request) => {
      const m = current();
      const sent = m?.request ? await m.request(req, key) : req;
      // A client that went away (a stream closed) aborts the forward: answered quietly, not logged as an error.
      const res = await forward(sent.clone()).catch((error: unknown) => {
        if (!req.signal.aborted) broken.push(`${sent.method} ${path(sent)}: ${String(error)}`);
        return new Response(null, { status: 502 });
      });
      const out = m?.response ? await m.response(res, sent) : res;
      const stream = out.headers.get('content-type')?.startsWith('text/event-stream');
      seen?.(sent, stream ? new Response(null, { status: out.status, headers: out.headers }) : out.clone());
      return out;
    },
  });
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once('listening', () => resolve()),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    broken,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
