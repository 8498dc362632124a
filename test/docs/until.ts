/** Polls `fn` until it returns something other than undefined; fails after `ms` naming what it waited for. */
export async function until<T>(
  fn: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = 5_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
