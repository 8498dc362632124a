import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { CODE, ERROR_CODES, type ErrorCode } from '../../schemas/errors.js';

const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [CODE.headers_too_large, 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [CODE.request_timeout, 'The request took too long to arrive.'],
  ERR_HTTP_HEADERS_TIMEOUT: [CODE.request_timeout, 'The request headers took too long to arrive.'],
};
const NOT_HTTP: [ErrorCode, string] = [CODE.bad_request, 'The request is not valid HTTP/1.1.'];

/**
 * Answers what node's HTTP parser refuses before any handler runs (oversized headers, a malformed request
 * line, a stalled request) with the spec's error body instead of node's bare status line, then closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean | undefined } | undefined })
    ._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
  const { status } = ERROR_CODES[code];
  // ASCII only (fixed messages above), so length in characters is length in bytes; no Buffer, for Deno.
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}
