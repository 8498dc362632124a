/**
 * Largest snapshot `POST /_simulator/restore` reads, in bytes of its JSON text. A restore is one synchronous step
 * (the whole document is checked before anything is swapped), so the service answers nothing else while it runs;
 * the cap keeps that step to about a second (16 MiB: 0.9-1.0 s of CPU; 32 MiB took 2.1-2.6 s; figures in
 * docs/reference.md, "State").
 *
 * @example
 * import { MAX_RESTORE_BYTES } from './limits.js';
 * const raw = await bodyOf(c, MAX_RESTORE_BYTES); // past it: 400 bad_request, "Payload too large"
 */
export const MAX_RESTORE_BYTES = 16 * 1024 * 1024;

/**
 * Largest `--state` file a start reads. Nothing is served yet while it loads, so the restore cap's reason does not
 * hold there; a state the service held and wrote (one merchant's storage bound alone is 128 MiB) must load again.
 * This bound only keeps a foreign or runaway file from taking the process's memory at start.
 *
 * @example
 * if ((await stat(path)).size > MAX_STATE_FILE_BYTES) throw new StateFileError(`${path} is too large`);
 */
export const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;
