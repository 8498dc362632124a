/**
 * A text answer the reference built (every JSON answer of the API, cabinet and simulator): status, a plain header
 * record and the body string. Building a native `Response` costs a ReadableStream, a Headers list and, for the
 * HTTP adapter, reading that stream back; under load that was a third of a GET's CPU. So the reference builds
 * this instead, the node adapter writes `body` to the socket as it is, and anything else gets a real `Response`
 * from {@link WireResponse.toResponse} (what `Reference.fetch` hands its callers). Globals are never touched.
 *
 * It also answers the parts of the `Response` interface that hono reads (`status`, `statusText`, `headers`,
 * `ok`; `new Response(null, wire)` for a HEAD), and every other `Response` member through a real `Response`
 * made on first use, so code that treats it as a `Response` keeps working.
 *
 * @example
 * const res = new WireResponse(200, '{"ok":true}', { 'content-type': 'application/json' });
 * res.setHeader('x-request-id', 'req_1');
 * await res.toResponse().json(); // { ok: true }
 */
export class WireResponse {
  readonly status: number;
  /** The body text, exactly as it goes on the wire. */
  readonly body: string;
  readonly #record: Record<string, string>;
  #headers: Headers | undefined;
  #real: Response | undefined;

  /** @param headers Lower-case names; taken over, not copied. */
  constructor(status: number, body: string, headers: Record<string, string>) {
    this.status = status;
    this.body = body;
    this.#record = headers;
  }

  get statusText(): string {
    return '';
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The headers as a `Headers` (made on first use; later changes through it are what gets written). */
  get headers(): Headers {
    if (this.#real) return this.#real.headers;
    this.#headers ??= new Headers(this.#record);
    return this.#headers;
  }

  /** Sets one header, cheaply while nobody has asked for `headers`. `name` must be lower case. */
  setHeader(name: string, value: string): void {
    if (this.#real) this.#real.headers.set(name, value);
    else if (this.#headers) this.#headers.set(name, value);
    else this.#record[name] = value;
  }

  /**
   * The headers for `ServerResponse.writeHead`, or `undefined` once a real `Response` exists (its body may have
   * been read: the caller must then treat this as an ordinary `Response`).
   */
  outgoingHeaders(): Record<string, string> | undefined {
    if (this.#real) return undefined;
    if (!this.#headers) return this.#record;
    const out: Record<string, string> = {};
    for (const [k, v] of this.#headers) out[k] = v;
    return out;
  }

  /** The same answer as a native `Response`; made once, later calls return the same object. */
  toResponse(): Response {
    this.#real ??= new Response(this.responseBody(), {
      status: this.status,
      headers: this.#headers ?? this.#record,
    });
    return this.#real;
  }

  /** Whether a native `Response` was made (its body may be in use: the adapter must then write that instead). */
  get settled(): boolean {
    return this.#real !== undefined;
  }

  /** The body of the native `Response`; a subclass that streams returns its stream. */
  protected responseBody(): ConstructorParameters<typeof Response>[0] {
    return this.body;
  }
}

// The rest of the Response interface, each through the real Response (hono's own light Response does the same).
for (const name of ['body', 'bodyUsed', 'redirected', 'type', 'url'] as const) {
  Object.defineProperty(WireResponse.prototype, name, {
    get(this: WireResponse) {
      return this.toResponse()[name];
    },
  });
}
for (const name of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'] as const) {
  if (!(name in Response.prototype)) continue; // `bytes` is newer than Node 20's Response
  Object.defineProperty(WireResponse.prototype, name, {
    value(this: WireResponse) {
      const real = this.toResponse() as unknown as Record<string, () => unknown>;
      return real[name]!.call(real);
    },
  });
}
Object.setPrototypeOf(WireResponse.prototype, Response.prototype);
