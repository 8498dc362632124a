/**
 * Checks answers of the reference against its OpenAPI document (openapi.json): the status must be one the document
 * lists for the operation, and a JSON body must be valid against that status's schema. Wrap a reference's `fetch`
 * with {@link checkedFetch} in a test helper and every answer of those tests is checked, so the document and the
 * service cannot drift apart unnoticed.
 *
 * The schemas are checked by Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) with ajv-formats.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import document from '../../openapi.json' with { type: 'json' };

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
};
const doc = document as unknown as Doc;

const DOC_ID = 'https://psp-sdk.invalid/openapi.json';
// strict: false: the document's other keys (paths, info, ...) are not JSON Schema keywords; only its schemas are
// compiled, through their JSON pointers.
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ ...document, $id: DOC_ID });

/** Each operation's path as a regex over a request path, with its document key. */
const ROUTES = Object.keys(doc.paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/\{[^/]+\}/g, '[^/]+')}$`),
}));

/** Answers checked so far, by `METHOD template status`: the tests' coverage of the document. */
export const checkedAnswers = new Map<string, number>();

/** Where a request lands in the document: its path template and operation, or `undefined` for no operation. */
export function operationOf(method: string, url: string): { template: string; method: string } | undefined {
  const path = new URL(url).pathname;
  const route = ROUTES.find((r) => r.re.test(path));
  if (!route) return undefined;
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  return doc.paths[route.template]![m] ? { template: route.template, method: m } : undefined;
}

/**
 * Throws when an answer breaks the document. `body` is the answer's text (ignored for a stream or a HEAD).
 * Requests that are no operation of the document (the control surface, an unknown path, a method the path does
 * not have) are not checked.
 */
export function checkAnswer(
  request: { method: string; url: string },
  answer: { status: number; contentType: string | null; body: string | undefined },
): void {
  const op = operationOf(request.method, request.url);
  if (!op) return;
  const where = `${request.method} ${op.template} -> ${answer.status}`;
  const responses = doc.paths[op.template]![op.method]!.responses;
  const listed = responses[String(answer.status)];
  if (!listed) {
    throw new Error(`${where}: the document lists ${Object.keys(responses).join(', ')} for this operation`);
  }
  const key = `${op.method.toUpperCase()} ${op.template} ${answer.status}`;
  checkedAnswers.set(key, (checkedAnswers.get(key) ?? 0) + 1);
  const [media] = Object.keys(listed.content ?? {});
  if (media && !answer.contentType?.startsWith(media)) {
    throw new Error(`${where}: content-type ${answer.contentType}, the document says ${media}`);
  }
  if (media !== 'application/json' || request.method === 'HEAD' || answer.body === undefined) return;
  const pointer = `${DOC_ID}#/paths/${op.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}/responses/${answer.status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer);
  if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
  let value: unknown;
  try {
    value = JSON.parse(answer.body);
  } catch {
    throw new Error(`${where}: the body is not JSON: ${answer.body.slice(0, 200)}`);
  }
  if (!validate(value)) {
    throw new Error(
      `${where}: the body breaks the document: ${ajv.errorsText(validate.errors)}\n${answer.body.slice(0, 500)}`,
    );
  }
}

type Fetch = (request: Request, env?: { remoteAddress?: string }) => Promise<Response>;

/**
 * `fetch` of a reference, checking every answer with {@link checkAnswer} before handing it back. A JSON body is
 * read from a clone, so the caller still reads the original; a stream is checked by status and media type only.
 *
 * @example
 * const fetch = checkedFetch(ref.fetch.bind(ref));
 * const res = await fetch(new Request(`${base}/api/v1/public/banks/sbp`, { headers }));
 */
export function checkedFetch(fetch: Fetch): Fetch {
  return async (request, env) => {
    const method = request.method;
    const url = request.url;
    const res = await fetch(request, env);
    const contentType = res.headers.get('content-type');
    const stream = contentType?.startsWith('text/event-stream') ?? false;
    const body = stream || !operationOf(method, url) ? undefined : await res.clone().text();
    checkAnswer({ method, url }, { status: res.status, contentType, body });
    return res;
  };
}
