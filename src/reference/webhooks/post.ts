/** What one POST to a receiver came to. `error` is null exactly when it was delivered (a 2xx in time). */
export interface PostResult {
  status: number | null;
  error: string | null;
}

class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

function reasonOf(err: unknown): string {
  const e = err as {
    code?: string | undefined;
    message?: string | undefined;
    cause?: { code?: string | undefined; message?: string | undefined } | undefined;
  } | null;
  const text = e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  // Receiver-controlled text (a garbage status line echoed by the parser) is trimmed, never trusted for length.
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** `status` as the delivery log shows it: only a 2xx is delivered. */
function classify(status: number): PostResult {
  if (status >= 200 && status < 300) return { status, error: null };
  if (status >= 300 && status < 400) return { status, error: `redirect not followed (HTTP ${status})` };
  // An opaque redirect (browsers with redirect: 'manual') has status 0.
  if (status === 0) return { status: null, error: 'redirect not followed' };
  return { status, error: `HTTP ${status}` };
}

/**
 * POSTs `body` once through `fetchImpl` and classifies the outcome. Redirects are not followed (a 3xx is a
 * failure: a signed body must not travel to a place the merchant did not configure).
 *
 * The deadline is real time and covers the status line and headers only (spec 6.1: a 2xx that arrives within 15 s
 * is a success). The answer's body is read after the outcome is known, never before: a receiver that sends it
 * slowly cannot turn a success into a timeout and a duplicate delivery. `controller` also lets the service stop the
 * request on close.
 */
export async function post(
  fetchImpl: typeof fetch,
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  controller: AbortController,
  deadlineMs: number,
): Promise<PostResult> {
  const timer = setTimeout(
    () => controller.abort(new DeadlineError(`no answer within ${deadlineMs} ms`)),
    deadlineMs,
  );
  (timer as { unref?: (() => void) | undefined }).unref?.();
  let res: Response;
  try {
    // A payment's webhook_url is checked as a URI only: anything but http(s) is refused rather than spoken to.
    if (!/^https?:\/\//i.test(url)) throw new TypeError('unsupported URL scheme');
    res = await fetchImpl(url, {
      method: 'POST',
      body,
      headers,
      redirect: 'manual',
      signal: controller.signal,
    });
  } catch (err) {
    const reason: unknown = controller.signal.reason;
    if (reason instanceof DeadlineError)
      return { status: null, error: `timeout: no answer within ${deadlineMs / 1000} s` };
    if (controller.signal.aborted) return { status: null, error: 'aborted: the webhook service closed' };
    return { status: null, error: `connection failed: ${reasonOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
  void drain(res, controller);
  return classify(res.status);
}

/** Most bytes of a receiver's answer read, and for how long, before the connection is given up instead. */
export const DRAIN_BYTES = 64 * 1024;
export const DRAIN_MS = 5_000;

/**
 * Reads a receiver's answer to its end, in the background (the outcome is decided by the status alone): a body
 * cancelled mid-read makes some runtimes' fetch reset the connection (Bun's reset every keep-alive connection and
 * 1 in 10 of the others after the receiver answered 200: issue 40), and a body read whole lets the connection carry
 * the next delivery. A body past {@link DRAIN_BYTES}, or slower than {@link DRAIN_MS}, is given up.
 */
async function drain(res: Response, controller: AbortController): Promise<void> {
  if (!res.body) return;
  const timer = setTimeout(() => controller.abort(new DeadlineError('answer body too slow')), DRAIN_MS);
  (timer as { unref?: (() => void) | undefined }).unref?.();
  const reader = res.body.getReader();
  try {
    let read = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > DRAIN_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The connection failed or was given up: nothing depends on it.
  } finally {
    clearTimeout(timer);
  }
}
