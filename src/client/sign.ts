type NodeCrypto = {
  createHmac(alg: 'sha256', key: string): { update(d: string | Uint8Array): { digest(enc: 'hex'): string } };
};

/**
 * HMAC-SHA256 hex of a body (its text, or its bytes when a middleware replaced it), synchronous where the runtime
 * allows it (Node, Deno, Bun), else a promise.
 */
export type Signer = (body: string | Uint8Array) => string | Promise<string>;

function nodeCrypto(): NodeCrypto | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
    return typeof mod?.createHmac === 'function' ? mod : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A signer for `X-PSP-Signature` keyed by the UTF-8 bytes of `secret` (the `thm_...` string as given).
 * node:crypto where present; otherwise WebCrypto, so browsers and edge runtimes need no JS hash code in the
 * bundle (the same HMAC as `hmacSha256Hex` of psp-sdk/webhooks, which the tests cross-check).
 *
 * @example
 * const sign = createSigner('thm_...');
 * const hex = await sign('{"amount":100}');
 */
export function createSigner(secret: string): Signer {
  const node = nodeCrypto();
  if (node) return (body) => node.createHmac('sha256', secret).update(body).digest('hex');
  return webSigner(secret);
}

/**
 * The WebCrypto signer {@link createSigner} falls back to (async).
 *
 * @example
 * await webSigner('thm_x')(''); // 64 hex chars
 */
export function webSigner(secret: string): Signer {
  const enc = new TextEncoder();
  let key: ReturnType<typeof crypto.subtle.importKey> | undefined;
  return async (body) => {
    key ??= crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    const mac = new Uint8Array(
      await crypto.subtle.sign('HMAC', await key, typeof body === 'string' ? enc.encode(body) : body),
    );
    return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
  };
}
