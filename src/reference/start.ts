import { createReference, type Reference, type ReferenceOptions } from './service.js';

/** Options of {@link startReference}: the reference's own options plus where to listen. */
export interface StartReferenceOptions extends ReferenceOptions {
  /** Address to bind. Default `127.0.0.1` (use `0.0.0.0` or `::` to accept other machines). */
  host?: string | undefined;
  /** Port to bind; 0 takes a free port. Default `4010`. */
  port?: number | undefined;
  /**
   * Let @hono/node-server swap the global `Request`/`Response` for its lighter ones, which it writes without
   * reading a stream back. It changes globals for the whole process: leave it off inside a test runner or an
   * application. Default: false.
   */
  overrideGlobalObjects?: boolean | undefined;
  /** As `ListenOptions.bodyTimeoutMs`: a request body must arrive within this many ms. Default 10,000. */
  bodyTimeoutMs?: number | undefined;
  /** As `ListenOptions.maxBodyBytesInFlight`: most bytes of bodies read at once. Default 64 MiB. */
  maxBodyBytesInFlight?: number | undefined;
  /** As `ListenOptions.maxConnections`: most connections open at once; past it new ones are closed. Default 4,096. */
  maxConnections?: number | undefined;
  /**
   * Let webhooks go to private, loopback and link-local addresses (a test double on this machine or this network).
   * Anyone with an API key sets a payment's `webhook_url`, so a reference that listens beyond loopback would
   * otherwise POST wherever it is told inside its network. Default: true when `host` is a loopback address or
   * `localhost`, false otherwise (then such a delivery attempt fails, and the delivery log says why).
   *
   * @example startReference({ host: '0.0.0.0', allowPrivateWebhookTargets: true }) // receivers on the LAN
   */
  allowPrivateWebhookTargets?: boolean | undefined;
}

/**
 * A reference serving over HTTP: a {@link Reference} (the startup facts of the control contract, `control`,
 * `fetch`, `clock`, ...) plus where it listens (`base_url`, `pay_url`) and a `close()` that stops the server too.
 */
export interface RunningReference extends Reference {
  /** Where the public API, `/_cabinet` and `/_simulator` live, e.g. `http://127.0.0.1:4010`. */
  base_url: string;
  /** The buyer's page (the spec's `{pay_url}`): `${base_url}/pay`; `payment_url` is `${pay_url}/{id}`. */
  pay_url: string;
  /**
   * Stops the server: ends open SSE streams, closes every socket at once, cancels the reference's timers and
   * settles in-flight webhook deliveries. Resolves when all of that is done; safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * Starts the reference Payment Service as a real HTTP server (Node, and Deno through its `node:http`), on
 * `127.0.0.1:4010` by default. Requests reach the service with the socket's address, so the IP allow-list
 * sees the real peer. The buyer's page is served at `pay_url`.
 *
 * @throws Error when the address cannot be bound (for example, the port is taken); nothing keeps running then.
 * @throws TypeError for a bad fault rule or seed, before anything starts.
 *
 * @example
 * ```ts
 * import { startReference } from 'psp-sdk/reference';
 * import { PspClient } from 'psp-sdk';
 *
 * const ref = await startReference({ port: 0, clock: 'manual' });
 * const psp = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
 * const { payment, payment_url } = await psp.payments.create({ amount: 150_000, order_id: 'A-1' });
 * await ref.pay(payment.id); // play the buyer pressing Pay (or `await ref.control.succeedPayment(id)`: the bank)
 * await ref.close();
 * ```
 */
export async function startReference(options: StartReferenceOptions = {}): Promise<RunningReference> {
  const {
    host = '127.0.0.1',
    port = 4010,
    overrideGlobalObjects = false,
    bodyTimeoutMs,
    maxBodyBytesInFlight,
    maxConnections,
    allowPrivateWebhookTargets,
    ...referenceOptions
  } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(
      `port must be an integer from 0 to 65535, got ${JSON.stringify(port) ?? String(port)}`,
    );
  }
  // Loaded on demand so that `psp-sdk/reference` itself (createReference, msw) stays free of node: imports.
  const { listenNode } = await import('./adapters/node-http.js');
  const { isIP } = await import('node:net');
  // The buyer's page answers to the host it listens on (an IP address needs no listing) and the public ones only.
  const { publicHost = [] } = referenceOptions;
  referenceOptions.publicHost = [
    ...(host === '' || isIP(host) ? [] : [host]),
    ...(typeof publicHost === 'string' ? [publicHost] : publicHost),
  ];
  const { isLoopbackHost, publicTargetsOnly } = await import('./adapters/webhook-targets.js');
  if (!(allowPrivateWebhookTargets ?? isLoopbackHost(host))) {
    const inner = referenceOptions.webhookFetch ?? ((input, init) => globalThis.fetch(input, init));
    referenceOptions.webhookFetch = publicTargetsOnly(inner);
  }
  const reference = createReference(referenceOptions);
  let server: Awaited<ReturnType<typeof listenNode>>;
  try {
    server = await listenNode((request, info) => reference.fetch(request, info), {
      host,
      port,
      overrideGlobalObjects,
      ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
      ...(maxBodyBytesInFlight === undefined ? {} : { maxBodyBytesInFlight }),
      ...(maxConnections === undefined ? {} : { maxConnections }),
    });
  } catch (error) {
    await reference.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // The reference ends its SSE streams first; one macrotask later their last bytes are on the wire, and
      // the server drops every socket that is still open. Webhook deliveries settle meanwhile.
      const referenceClosed = reference.close().then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 0));
      await server.close();
      const error = await referenceClosed;
      if (error !== undefined) throw error;
    })();
    return closing;
  };

  return {
    ...reference,
    base_url: server.url,
    pay_url: `${server.url}/pay`,
    close,
  };
}
