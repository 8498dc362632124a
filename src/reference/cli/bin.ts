/**
 * The `psp-reference` bin: a shebang in front of the CLI. The CLI itself is built with the package's other ESM
 * entries (dist/reference/cli.js), sharing their chunks, so the package carries one copy of the reference
 * service instead of a second one bundled into the bin.
 */
import './cli.js';
