/**
 * The `psp-mcp` bin: a shebang in front of the CLI, which is built with the package's other ESM entries
 * (dist/mcp/cli.js) and shares their chunks, as `psp-reference`'s bin does. Loaded dynamically so that a missing
 * optional peer is named with the command that installs it, not as a resolver's stack.
 */
import('./cli.js').catch((error: unknown) => {
  const message = (error as Error)?.message ?? String(error);
  const missingPeer =
    (error as { code?: unknown })?.code === 'ERR_MODULE_NOT_FOUND' &&
    message.includes('@modelcontextprotocol/sdk');
  process.stderr.write(
    missingPeer
      ? 'psp-mcp: the MCP SDK is not installed; it is an optional peer of psp-sdk: npm install --save-dev @modelcontextprotocol/sdk\n'
      : `psp-mcp: ${message}\n`,
  );
  process.exitCode = 1;
});
