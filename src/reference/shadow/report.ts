import { formsOnly, redactSecrets } from '../../internal/redact.js';
import type { OperationName } from '../../schemas/operations.js';
import { Fifo } from '../util/fifo.js';
import type { ComparedAnswer, Difference } from './compare.js';

/** One side's answer in the report: status, the headers safe to show, the body; secrets redacted. */
export interface ShadowAnswer {
  /** The status, or null when there was none (the upstream unreachable, the replay reset). */
  status: number | null;
  headers: Record<string, string>;
  /** The JSON body, or its text cut at 8 KiB when it is not JSON or longer. */
  body: unknown;
}

/** A request whose two answers differed, with both answers. */
export interface ShadowItem {
  /** Its place among the requests the shadow compared, from 1. */
  seq: number;
  /** When it arrived (wall clock, RFC 3339). */
  time: string;
  operation: OperationName | null;
  method: string;
  /** The path as the caller sent it (the upstream's ids). */
  path: string;
  differences: Difference[];
  upstream: ShadowAnswer;
  /** The in-process reference's answer to the replay. */
  reference: ShadowAnswer;
}

/** `GET /_shadow/report`: counts, and each request that differed (the newest `maxReport`). */
export interface ShadowReport {
  /** Public requests compared so far. */
  compared: number;
  /** Of those, how many differed. */
  differing: number;
  /** Differing requests the bound pushed out of `items`. */
  dropped: number;
  /** Public requests not compared: the upstream's answer was over `maxCompareBytes`, passed to the caller unread. */
  too_large: number;
  items: ShadowItem[];
}

const MAX_BODY_TEXT = 8 * 1024;

// A field's value in a difference is a leaf (objects and arrays are compared by their fields): only text is long.
const cutValue = (v: unknown) => (typeof v === 'string' && v.length > 256 ? `${v.slice(0, 256)}…` : v);

/** An answer as the report shows it. Exported for the shadow's own failures (no answer at all). */
export function shown(answer: ComparedAnswer | undefined, text = ''): ShadowAnswer {
  if (!answer) return { status: null, headers: {}, body: redactSecrets(text) };
  const json = answer.body === undefined ? text : JSON.stringify(answer.body);
  const body =
    answer.body !== undefined && json.length <= MAX_BODY_TEXT
      ? formsOnly.deep(answer.body, 64)
      : redactSecrets(json.length > MAX_BODY_TEXT ? `${json.slice(0, MAX_BODY_TEXT)}…` : json);
  return { status: answer.status, headers: formsOnly.headers(answer.headers), body };
}

/** The differences found so far, bounded. */
export class ShadowRecorder {
  readonly #max: number;
  readonly #items = new Fifo<ShadowItem>();
  #compared = 0;
  #differing = 0;
  #dropped = 0;
  #tooLarge = 0;

  constructor(maxReport: number) {
    this.#max = maxReport;
  }

  /** Counts one comparison and keeps it when it differed; returns its `seq`. */
  add(item: Omit<ShadowItem, 'seq'>): number {
    const seq = ++this.#compared;
    if (item.differences.length === 0) return seq;
    this.#differing++;
    const differences = item.differences.map((d) => ({
      ...d,
      upstream: formsOnly.deep(cutValue(d.upstream)),
      replay: formsOnly.deep(cutValue(d.replay)),
    }));
    this.#items.push({ seq, ...item, differences });
    if (this.#items.size > this.#max) {
      this.#items.shift();
      this.#dropped++;
    }
    return seq;
  }

  /** Counts a public request whose answer was too large to compare. */
  tooLarge(): void {
    this.#tooLarge++;
  }

  report(): ShadowReport {
    return {
      compared: this.#compared,
      differing: this.#differing,
      dropped: this.#dropped,
      too_large: this.#tooLarge,
      items: [...this.#items],
    };
  }
}

const brief = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
const answerLine = (a: ShadowAnswer) =>
  `${a.status ?? 'no answer'} ${cut(JSON.stringify(a.body) ?? '', 500)}`;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The report as text for a person: the counts, then each differing request with its differences and both
 * answers (what `psp-reference shadow` prints at exit).
 *
 * @example shadowSummary(shadow.report());
 */
export function shadowSummary(report: ShadowReport): string {
  const lines = [
    `shadow: ${report.compared} requests compared, ${report.differing} differed from the reference` +
      (report.dropped ? ` (the first ${report.dropped} of them no longer kept)` : '') +
      (report.too_large ? `; ${report.too_large} answers too large to compare, passed through unread` : ''),
  ];
  for (const item of report.items) {
    lines.push(`#${item.seq} ${item.method} ${item.path}${item.operation ? ` (${item.operation})` : ''}`);
    for (const d of item.differences) {
      lines.push(
        `  ${d.kind}${d.field ? ` ${d.field}` : ''}: upstream ${brief(d.upstream)}, reference ${brief(d.replay)}`,
      );
    }
    lines.push(`  upstream:  ${answerLine(item.upstream)}`, `  reference: ${answerLine(item.reference)}`);
  }
  return `${lines.join('\n')}\n`;
}
