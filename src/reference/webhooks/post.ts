/** What one POST to a receiver came to. `error` is null exactly when it was delivered (a 2xx in time). */
export interface PostResult {
  status: number | null;
  error: string | null;
}

/** At most this much of a receiver's answer is read (and thrown away) so the connection can be reused. */
const MAX_DRAIN_BYTES = 64 * 1024;

class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

function reasonOf(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const cause = e?.cause;
  const text = cause?.code ?? cause?.message ?? e?.message ?? String(err);
  // Receiver-controlled text (a garbage status line echoed by the parser) is trimmed, never trusted for length.
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > MAX_DRAIN_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // A receiver that resets after its status line has already answered; nothing to do.
  }
}

/**
 * POSTs `body` once. Redirects are not followed (a 3xx is a failure: a signed body must not travel to a place the
 * merchant did not configure). The deadline is real time: `deadlineMs` after the request starts without a status
 * line, it is aborted. `controller` lets the service abort it on close.
 */
export async function post(
  fetchImpl: typeof fetch,
  url: string,
  body: string,
  headers: Record<string, string>,
  controller: AbortController,
  deadlineMs: number,
): Promise<PostResult> {
  const timer = setTimeout(
    () => controller.abort(new DeadlineError(`no answer within ${deadlineMs} ms`)),
    deadlineMs,
  );
  (timer as { unref?: () => void }).unref?.();
  try {
    const res = await fetchImpl(url, {
      method: 'POST',
      body,
      headers,
      redirect: 'manual',
      signal: controller.signal,
    });
    const status = res.status;
    // The answer is settled by the status line; the body is read only to free the connection, under the deadline.
    await drain(res.body);
    if (status >= 200 && status < 300) return { status, error: null };
    if (status >= 300 && status < 400) return { status, error: `redirect not followed (HTTP ${status})` };
    // An opaque redirect (browsers with redirect: 'manual') has status 0.
    if (status === 0) return { status: null, error: 'redirect not followed' };
    return { status, error: `HTTP ${status}` };
  } catch (err) {
    const reason = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof DeadlineError)
      return { status: null, error: `timeout: no answer within ${deadlineMs / 1000} s` };
    if (controller.signal.aborted) return { status: null, error: 'aborted: the webhook service closed' };
    return { status: null, error: `connection failed: ${reasonOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
}
