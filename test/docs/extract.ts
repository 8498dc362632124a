/**
 * Pulls the TypeScript code blocks out of Markdown so the docs can be type-checked like source.
 * A fence opening with ```ts or ```typescript is checked; ```ts nocheck opts a deliberately partial block out.
 */
export interface DocBlock {
  /** Markdown file, relative to the project root. */
  file: string;
  /** 1-based line of the block's first code line in the Markdown file. */
  line: number;
  code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/;

/** Every checked ts block of one Markdown text, in order. */
export function extractTsBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  let open: { fence: string; indent: string; check: boolean; start: number; body: string[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (!open) {
      const m = FENCE.exec(text);
      if (!m) continue;
      const lang = (m[3] ?? '').toLowerCase();
      const info = (m[4] ?? '').trim().split(/\s+/);
      const isTs = lang === 'ts' || lang === 'typescript';
      open = {
        fence: m[2] ?? '```',
        indent: m[1] ?? '',
        check: isTs && !info.includes('nocheck'),
        start: i + 2,
        body: [],
      };
      continue;
    }
    const closing = text.trim();
    if (closing.startsWith(open.fence[0]!.repeat(open.fence.length)) && /^[`~]+$/.test(closing)) {
      if (open.check) blocks.push({ file, line: open.start, code: open.body.join('\n') });
      open = undefined;
      continue;
    }
    open.body.push(text.startsWith(open.indent) ? text.slice(open.indent.length) : text);
  }
  return blocks;
}
