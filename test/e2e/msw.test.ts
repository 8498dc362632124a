import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotPendingError, PspClient } from '../../src/index.js';
import { createReference } from '../../src/reference/index.js';
import { createReferenceHandlers } from '../../src/reference/msw.js';

// Made at module load, before msw patches fetch in beforeAll: the client must still go through msw.
const reference = createReference({ clock: 'manual' });
const client = new PspClient({
  apiKey: reference.api_key,
  signingSecret: reference.signing_secret,
  baseUrl: 'https://psp.test',
  strict: true,
});
const server = setupServer(...createReferenceHandlers(reference, { baseUrl: 'https://psp.test' }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(async () => {
  server.close();
  await reference.close();
});

describe('the client against the reference through msw (no sockets)', () => {
  it('creates, reads, cancels a payment, signed, with strict parsing', async () => {
    await reference.control.updateTerminal(reference.terminal_id, { require_signature: true });
    const { payment } = await client.payments.create({ amount: 1500, order_id: 'msw-1' });
    expect((await client.payments.get(payment.id)).order_id).toBe('msw-1');
    expect(await client.payments.cancel(payment.id)).toEqual({ status: 'cancelled' });
    await expect(client.payments.cancel(payment.id)).rejects.toBeInstanceOf(NotPendingError);
    expect((await client.banks.list()).items).toHaveLength(30);
  });
});
