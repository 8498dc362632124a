/**
 * The `psp-mcp` bin: a shebang in front of the CLI, which is built with the package's other ESM entries
 * (dist/mcp/cli.js) and shares their chunks, as `psp-reference`'s bin does.
 */
import './cli.js';
