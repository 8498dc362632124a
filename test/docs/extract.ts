import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Pulls the TypeScript code blocks out of Markdown so the docs can be type-checked like source.
 * A fence opening with ```ts or ```typescript is checked; ```ts nocheck opts a deliberately partial block out.
 * Words after the language are kept as flags (`norun`, `run`) for the test that executes blocks.
 */
export interface DocBlock {
  /** Markdown file, relative to the project root. */
  file: string;
  /** 1-based line of the block's first code line in the Markdown file. */
  line: number;
  code: string;
  /** Words after the language on the fence line, e.g. `norun` in ```ts norun. */
  flags: string[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/;

/** Every checked ts block of one Markdown text, in order. */
export function extractTsBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  let open:
    | { fence: string; indent: string; check: boolean; flags: string[]; start: number; body: string[] }
    | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (!open) {
      const m = FENCE.exec(text);
      if (!m) continue;
      const lang = (m[3] ?? '').toLowerCase();
      const flags = (m[4] ?? '').trim().split(/\s+/).filter(Boolean);
      const isTs = lang === 'ts' || lang === 'typescript';
      open = {
        fence: m[2] ?? '```',
        indent: m[1] ?? '',
        check: isTs && !flags.includes('nocheck'),
        flags,
        start: i + 2,
        body: [],
      };
      continue;
    }
    const closing = text.trim();
    if (closing.startsWith(open.fence[0]!.repeat(open.fence.length)) && /^[`~]+$/.test(closing)) {
      if (open.check) blocks.push({ file, line: open.start, code: open.body.join('\n'), flags: open.flags });
      open = undefined;
      continue;
    }
    open.body.push(text.startsWith(open.indent) ? text.slice(open.indent.length) : text);
  }
  return blocks;
}

/** The package's entry points, as the docs import them, and the sources the tests run them from. */
export const DOC_ENTRIES: Record<string, string> = {
  'psp-sdk': 'src/index.ts',
  'psp-sdk/webhooks': 'src/webhooks/index.ts',
  'psp-sdk/replicas': 'src/replicas/index.ts',
  'psp-sdk/conformance': 'src/conformance/index.ts',
  'psp-sdk/reference': 'src/reference/index.ts',
  'psp-sdk/reference/msw': 'src/reference/msw.ts',
  'psp-sdk/mcp': 'src/mcp/index.ts',
};

/**
 * A block's code with its `psp-sdk` imports pointed at the sources under `root`.
 *
 * @example localise("import { PspClient } from 'psp-sdk';", root) // from 'file:///.../src/index.ts'
 */
export function localise(code: string, root: string): string {
  return code.replace(/from '(psp-sdk(?:\/[\w/]+)?)'/g, (whole, spec: string) => {
    const target = DOC_ENTRIES[spec];
    return target ? `from '${pathToFileURL(join(root, target)).href}'` : whole;
  });
}
