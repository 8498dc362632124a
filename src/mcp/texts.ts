// The spec and the guides psp-mcp serves, put here by the bundler at build time (scripts/build-mcp-texts.mjs: the
// build, the tests' bundles and vitest each define the name), so the package reads no file for them at run time.

/** What the build put in: the spec's markdown and each served guide's, by name (`docs/<name>.md`). */
export interface McpTexts {
  spec: string;
  docs: Record<string, string>;
}

/** The JSON of the texts, as a string literal (scripts/build-mcp-texts.mjs says why not an object). */
declare const __PSP_MCP_TEXTS__: string;

/** The texts of this build. */
export const texts: McpTexts = JSON.parse(__PSP_MCP_TEXTS__);
