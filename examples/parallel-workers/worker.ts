// A worker's own merchant on the shared reference: its API key for the public API, and its merchant admin token
// for /_cabinet and /_simulator, which reach this merchant's objects, faults, journal and chaos alone.
import { PspClient } from '../../src/index.js';
import { inject } from 'vitest';

export interface Worker {
  merchant_id: string;
  api_key: string;
  merchant_admin_token: string;
  psp: PspClient;
  /** A control request with this worker's own token. */
  control(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
}

export async function newWorker(name: string): Promise<Worker> {
  const { baseUrl, adminToken } = inject('psp');
  const res = await fetch(`${baseUrl}/_cabinet/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const merchant = (await res.json()) as Omit<Worker, 'psp' | 'control'>;
  return {
    ...merchant,
    psp: new PspClient({ apiKey: merchant.api_key, baseUrl }),
    control: (path, init = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          authorization: `Bearer ${merchant.merchant_admin_token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
  };
}
