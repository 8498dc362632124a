/**
 * Largest snapshot a restore reads, in bytes of its JSON text: `POST /_simulator/restore`'s body and a `--state`
 * file. A restore is one synchronous step (the whole document is checked before anything is swapped), so the
 * service answers nothing else while it runs; the cap keeps that step to about a second or two (measured figures in
 * docs/reference.md, "State").
 *
 * @example
 * import { MAX_RESTORE_BYTES } from './limits.js';
 * const raw = await bodyOf(c, MAX_RESTORE_BYTES); // past it: 400 bad_request, "Payload too large"
 */
export const MAX_RESTORE_BYTES = 32 * 1024 * 1024;
