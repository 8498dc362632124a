import { describe, expect, it } from 'vitest';
import { type Middleware, PspClient } from '../../src/index.js';
import { merchant, referenceForFile } from './setup.js';

// The middleware's unit tests are in test/client/middleware-calls.test.ts; here a rewritten body meets the
// reference's signature check.

describe('middleware against the reference', () => {
  const file = referenceForFile();

  it('a middleware that rewrites the body still gets 201 with require_signature on', async () => {
    const { m } = await merchant(file.ref);
    await file.ref.control.updateTerminal(m.terminal_id, { require_signature: true });
    const addOrder: Middleware = async (req, next) => {
      if (req.method !== 'POST') return next(req);
      const body = {
        ...((await req.clone().json()) as object),
        order_id: 'from-middleware',
        description: 'подпись ✓',
      };
      return next(new Request(req, { body: JSON.stringify(body) }));
    };
    const c = new PspClient({
      apiKey: m.api_key,
      baseUrl: file.ref.base_url,
      signingSecret: m.signing_secret,
      strict: true,
      middleware: [addOrder],
    });
    const res = await c.payments.create({ amount: 1000 }).withResponse();
    expect(res.response.status).toBe(201);
    expect(res.data.payment.order_id).toBe('from-middleware');
    // The GET is signed too (the empty body), and passes.
    expect((await c.payments.get(res.data.payment.id)).order_id).toBe('from-middleware');
  });
});
