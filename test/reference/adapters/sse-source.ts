// An event stream a test drives by hand, for the adapter's SSE cases (with and without overrideGlobalObjects).

/**
 * A handler answering `text/event-stream` that opens with `: connected` and then sends what `push` is given;
 * `cancelled` resolves when the stream is cancelled (the client went away). `open(url)` GETs the stream and reads
 * its first chunk; `read()` reads the next one as text, `abort()` goes away.
 */
export function handSse() {
  const encoder = new TextEncoder();
  let push: (s: string) => void = () => {};
  let cancel!: () => void;
  const cancelled = new Promise<void>((resolve) => {
    cancel = resolve;
  });
  const handler = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          push = (s) => controller.enqueue(encoder.encode(s));
          push(': connected\n\n');
        },
        cancel: () => cancel(),
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  const decoder = new TextDecoder();
  async function open(url: string) {
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    const reader = res.body!.getReader();
    const read = async () => decoder.decode((await reader.read()).value);
    return { first: await read(), read, abort: () => controller.abort() };
  }
  return { handler, push: (s: string) => push(s), cancelled, open };
}
