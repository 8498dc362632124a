import { randomToken } from './ids.js';

/**
 * Fewest characters an admin token may have. The reference makes its own (`adm_` plus 40 random characters, 206
 * bits); one from a snapshot or `PSP_ADMIN_TOKEN` is held to the same floor, so an empty or guessable token never
 * opens the control surface.
 */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
const MAX_LENGTH = 256;
// What a Bearer token can carry unchanged (auth.ts reads `Bearer (\S+)`): visible ASCII, no white space.
const TOKEN_RE = /^[\x21-\x7e]+$/;

/** A new admin token: `adm_` plus 40 random lowercase letters and digits. */
export const newAdminToken = (): string => `adm_${randomToken(40)}`;

/**
 * Why `token` cannot be an admin token, or `undefined` when it can: the one rule of a snapshot's `admin_token` and
 * of `psp-reference trigger --admin-token` / `PSP_ADMIN_TOKEN`. The message never quotes the token.
 *
 * @example adminTokenProblem('x') // 'must be at least 32 characters'
 */
export function adminTokenProblem(token: string): string | undefined {
  if (token.length < ADMIN_TOKEN_MIN_LENGTH) return `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters`;
  if (token.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`;
  if (!TOKEN_RE.test(token)) return 'must be visible ASCII characters without white space';
  return undefined;
}
