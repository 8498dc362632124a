/**
 * The request journal: what the public API received, for a merchant's own tests to assert on ("checkout sent one
 * create, with an Idempotency-Key, and retried it once"). Facts only: no key, no secret, and no body text unless
 * asked for. Bounded in entries and bytes; the oldest go first and are counted.
 *
 * The text a client sent (the path, the Idempotency-Key, the body) is kept as sent and redacted when it is read:
 * every request is journaled and few are ever read, so a request pays nothing for the redaction, and no reader sees
 * an entry but through `list`.
 */
import type { Redactor } from '../../internal/redact.js';
import { CODE } from '../../schemas/errors.js';
import { OPERATIONS, type OperationName } from '../../schemas/operations.js';
import { refuse } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { utf8Length } from '../domain/quota.js';
import { Fifo } from '../util/fifo.js';

/**
 * One public request as the journal keeps it. Data keeps the wire's snake_case names: the same object is what
 * `GET /_simulator/requests` answers.
 */
export interface JournalEntry {
  /** Its place in the journal, from 1, never reused (not even after a clear). */
  seq: number;
  /** When it arrived, on the service clock (RFC 3339). */
  time: string;
  /** The operation of spec section 4 (`payments.create`), or null for a path and method of none (a 404 or 405). */
  operation: OperationName | null;
  method: string;
  /** The path, without the query. */
  path: string;
  /** The status answered, or null when the connection was reset with no answer (a fault rule). */
  status: number | null;
  /** The error body's `code` for a refusal, else null. */
  error_code: string | null;
  /** The answer's `Retry-After`, in seconds, when it had one (a 429, a 503), else null. */
  retry_after: number | null;
  /** The `Idempotency-Key` header as sent (redacted, at most 255 characters), or null. */
  idempotency_key: string | null;
  /** The `X-Request-Id` of the answer, or null when there was none (a reset). */
  request_id: string | null;
  /** The merchant of the API key, when section 5 got as far as knowing it; else null. */
  merchant_id: string | null;
  /** The body's length in bytes, or null when the service never read it (refused before, or no route). */
  body_bytes: number | null;
  /** SHA-256 of the body's bytes as lowercase hex (the same bytes give the same digest), or null as above. */
  body_sha256: string | null;
  /**
   * The body as UTF-8 text with secrets redacted, cut at 16 KiB, when the journal keeps bodies
   * (`journal: { bodies: true }`); null when the body was never read. Absent otherwise.
   */
  body?: string | null | undefined;
}

/** What `ref.requests()` and `GET /_simulator/requests` answer. */
export interface JournalPage {
  /** The entries that match, oldest first. */
  items: JournalEntry[];
  /** How many entries the bound pushed out since the journal was last cleared (never shown again). */
  dropped: number;
}

/**
 * Filters of `ref.requests()`; each is optional and they combine with AND. `GET /_simulator/requests` takes the
 * same names as query parameters.
 *
 * @example ref.requests({ operation: 'payments.create', merchant: ref.merchant_id })
 */
export interface JournalFilter {
  /** Only this operation (`payments.create`). */
  operation?: OperationName | undefined;
  /** Only requests that arrived at or after this time on the service clock (RFC 3339, or a Date). */
  since?: string | Date | undefined;
  /** Only this merchant's requests. */
  merchant?: string | undefined;
}

/**
 * Options of the journal (`createReference({ journal })`).
 *
 * @example createReference({ journal: { bodies: true } })
 */
export interface JournalOptions {
  /** Keep each body's text, secrets redacted, cut at 16 KiB. Default false: size and digest only. */
  bodies?: boolean | undefined;
  /** Most entries kept; 0 keeps none. Default 1,000. */
  maxEntries?: number | undefined;
  /** Most bytes of entries kept (as JSON). Default 4 MiB. */
  maxBytes?: number | undefined;
}

/** The most characters of a body the journal shows. */
export const MAX_JOURNAL_BODY = 16 * 1024;
const MAX_PATH = 200;
const MAX_KEY = 255;
// Kept past what is shown: a secret, or an encoding of one, that runs across the cut is still whole when the
// redaction reads it, so the part shown before the cut is masked as it would be in the whole text.
const SLACK = 1024;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

// Counted, not encoded: an encoding would copy every entry once more.
const bytesOf = (entry: JournalEntry) => utf8Length(JSON.stringify(entry));

