/**
 * What shadow mode compares of two answers to one request: the status, the error code where the spec names one,
 * the set and types of the fields, the values the spec fixes, the forms it fixes of values it leaves to the server
 * (a bank's 12-digit `member_id`), and the headers the spec names. Values the spec leaves to the server (ids,
 * times, URLs, prose) are compared by type only.
 */
import { CODE, ERROR_CODES } from '../../schemas/errors.js';
import { BANK_ID_RE } from '../../schemas/limits.js';

/** An answer as shadow mode holds it: status, the headers the spec names, and the parsed JSON body. */
export interface ComparedAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown;
}

/**
 * One way the upstream's answer differs from the reference's. `field` is a path such as `payment.status` or
 * `items[].id`; `missing_field` is one the upstream lacks, `extra_field` one only the upstream has.
 */
export interface Difference {
  kind:
    | 'status'
    | 'error_code'
    | 'missing_field'
    | 'extra_field'
    | 'field_type'
    | 'field_value'
    | 'field_form'
    | 'header';
  /**
   * The field or header it is about; absent for the status and the error code. A `field_form` is a value of a
   * form the spec fixes (`member_id`: 12 digits) that does not have it, on either side.
   */
  field?: string | undefined;
  /** What the upstream answered there (`undefined` when it had nothing). */
  upstream: unknown;
  /** What the in-process reference answered there. */
  replay: unknown;
}

// Headers of an answer the spec names (section 3 and 7): compared by presence, the media type by value.
const SPEC_HEADERS = ['content-type', 'retry-after'] as const;

/** Fields whose value the server chooses: ids, times, URLs and prose; their type is still compared. */
function serverChosen(path: string): boolean {
  const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
  return (
    name === 'id' ||
    name.endsWith('_id') ||
    name.endsWith('_at') ||
    name === 'url' ||
    name.endsWith('_url') ||
    name === 'message' ||
    name.endsWith('_message') ||
    name === 'bank_ref'
  );
}

// The codes spec section 7 names: each has a client class of its own, and 400's `bad_request`. Any other code
// (the 401's, the 404's, a 429's) the spec leaves to the server: two such codes are not a difference.
const NAMED_CODES = new Set<unknown>(
  Object.entries(ERROR_CODES)
    .filter(([code, info]) => info.class !== undefined || code === CODE.bad_request)
    .map(([code]) => code),
);

// Values the server chooses whose form the spec fixes (section 3's SBPBank, the payout's `bank_id`).
const FORMS: Record<string, RegExp> = { member_id: BANK_ID_RE, bank_id: BANK_ID_RE };
const formOf = (path: string) => FORMS[path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '')];

type Leaf = { type: string; value?: unknown };

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * Every field of `value` by its path, with its JSON type, and its value when it is a leaf. Array elements share
 * the path `name[]`; the first element that has a field decides its value (order is the server's).
 */
function flatten(value: unknown, path = '', out = new Map<string, Leaf>()): Map<string, Leaf> {
  const type = typeOf(value);
  if (path && !out.has(path))
    out.set(path, type === 'object' || type === 'array' ? { type } : { type, value });
  if (type === 'array') for (const item of value as unknown[]) flatten(item, `${path}[]`, out);
  else if (type === 'object') {
    for (const [k, v] of Object.entries(value as object)) flatten(v, path ? `${path}.${k}` : k, out);
  }
  return out;
}

const errorCode = (a: ComparedAnswer) =>
  a.status >= 400
    ? ((a.body as { error?: { code?: unknown } | undefined } | undefined)?.error?.code ?? null)
    : null;

const mediaType = (h: Headers) => h.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? null;

/**
 * The differences between the upstream's answer and the in-process reference's, in a stable order: status, error
 * code, headers, then fields by path.
 *
 * @example compareAnswers(upstream, replay); // [{ kind: 'status', upstream: 200, replay: 201 }]
 */
export function compareAnswers(upstream: ComparedAnswer, replay: ComparedAnswer): Difference[] {
  const out: Difference[] = [];
  if (upstream.status !== replay.status) {
    out.push({ kind: 'status', upstream: upstream.status, replay: replay.status });
  }
  const [codeU, codeR] = [errorCode(upstream), errorCode(replay)];
  if (codeU !== codeR && (NAMED_CODES.has(codeU) || NAMED_CODES.has(codeR)))
    out.push({ kind: 'error_code', upstream: codeU, replay: codeR });
  for (const name of SPEC_HEADERS) {
    const [u, r] = [upstream.headers.get(name), replay.headers.get(name)];
    const differ =
      name === 'content-type'
        ? mediaType(upstream.headers) !== mediaType(replay.headers)
        : (u === null) !== (r === null);
    if (differ) out.push({ kind: 'header', field: name, upstream: u ?? undefined, replay: r ?? undefined });
  }
  // An error body's message is prose; its fields are compared like any other.
  const [u, r] = [flatten(upstream.body), flatten(replay.body)];
  for (const path of [...new Set([...u.keys(), ...r.keys()])].sort()) {
    const a = u.get(path);
    const b = r.get(path);
    const form = formOf(path);
    const misfit = (leaf: Leaf | undefined) => leaf && 'value' in leaf && !form?.test(String(leaf.value));
    if (form && (misfit(a) || misfit(b))) {
      out.push({ kind: 'field_form', field: path, upstream: a?.value, replay: b?.value });
    }
    if (!a)
      out.push({ kind: 'missing_field', field: path, upstream: undefined, replay: b!.value ?? b!.type });
    else if (!b)
      out.push({ kind: 'extra_field', field: path, upstream: a.value ?? a.type, replay: undefined });
    else if (a.type !== b.type)
      out.push({ kind: 'field_type', field: path, upstream: a.type, replay: b.type });
    // The error code was compared above, as far as the spec names it.
    else if ('value' in a && !serverChosen(path) && path !== 'error.code' && a.value !== b.value) {
      out.push({ kind: 'field_value', field: path, upstream: a.value, replay: b.value });
    }
  }
  return out;
}
