import { connect } from 'node:net';
import type { NodeServer } from '../../../src/reference/adapters/node-http.js';

/** One HTTP answer as read off the socket: header names lower-cased. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the blank line) and `body` on one connection,
 * with `Connection: close`, and reads the answer exactly as the server wrote it.
 */
export function raw(server: NodeServer, head: string, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.end(`${head}\r\nConnection: close\r\n\r\n${body}`);
  });
}