function bound(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`journal.${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

/** The public requests of one reference, newest last, bounded in entries and bytes. */
export class RequestJournal {
  readonly bodies: boolean;
  readonly #clock: Clock;
  readonly #redact: Redactor;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #entries = new Fifo<{ entry: JournalEntry; bytes: number }>();
  #bytes = 0;
  #dropped = 0;
  #seq = 0;

  /**
   * `redact`: the owner's redaction, applied to what a reader is shown.
   * @throws TypeError for a bound that is not a non-negative integer.
   */
  constructor(clock: Clock, redact: Redactor, options: JournalOptions = {}) {
    this.#clock = clock;
    this.#redact = redact;
    this.bodies = options.bodies ?? false;
    this.#maxEntries = bound('maxEntries', options.maxEntries, 1000);
    this.#maxBytes = bound('maxBytes', options.maxBytes, 4 * 1024 * 1024);
  }

  /** The service clock's time now, as an entry's `time`. */
  now(): string {
    return new Date(this.#clock.now()).toISOString();
  }

  /**
   * Adds an entry (its `seq` is given here), pushing out the oldest past either bound. `path`, `idempotency_key`
   * and `body` come as sent: they are redacted and cut when read.
   */
  record(fields: Omit<JournalEntry, 'seq'>): void {
    const { path, idempotency_key: key, body } = fields;
    const entry: JournalEntry = {
      seq: ++this.#seq,
      ...fields,
      path: cut(path, MAX_PATH + SLACK),
      idempotency_key: key === null ? null : cut(key, MAX_KEY + SLACK),
      ...(typeof body === 'string' ? { body: cut(body, MAX_JOURNAL_BODY + SLACK) } : {}),
    };
    const bytes = bytesOf(entry);
    this.#entries.push({ entry, bytes });
    this.#bytes += bytes;
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const old = this.#entries.shift();
      if (!old) break;
      this.#bytes -= old.bytes;
      this.#dropped++;
    }
  }

  /** The entries that match `filter`, oldest first; a bad filter is a DomainError 400 `bad_request`. */
  list(filter: JournalFilter = {}): JournalPage {
    const { operation, merchant } = filter;
    if (operation !== undefined && !Object.hasOwn(OPERATIONS, operation)) {
      throw refuse(CODE.bad_request, `operation must be one of ${Object.keys(OPERATIONS).join(', ')}.`);
    }
    const since = sinceMs(filter.since);
    const items: JournalEntry[] = [];
    for (const { entry } of this.#entries) {
      const match =
        (operation === undefined || entry.operation === operation) &&
        (merchant === undefined || entry.merchant_id === merchant) &&
        (since === undefined || Date.parse(entry.time) >= since);
      // A copy out: a caller's change to an entry does not change the journal.
      if (match) items.push(this.#shown(entry));
    }
    return { items, dropped: this.#dropped };
  }

  /** What a reader sees of `entry`: a copy, its text from the client redacted and cut. */
  #shown(entry: JournalEntry): JournalEntry {
    const show = (text: string, max: number) => cut(this.#redact.text(text), max);
    const { idempotency_key: key, body } = entry;
    return {
      ...entry,
      path: show(entry.path, MAX_PATH),
      idempotency_key: key === null ? null : show(key, MAX_KEY),
      ...(typeof body === 'string' ? { body: show(body, MAX_JOURNAL_BODY) } : {}),
    };
  }

  /**
   * Forgets every entry and the dropped count (`DELETE /_simulator/requests`, and a restore); with `merchant`, that
   * merchant's entries alone (a merchant admin token's clear), the dropped count kept.
   */
  clear(merchant?: string): void {
    if (merchant === undefined) {
      this.#entries.clear();
      this.#bytes = 0;
      this.#dropped = 0;
      return;
    }
    const kept = new Fifo<{ entry: JournalEntry; bytes: number }>();
    this.#bytes = 0;
    for (const item of this.#entries) {
      if (item.entry.merchant_id === merchant) continue;
      kept.push(item);
      this.#bytes += item.bytes;
    }
    this.#entries = kept;
  }

  /** Entries held now and their bytes (for tests of the bound). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }
}

// RFC 3339 with a zone, as every time the service shows; a bare date or a local time would be read in the
// caller's zone by Date.parse.
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function sinceMs(since: string | Date | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms =
    since instanceof Date ? since.getTime() : RFC3339_RE.test(since) ? Date.parse(since) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw refuse(CODE.bad_request, 'since must be an RFC 3339 time such as 2026-05-06T10:00:00Z.');
  }
  return ms;
}
