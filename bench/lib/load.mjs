// One autocannon run against 127.0.0.1, reduced to the figures the suites use.

import autocannon from 'autocannon';
import { count429 } from './harness.mjs';

/**
 * Runs autocannon with `connections` for `duration` seconds; resolves to 2xx req/s, counts (also per status) and
 * latencies. With `idReplacement`, every `[<id>]` in the headers or body becomes a fresh id per request (e.g. an
 * Idempotency-Key). With `amount`, the run ends after that many requests instead.
 */
export function load({
  url,
  method = 'GET',
  headers = {},
  body,
  duration = 4,
  connections = 10,
  idReplacement = false,
  amount,
}) {
  return new Promise((resolve, reject) => {
    autocannon(
      // `amount` (a request count) ends the run instead of `duration`: --smoke's few requests.
      {
        url,
        method,
        headers,
        body,
        duration,
        amount,
        connections,
        idReplacement,
        pipelining: 1,
        timeout: 10,
      },
      (err, r) => {
        if (err) return reject(err);
        const ok = r['2xx'];
        count429(429, r.statusCodeStats?.['429']?.count ?? 0);
        resolve({
          rps: ok / r.duration,
          ok,
          non2xx: r.non2xx,
          statuses: Object.fromEntries(
            Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
          ),
          errors: r.errors + r.timeouts,
          p50: r.latency.p50,
          p99: r.latency.p99,
        });
      },
    );
  });
}
