/**
 * HTTP/1.1 requests written byte for byte on a socket, for request targets no client library sends as
 * given: the absolute form (`GET http://host/path HTTP/1.1`, RFC 9112 §3.2.2), dot segments, backslashes.
 */
import { connect } from 'node:net';

/** The parsed answer: status code, lower-cased headers and the raw body text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `method target HTTP/1.1` with `headers` (plus `Host` and `Connection: close`) to
 * `127.0.0.1:port` and reads the answer until the server closes. Rejects on socket errors or after
 * `timeoutMs` (ms) without an answer.
 */
export function rawRequest(port: number, method: string, target: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no answer to ${method} ${target} within ${timeoutMs} ms`)), timeoutMs);
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: mailroom.test', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...body] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/u.exec(statusLine)?.[1] ?? NaN);
      if (Number.isNaN(status)) return reject(new Error(`no HTTP answer to ${method} ${target}: ${JSON.stringify(text.slice(0, 200))}`));
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        if (i > 0) parsed[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers: parsed, body: body.join('\r\n\r\n') });
    });
  });
}
