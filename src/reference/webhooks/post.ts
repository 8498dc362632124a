import type { Abort, Send } from './transport.js';

/** What one POST to a receiver came to. `error` is null exactly when it was delivered (a 2xx in time). */
export interface PostResult {
  status: number | null;
  error: string | null;
}

class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

function reasonOf(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const text = e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  // Receiver-controlled text (a garbage status line echoed by the parser) is trimmed, never trusted for length.
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/**
 * POSTs `body` once and classifies the outcome. Redirects are not followed (a 3xx is a failure: a signed body must
 * not travel to a place the merchant did not configure). The deadline is real time: `deadlineMs` after the request
 * starts without a status line, it is aborted. `abort` also lets the service stop it on close.
 */
export async function post(
  send: Send,
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  abort: Abort,
  deadlineMs: number,
): Promise<PostResult> {
  const timer = setTimeout(
    () => abort.abort(new DeadlineError(`no answer within ${deadlineMs} ms`)),
    deadlineMs,
  );
  (timer as { unref?: () => void }).unref?.();
  try {
    const status = await send(url, body, headers, abort);
    if (status >= 200 && status < 300) return { status, error: null };
    if (status >= 300 && status < 400) return { status, error: `redirect not followed (HTTP ${status})` };
    // An opaque redirect (browsers with redirect: 'manual') has status 0.
    if (status === 0) return { status: null, error: 'redirect not followed' };
    return { status, error: `HTTP ${status}` };
  } catch (err) {
    if (abort.reason instanceof DeadlineError)
      return { status: null, error: `timeout: no answer within ${deadlineMs / 1000} s` };
    if (abort.reason) return { status: null, error: 'aborted: the webhook service closed' };
    return { status: null, error: `connection failed: ${reasonOf(err)}` };
  } finally {
    clearTimeout(timer);
  }
}
