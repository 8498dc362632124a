/**
 * Cancels an unread body or a reader, so its connection is freed; never rejects (a stream already closed or
 * errored has nothing left to free). Await it where the connection must be gone before the next one opens.
 *
 * @example
 * await release(response.body);
 */
export function release(stream: { cancel(): Promise<void> } | null | undefined): Promise<void> | undefined {
  return stream?.cancel().catch(() => {});
}
