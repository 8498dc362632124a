// What the load suites share to drive a reference server: its node flags from the environment, and a JSON call
// over a keep-alive agent.

import http from 'node:http';
import { count429 } from './harness.mjs';

/** Node flags for the reference process from PSP_BENCH_SERVER_ARGV, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
export function serverExecArgv() {
  return process.env.PSP_BENCH_SERVER_ARGV?.split(' ').filter(Boolean) ?? [];
}

/**
 * `call(method, path, token, body)` against `baseUrl` through `agent`: resolves to the parsed JSON answer
 * (undefined when empty), rejects on a non-2xx answer or a network error.
 */
export function jsonCaller(baseUrl, agent) {
  return (method, path, token, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        `${baseUrl}${path}`,
        { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => {
            text += c;
          });
          count429(res.statusCode);
          res.on('end', () =>
            res.statusCode < 300
              ? resolve(text ? JSON.parse(text) : undefined)
              : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
