// Types of scripts/build-mcp-texts.mjs, for the TypeScript files that import it (tsup.config.ts, vitest.config.ts,
// test/support/global-setup.ts).
export declare const SPEC_FILE: string;
export declare const TEXTS_GLOBAL: '__PSP_MCP_TEXTS__';
export declare function mcpTexts(): { spec: string; docs: Record<string, string> };
export declare function mcpTextsDefine(): Record<string, string>;
