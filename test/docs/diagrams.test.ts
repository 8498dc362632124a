import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS, MAX_ATTEMPTS } from '../../src/reference/webhooks/retries.js';
import { FINAL_PAYMENT_STATUSES, FINAL_PAYOUT_STATUSES } from '../../src/resources/wait-for.js';
import { PAYMENT_STATUSES, PAYOUT_STATUSES } from '../../src/schemas/limits.js';

/**
 * The docs' Mermaid diagrams (the forge renders them): each is written in the few line forms below, and says what
 * the code does. The state machines have exactly the schema's statuses and the reference's allowed moves; the retry
 * timeline has the dispatcher's delays.
 *
 * The forms are a strict subset of Mermaid's grammar for the two diagram types the docs use (stateDiagram-v2:
 * transitions with an optional label; timeline: a title and `period : event [: event]` lines), so a diagram that
 * passes here renders; the mermaid package itself (85 MB and 111 packages, with a DOM stub) is not needed for that.
 */
const root = join(import.meta.dirname, '..', '..');

const FORMS = {
  stateDiagram: [/^stateDiagram-v2$/, /^ {4}(\[\*\]|[a-z_]+) --> (\[\*\]|[a-z_]+)( : [^:;\n]+)?$/],
  timeline: [/^timeline$/, /^ {4}title [^:;\n]+$/, /^ {4}[^:;\s][^:;\n]*?( : [^:;\n]+)+$/],
} as const;

/** The diagram type of `source`, or the first line that none of its type's forms accepts. */
function parse(source: string): { diagramType: keyof typeof FORMS } {
  const lines = source.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('%%'));
  const type = (Object.keys(FORMS) as Array<keyof typeof FORMS>).find((t) =>
    FORMS[t][0].test(lines[0] ?? ''),
  );
  if (!type) throw new Error(`Parse error: unknown diagram type in ${JSON.stringify(lines[0])}`);
  const [, ...forms] = FORMS[type];
  for (const [i, line] of lines.slice(1).entries()) {
    if (!forms.some((form) => form.test(line)))
      throw new Error(`Parse error on line ${i + 2}: ${JSON.stringify(line)}`);
  }
  return { diagramType: type };
}

/** The diagram marked `%% psp: <name>` in `file`. */
async function diagram(file: string, name: string): Promise<string> {
  const text = await readFile(join(root, file), 'utf8');
  const found = [...text.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1] ?? '')
    .filter((body) => body.startsWith(`%% psp: ${name}\n`));
  expect(found, `${file}: one mermaid block marked %% psp: ${name}`).toHaveLength(1);
  return found[0]!;
}

interface Machine {
  states: Set<string>;
  moves: Set<string>;
  starts: Set<string>;
  ends: Set<string>;
}

function machine(source: string): Machine {
  const m: Machine = { states: new Set(), moves: new Set(), starts: new Set(), ends: new Set() };
  for (const line of source.split('\n')) {
    const edge = /^\s*(\[\*\]|\w+) --> (\[\*\]|\w+)(?: : .+)?$/.exec(line);
    if (!edge) continue;
    const [, from, to] = edge as unknown as [string, string, string];
    if (from === '[*]') m.starts.add(to);
    else if (to === '[*]') m.ends.add(from);
    else m.moves.add(`${from} -> ${to}`);
    for (const s of [from, to]) if (s !== '[*]') m.states.add(s);
  }
  return m;
}

/** The reference's `ALLOWED` table of payment moves, read from its source (it is not exported). */
async function allowedPaymentMoves(): Promise<Set<string>> {
  const src = await readFile(join(root, 'src', 'reference', 'domain', 'payments.ts'), 'utf8');
  const table = /const ALLOWED[^=]*= \{([\s\S]*?)\n\};/.exec(src)?.[1] ?? '';
  const moves = new Set<string>();
  for (const [, from, list] of table.matchAll(/^\s*(\w+): \[([^\]]*)\]/gm)) {
    for (const [, to] of (list ?? '').matchAll(/'(\w+)'/g)) moves.add(`${from} -> ${to}`);
  }
  return moves;
}

const sorted = (s: Iterable<string>) => [...s].sort();

describe('diagrams in the docs', () => {
  it('the line forms refuse a broken diagram (so that the parse below means something)', () => {
    expect(() => parse('stateDiagram-v2\n    pending --> : broken')).toThrow(/Parse error/);
    expect(() => parse('stateDiagram-v2\n    pending -> paid')).toThrow(/Parse error/);
    expect(() => parse('stateDiagram\n    pending --> paid')).toThrow(/Parse error/);
    expect(() => parse('timeline\n    title x\n    attempt 1 at once')).toThrow(/Parse error/);
    expect(parse('timeline\n    title x\n    attempt 1 : at once')).toEqual({ diagramType: 'timeline' });
    expect(parse('stateDiagram-v2\n    [*] --> pending : POST /payments')).toEqual({
      diagramType: 'stateDiagram',
    });
  });

  it.each([
    ['docs/getting-started.md', 'payment-states', 'stateDiagram'],
    ['docs/payouts.md', 'payout-states', 'stateDiagram'],
    ['docs/webhooks.md', 'webhook-retries', 'timeline'],
  ])('%s %s parses as a %s', async (file, name, type) => {
    expect(parse(await diagram(file, name))).toEqual({ diagramType: type });
  });

  it('the payment state machine: the schema’s statuses, the reference’s moves, the final statuses', async () => {
    const m = machine(await diagram('docs/getting-started.md', 'payment-states'));
    const allowed = await allowedPaymentMoves();
    expect(allowed.size).toBeGreaterThan(5); // the table was found
    expect(sorted(m.states)).toEqual(sorted(PAYMENT_STATUSES));
    expect(sorted(m.moves)).toEqual(sorted(allowed));
    expect(sorted(m.starts)).toEqual(['pending']);
    expect(sorted(m.ends)).toEqual(sorted(FINAL_PAYMENT_STATUSES));
  });

  it('the payout state machine: pending, then succeeded or failed', async () => {
    const m = machine(await diagram('docs/payouts.md', 'payout-states'));
    expect(sorted(m.states)).toEqual(sorted(PAYOUT_STATUSES));
    expect(sorted(m.moves)).toEqual(['pending -> failed', 'pending -> succeeded']);
    expect(sorted(m.starts)).toEqual(['pending']);
    expect(sorted(m.ends)).toEqual(sorted(FINAL_PAYOUT_STATUSES));
  });

  it('the retry timeline: one attempt at once, then the dispatcher’s delays, in order', async () => {
    const source = await diagram('docs/webhooks.md', 'webhook-retries');
    const attempts = [...source.matchAll(/^\s*attempt (\d+) : (.+)$/gm)];
    expect(attempts.map((a) => Number(a[1]))).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1));
    const unit = { s: 1_000, min: 60_000, h: 3_600_000 } as const;
    const delays = attempts.slice(1).map((a) => {
      const d = /^\+(\d+) (s|min|h)\b/.exec(a[2] ?? '');
      return d ? Number(d[1]) * unit[d[2] as keyof typeof unit] : Number.NaN;
    });
    expect(attempts[0]?.[2]).toBe('at once');
    expect(delays).toEqual(RETRY_DELAYS_MS);
  });
});
