import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../src/internal/webhook-signature.js';
import { computeSignatureHeader, verifyWebhook } from '../../src/webhooks/index.js';
import { BODY, hmacHex, NOW_MS, SECRET, T } from './helpers.js';

// Issue 13, hole 2: a v2 header captured in transit must not verify outside the tolerance in any form that
// default verifyWebhook accepts. Every hex in it, replayed a month later as a legacy `sha256=` header over the
// body or over the signed string, is refused.

const MONTH_LATER = NOW_MS + 30 * 86_400_000;

function replays(header: string): Array<{ body: string; headers: Record<string, string> }> {
  const hexes = [...header.matchAll(/=([0-9a-f]{64})/g)].map((m) => m[1]!);
  expect(hexes.length).toBeGreaterThanOrEqual(2);
  return hexes.flatMap((hex) =>
    [BODY, `${T}.${BODY}`].map((body) => ({ body, headers: { 'x-psp-signature': `sha256=${hex}` } })),
  );
}

function refusedByDefault(replay: { body: string; headers: Record<string, string> }): boolean {
  try {
    verifyWebhook(replay.body, replay.headers, SECRET, { now: MONTH_LATER });
    return false;
  } catch (err) {
    return (err as Error).name === 'WebhookVerificationError';
  }
}

describe('a captured v2 header cannot be downgraded to v1 and replayed', () => {
  it("the SDK signer's v2 header: no part of it passes as sha256= a month later", () => {
    const header = computeSignatureHeader({ secret: SECRET, body: BODY, timestamp: T });
    // The capture itself is stale a month later.
    expect(() =>
      verifyWebhook(BODY, { 'x-psp-signature': header, 'x-psp-timestamp': String(T) }, SECRET, {
        now: MONTH_LATER,
      }),
    ).toThrow(expect.objectContaining({ reason: 'timestamp_outside_tolerance' }));
    for (const replay of replays(header)) expect(refusedByDefault(replay)).toBe(true);
  });

  it("the reference's delivery headers: no part of them passes as sha256= a month later", () => {
    const headers = webhookHeaders({
      secret: SECRET,
      body: new TextEncoder().encode(BODY),
      version: 'v2',
      timestamp: Math.floor(NOW_MS / 1000),
      eventId: 'evt_01JD3Z8K9QW',
    });
    // Fresh, the delivery verifies with the default options.
    expect(verifyWebhook(BODY, headers, SECRET, { now: NOW_MS }).id).toBe('evt_01JD3Z8K9QW');
    for (const replay of replays(headers['x-psp-signature']!)) expect(refusedByDefault(replay)).toBe(true);
  });

  it('the v1= inside a v2 header is bound to t: HMAC over `<t>.<body>`, as v2= is (spec 6.1)', () => {
    const header = computeSignatureHeader({ secret: SECRET, body: BODY, timestamp: T });
    const signed = hmacHex(SECRET, `${T}.${BODY}`);
    expect(header).toBe(`t=${T},v1=${signed},v2=${signed}`);
  });

  it('a v1 endpoint still signs sha256=<HMAC(body)>, accepted unless requireV2 (it never had replay protection)', () => {
    const header = computeSignatureHeader({ secret: SECRET, body: BODY, version: 'v1' });
    expect(header).toBe(`sha256=${hmacHex(SECRET, BODY)}`);
    expect(verifyWebhook(BODY, { 'x-psp-signature': header }, SECRET, { now: MONTH_LATER }).id).toBeTruthy();
    expect(() =>
      verifyWebhook(BODY, { 'x-psp-signature': header }, SECRET, { now: MONTH_LATER, requireV2: true }),
    ).toThrow(expect.objectContaining({ reason: 'v1_not_allowed' }));
  });
});
