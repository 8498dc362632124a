// A consumer's test set-up with msw 3 (Node >= 22.12): the reference's handlers behind msw's node server, the
// client's fetch intercepted, no socket. Prints one JSON report line.
import { setupServer } from 'msw/node';
import { PspClient } from 'psp-sdk';
import { createReference } from 'psp-sdk/reference';
import { createReferenceHandlers } from 'psp-sdk/reference/msw';

const ref = createReference();
const server = setupServer(...createReferenceHandlers(ref, { baseUrl: 'http://psp.test' }));
server.listen({ onUnhandledRequest: 'error' });
try {
  const psp = new PspClient({ apiKey: ref.api_key, baseUrl: 'http://psp.test' });
  const { payment } = await psp.payments.create({ amount: 1500, order_id: 'msw3' });
  await ref.control.succeedPayment(payment.id);
  const read = await psp.payments.get(payment.id);
  const msw = (await import('msw/package.json', { with: { type: 'json' } })).default.version;
  console.log(JSON.stringify({ msw, node: process.versions.node, status: read.status, amount: read.amount }));
} finally {
  server.close();
  await ref.close();
}
