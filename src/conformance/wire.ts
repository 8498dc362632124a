// The kit's raw requests: headers from the package's one wire module (src/internal/wire.ts), sent through the run's
// counted fetch, the answer read whole with the SDK's reader, a 429 waited out with the SDK's retry policy and
// Retry-After reader, and what came back kept for a failure's report (secrets masked).
import { parseRetryAfter, readText } from '../client/api-errors.js';
import { retryDecision } from '../client/retry.js';
import { redactSecrets } from '../internal/redact.js';
import { requestHeaders } from '../internal/wire.js';
import type { Budget } from './budget.js';
import { REQUEST_TIMEOUT_MS } from './budget.js';
import { CheckFailure, CheckSkipped } from './outcomes.js';
import type { Observed } from './types.js';

/** One answer on the wire, read whole. */
export interface WireAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
  observed: Observed;
}

/** How a raw request is sent. */
export interface WireOptions {
  /** A JSON value (serialised as is), or a string sent byte for byte. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** The API key; `null` sends no Authorization header. Default: the run's key. */
  key?: string | null | undefined;
  /** The `thm_` secret to sign with; `null` sends no signature. Default: the run's signing secret, if any. */
  signWith?: string | null | undefined;
  /** Return a 429 instead of waiting it out (the rate-limit checks look at it). */
  keep429?: boolean | undefined;
}

/** What a raw request is sent with: the run's address, defaults, counted fetch and budget. */
export interface WireContext {
  baseUrl: string;
  apiKey: string;
  signingSecret: string | undefined;
  /** The run's fetch: counted against the budget. */
  fetch: typeof fetch;
  budget: Budget;
}

const MAX_BODY_SHOWN = 2000;

/** A value for a failure's message: JSON, cut short, secrets masked. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return redactSecrets(text.length > 300 ? `${text.slice(0, 300)}...` : text);
}

// Over 80 lines: one raw request whole: send, read, wait out a 429, keep what came back.
/** A raw request to `path` (under the base URL), read whole. A 429 is waited out unless `keep429`. */
export async function send(
  ctx: WireContext,
  method: string,
  path: string,
  options: WireOptions = {},
): Promise<WireAnswer> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const headers = {
    ...requestHeaders({
      token: options.key === undefined ? ctx.apiKey : options.key,
      body,
      signWith: options.signWith === undefined ? ctx.signingSecret : options.signWith,
    }),
    ...options.headers,
  };
  const request = `${method} ${path}`;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await ctx.fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers,
        body,
        redirect: 'manual',
        signal: ctx.budget.requestSignal(),
      });
    } catch (error) {
      if (error instanceof CheckSkipped) throw error;
      throw new CheckFailure(`no answer: ${redactSecrets(String((error as Error).message))}`, {
        request,
        status: undefined,
        requestId: undefined,
        body: '',
      });
    }
    let text: string;
    try {
      // The SDK's own reader: a body over its cap or past the timeout ends the read, as it ends a call's.
      text = await readText(res, REQUEST_TIMEOUT_MS);
    } catch (error) {
      throw new CheckFailure(
        `the answer could not be read: ${redactSecrets(String((error as Error).message))}`,
        {
          request,
          status: res.status,
          requestId: res.headers.get('x-request-id') ?? undefined,
          body: '',
        },
      );
    }
    if (res.status === 429 && !options.keep429) {
      // The SDK's own policy and reader (seconds or an HTTP-date): a wait past its ceiling is not waited out.
      const decision = retryDecision({
        attempt,
        maxRetries: 3,
        safe: true,
        outcome: { status: 429, retryAfter: parseRetryAfter(res.headers.get('retry-after')) },
        timeout: 30_000,
        maxRetryDelay: 10_000,
      });
      if (decision.retry) {
        await ctx.budget.sleep(decision.delayMs);
        continue;
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: res.status,
      headers: res.headers,
      text,
      json,
      observed: {
        request,
        status: res.status,
        requestId: res.headers.get('x-request-id') ?? undefined,
        body: redactSecrets(text.slice(0, MAX_BODY_SHOWN)),
      },
    };
  }
}
