import { API_KEY_RE, WEBHOOK_SECRET_RE } from '../../schemas/limits.js';
import { adminTokenProblem } from './admin-token.js';

/**
 * The credentials a configuration may fix instead of the reference making new ones at each start (CLI
 * `--api-key`, `--admin-token`, `--webhook-secret`; `createReference({ apiKey, adminToken, webhookSecret })`).
 * A fixed one sits in config files and CI variables, so it is held to its form and refused when it is guessable:
 * a reference that listens beyond loopback opens its control surface to whoever guesses the admin token.
 */
export interface FixedCredentials {
  /** The startup merchant's test key: `sk_test_<6 letters or digits>_<secret>` (spec 5.2). */
  apiKey?: string | undefined;
  /** The Bearer token of `/_cabinet` and `/_simulator`: 32 to 256 visible ASCII characters. */
  adminToken?: string | undefined;
  /** The `whs_` secret of every webhook endpoint made on the startup shop (until rotated). */
  webhookSecret?: string | undefined;
}

/** Fewest characters of a fixed key's or webhook secret's secret part (the reference's own have 32 and 64). */
export const MIN_SECRET_CHARS = 24;
/** Least estimated entropy, in bits, of a fixed credential's secret part (the reference's own have 165 or more). */
export const MIN_SECRET_BITS = 64;
const MAX_CHARS = 256;

/**
 * Thrown for a fixed credential of a bad form, a weak one, or one that a starting state contradicts. Its message
 * names the option and the rule, never the value.
 */
export class FixedCredentialError extends TypeError {
  override readonly name = 'FixedCredentialError';
}

/**
 * Why `secret` is guessable, or `undefined`: too short, one shorter run repeated, mostly a sequence (`abcd...`,
 * `1234...`, `aaaa...`), or too few bits by its own character counts (an estimate: random text of the key
 * alphabet has about 5.9 bits a character, hex about 4).
 *
 * @example weakness('abcabcabcabcabcabcabcabcabc') // 'repeats a shorter run of characters'
 */
export function weakness(secret: string, minChars = MIN_SECRET_CHARS): string | undefined {
  if (secret.length < minChars) return `is too short: at least ${minChars} characters`;
  // A shorter unit repeated, the last time perhaps cut short (`abcabcab`): a period of at most half the length.
  for (let period = 1; period * 2 <= secret.length; period++) {
    let i = period;
    while (i < secret.length && secret[i] === secret[i - period]) i++;
    if (i === secret.length) return 'repeats a shorter run of characters';
  }
  // Pairs of equal or neighbouring characters (`aa`, `ab`, `21`) over three quarters of the pairs: a run typed by
  // hand, not chance. Over half refused a random hex value now and then (each pair has about a one in six chance).
  let steps = 0;
  for (let i = 1; i < secret.length; i++) {
    if (Math.abs(secret.charCodeAt(i) - secret.charCodeAt(i - 1)) <= 1) steps++;
  }
  if (steps * 4 > (secret.length - 1) * 3)
    return 'is mostly a run of neighbouring characters (abcd..., 1234...)';
  const counts = new Map<string, number>();
  for (const c of secret) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bitsPerChar = 0;
  for (const n of counts.values()) bitsPerChar -= (n / secret.length) * Math.log2(n / secret.length);
  if (bitsPerChar * secret.length < MIN_SECRET_BITS)
    return `has too little entropy (under ${MIN_SECRET_BITS} bits by its character counts); use a random value`;
  return undefined;
}

/**
 * Why `apiKey` cannot be the startup merchant's key, or `undefined` when it can. Never quotes the key.
 *
 * @example apiKeyProblem('sk_live_ab12cd_...') // 'must be a test key, not a live one: ...'
 */
export function apiKeyProblem(apiKey: string): string | undefined {
  if (!API_KEY_RE.test(apiKey) || apiKey.length > MAX_CHARS)
    return "must be an API key of the spec's form (5.2: the test prefix, 6 letters or digits, an underscore, the secret), at most 256 characters";
  if (!apiKey.startsWith('sk_test_'))
    return "must be a test key, not a live one: the startup merchant's live mode is off";
  const why = weakness(apiKey.slice('sk_test_xxxxxx_'.length));
  return why && `is weak: its secret part ${why}`;
}

/**
 * Why `token` cannot be a fixed admin token, or `undefined`: the admin token's form (admin-token.ts) and not weak.
 *
 * @example fixedAdminTokenProblem('x'.repeat(40)) // 'is weak: it repeats a shorter run of characters'
 */
export function fixedAdminTokenProblem(token: string): string | undefined {
  const why = weakness(token);
  return adminTokenProblem(token) ?? (why && `is weak: it ${why}`);
}

/**
 * Why `secret` cannot be the startup shop's webhook secret, or `undefined`. Never quotes it.
 *
 * @example webhookSecretProblem('thm_...') // "must be a webhook secret of the contract's form ..."
 */
export function webhookSecretProblem(secret: string): string | undefined {
  if (!WEBHOOK_SECRET_RE.test(secret) || secret.length > MAX_CHARS)
    return "must be a webhook secret of the contract's form (the whs prefix and an underscore, then letters, digits or ._~+/=-), at most 256 characters";
  const why = weakness(secret.slice('whs_'.length));
  return why && `is weak: its secret part ${why}`;
}

/**
 * Checks the given credentials; throws {@link FixedCredentialError} naming the option (`names` spells it, the
 * CLI's flag or the option's name) on the first bad one.
 */
export function checkFixedCredentials(
  fixed: FixedCredentials,
  names: Record<keyof FixedCredentials, string> = {
    apiKey: 'apiKey',
    adminToken: 'adminToken',
    webhookSecret: 'webhookSecret',
  },
): void {
  const rules = {
    apiKey: apiKeyProblem,
    adminToken: fixedAdminTokenProblem,
    webhookSecret: webhookSecretProblem,
  };
  for (const key of ['apiKey', 'adminToken', 'webhookSecret'] as const) {
    const value = fixed[key];
    if (value === undefined) continue;
    const problem = typeof value === 'string' ? rules[key](value) : 'must be a string';
    if (problem) throw new FixedCredentialError(`${names[key]} ${problem} (its value is not shown)`);
  }
}
