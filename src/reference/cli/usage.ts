/**
 * A command-line option written once: what node's `parseArgs` reads and the words `--help` prints, so the help
 * cannot name an option the parser lacks, or miss one it has.
 */
export interface CliOption {
  readonly type: 'string' | 'boolean';
  readonly short?: string | undefined;
  readonly default?: string | boolean | undefined;
  /** The value's placeholder in the help (`<address>`), for a string option. */
  readonly value?: string | undefined;
  /** What the option does, as one paragraph; {@link optionsHelp} wraps it. */
  readonly help: string;
}

const COLUMN = 24;
const WIDTH = 104;

/** Words wrapped into lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/**
 * The `Options:` block of a `--help` text: one entry per option in the table's order, the flag in a column of its
 * own and the help wrapped beside it (under it, when the flag is wider than the column).
 *
 * @example
 * optionsHelp({ port: { type: 'string', value: '<number>', help: 'port to bind' } });
 * // '  --port <number>       port to bind'
 */
export function optionsHelp(options: Readonly<Record<string, CliOption>>): string {
  return Object.entries(options)
    .flatMap(([name, o]) => {
      const flag = `  ${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}`;
      const [first = '', ...rest] = wrap(o.help, WIDTH - COLUMN);
      const indent = ' '.repeat(COLUMN);
      const head = flag.length < COLUMN ? [flag.padEnd(COLUMN) + first] : [flag, indent + first];
      return [...head, ...rest.map((line) => indent + line)];
    })
    .join('\n');
}

/**
 * The table as node's `parseArgs` takes it: the help words left out.
 *
 * @example
 * parseArgs({ args, strict: true, options: parserOptions(OPTIONS) });
 */
export function parserOptions<T extends Record<string, CliOption>>(
  options: T,
): { [K in keyof T]: Omit<T[K], 'help' | 'value'> } {
  return Object.fromEntries(
    Object.entries(options).map(([name, { help: _help, value: _value, ...rest }]) => [name, rest]),
  ) as { [K in keyof T]: Omit<T[K], 'help' | 'value'> };
}
