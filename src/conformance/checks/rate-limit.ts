// Spec 4.1, 7 and 8: the merchant's rate limit and Retry-After.
import { expect, expectError } from '../assert.js';
import { group } from '../check.js';

export const RATE_LIMIT_CHECKS = group('rate-limit', [
  {
    id: 'retry-after',
    section: '7',
    quote:
      '| 429 | (code not named) | merchant rate limit exceeded; `Retry-After` header carries whole seconds |',
    sends:
      'banks.list three times with the key of a merchant limited to 2 requests in 2 s (the cabinet), then again after Retry-After',
    expects: 'the third: 429 with the error body and `Retry-After` in whole seconds; after waiting it: 200',
    needs: ['control'],
    async run(kit) {
      // The spec shows no numeric limit: reaching the service's own would take unbounded requests, so the kit
      // sets a small one on a merchant of its own.
      const m = await kit.merchant({ rate_limit: { limit: 2, window_seconds: 2 } });
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
      await kit.elapse(Number(after));
      const again = await get();
      expect(again.status === 200, `after waiting Retry-After: expected 200, got ${again.status}`, again);
    },
  },
]);
