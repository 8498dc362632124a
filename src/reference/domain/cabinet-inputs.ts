import * as z from 'zod/mini';
import { MERCHANT_BLOCKS } from './accounts.js';
import { isValidAllowEntry } from './ip-allow.js';
import { parseBody } from './validate.js';

const bool = () => z.boolean('must be true or false');
// A type's own message covers every issue of it in zod/mini: these keep it for type errors only, so a value out of
// range is refused with the bound it broke.
const typeError = (message: string) => ({
  error: (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined),
});
const int = () => z.int(typeError('must be an integer'));
const min = (n: number) => z.minimum(n, `must be at least ${n}`);
const max = (n: number) => z.maximum(n, `must be at most ${n}`);
/** A probability. */
const rate = () =>
  z
    .number(typeError('must be a number from 0 to 1'))
    .check(z.minimum(0, 'must be from 0 to 1'), z.maximum(1, 'must be from 0 to 1'));

const schemas = {
  createMerchant: z.strictObject({
    name: z.optional(
      z
        .string(typeError('must be a string'))
        .check(z.minLength(1, 'must not be empty'), z.maxLength(256, 'must be at most 256 characters')),
    ),
  }),
  updateMerchant: z.strictObject({
    live_enabled: z.optional(bool()),
    payouts_enabled: z.optional(bool()),
    ip_allow_list: z.optional(
      z
        .array(
          z
            .string('entries must be strings')
            .check(
              z.refine(
                isValidAllowEntry,
                'entries must be IPv4, IPv6 or CIDR (e.g. 203.0.113.0/24, 2001:db8::/32)',
              ),
            ),
          'must be an array of IPv4, IPv6 or CIDR strings',
        )
        .check(z.maxLength(1000, 'must have at most 1000 entries')),
    ),
    block: z.optional(
      z.nullable(
        z.enum(MERCHANT_BLOCKS, `must be ${MERCHANT_BLOCKS.map((b) => `"${b}"`).join(', ')} or null`),
      ),
    ),
    rate_limit: z.optional(
      z.strictObject(
        {
          limit: int().check(min(1), max(1_000_000_000)),
          window_seconds: int().check(min(1), max(86_400)),
        },
        'must be { limit, window_seconds }',
      ),
    ),
  }),
  updateTerminal: z.strictObject({ require_signature: bool() }),
  createApiKey: z.strictObject({ mode: z.enum(['test', 'live'], 'must be "test" or "live"') }),
  webhookChaos: z.strictObject({
    seed: z.optional(int().check(min(0), max(4_294_967_295))),
    duplicate: z.optional(rate()),
    reorder: z.optional(rate()),
    delay: z.optional(
      z
        .strictObject(
          {
            min_seconds: z.number(typeError('must be a number')).check(min(0), max(86_400)),
            max_seconds: z.number(typeError('must be a number')).check(min(0), max(86_400)),
          },
          'must be { min_seconds, max_seconds }',
        )
        .check(z.refine((d) => d.min_seconds <= d.max_seconds, 'min_seconds must not be above max_seconds')),
    ),
  }),
  advanceClock: z.strictObject({
    seconds: z
      .number(typeError('must be a number'))
      .check(z.minimum(0, 'must not be negative'), max(10 * 365 * 86_400)),
  }),
};

/**
 * The cabinet's input rules, field by field: a restore checks a snapshot's merchants by these same schemas
 * (src/reference/state/schema.ts), so a document cannot hold what the cabinet would refuse.
 *
 * @example CABINET_RULES.updateMerchant.shape.rate_limit.def.innerType.safeParse({ limit: 1, window_seconds: 1e308 })
 */
export const CABINET_RULES = schemas;

/** Body of `POST /_cabinet/merchants`. */
export type CreateMerchantInput = z.input<typeof schemas.createMerchant>;
/** Body of `PATCH /_cabinet/merchants/{id}`. */
export type UpdateMerchantInput = z.input<typeof schemas.updateMerchant>;
/** Body of `PATCH /_cabinet/terminals/{id}`. */
export type UpdateTerminalInput = z.input<typeof schemas.updateTerminal>;
/** Body of `POST /_cabinet/terminals/{id}/api-keys`. */
export type CreateApiKeyInput = z.input<typeof schemas.createApiKey>;
/** Body of `PUT /_simulator/webhook-chaos`, and `webhookChaos` of the reference's options. */
export type WebhookChaosInput = z.input<typeof schemas.webhookChaos>;
/** Body of `POST /_simulator/clock/advance`. */
export type AdvanceClockInput = z.input<typeof schemas.advanceClock>;

/** Validates a control-surface body; a 400 `bad_request` naming each bad field otherwise. */
export function parseControl<K extends keyof typeof schemas>(
  kind: K,
  input: unknown,
): z.output<(typeof schemas)[K]> {
  return parseBody(schemas[kind], input ?? {}) as z.output<(typeof schemas)[K]>;
}
