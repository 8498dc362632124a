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
