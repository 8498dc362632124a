// Spec 4.1, 7 and 8: the merchant's rate limit and Retry-After.
import { expect, expectError } from '../assert.js';
import { group } from '../check.js';
import { CheckFailure } from '../outcomes.js';

// The window of the merchant the kit limits (the cabinet's `rate_limit`), in seconds.
const WINDOW = 2;

export const RATE_LIMIT_CHECKS = group('rate-limit', [
  {
    id: 'retry-after',
    section: '7',
    quote:
      '| 429 | (code not named) | merchant rate limit exceeded; `Retry-After` header carries whole seconds |',
    sends:
      'banks.list three times with the key of a merchant limited to 2 requests in 2 s (the cabinet), then again after Retry-After',
    expects:
      'the third: 429 with the error body and `Retry-After` in whole seconds, no longer than the 2 s window (the limit lifts by then); after waiting it: 200',
    needs: ['control'],
    async run(kit) {
      // The spec shows no numeric limit: reaching the service's own would take unbounded requests, so the kit
      // sets a small one on a merchant of its own.
      const m = await kit.merchant({ rate_limit: { limit: 2, window_seconds: WINDOW } });
      const get = () => kit.api('banks.list', { key: m.api_key, signWith: null, keep429: true });
      await get();
      await get();
      const limited = await get();
      expectError(limited, 429, 'past the limit');
      const after = limited.headers.get('retry-after') ?? '';
      expect(
        /^\d+$/.test(after) && Number(after) >= 1,
        `Retry-After is ${JSON.stringify(after)}, not whole seconds`,
        limited,
      );
      if (Number(after) > WINDOW) {
        // The window is the kit's own: the limit lifts within it, so a longer wait is contradicted by the
        // service's own behaviour (a value in milliseconds, say). Checked by asking once the window has passed,
        // never by waiting the whole of it.
        await kit.elapse(WINDOW + 1);
        const probe = await get();
        throw new CheckFailure(
          probe.status === 200
            ? `Retry-After said ${after} s, but the limit of 2 requests per ${WINDOW} s lifted within ${WINDOW + 1} s: Retry-After must carry the whole seconds until it lifts (is it in milliseconds?)`
            : `Retry-After is ${after} s for a limit of 2 requests per ${WINDOW} s, which still refuses after ${WINDOW + 1} s (${probe.status})`,
          probe.observed,
        );
      }
      await kit.elapse(Number(after));
      const again = await get();
      expect(again.status === 200, `after waiting Retry-After: expected 200, got ${again.status}`, again);
    },
  },
]);
