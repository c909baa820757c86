/**
 * Slow and idle clients (issue 14 finding 8): request bodies sent one byte at a time used to hold their
 * connection forever, and ~20,000 of them exhausted the file descriptors. Each case opens a real
 * socket and writes what a slow-loris client writes; the timeouts are small here (configured as an
 * operator would, through the environment) so the server's answer comes within the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';

const HEADERS_MS = 1000;
const REQUEST_MS = 600;
const UPLOAD_MS = 8000;
const KEEPALIVE_MS = 500;
const MAX_CONNECTIONS = 25;

let t: TestApp;
let port: number;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-slow-'));
  t = await buildTestApp({
    env: {
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_HTTP_HEADERS_TIMEOUT: `${HEADERS_MS}ms`,
      MAILROOM_HTTP_REQUEST_TIMEOUT: String(REQUEST_MS),
      MAILROOM_HTTP_UPLOAD_TIMEOUT: `${UPLOAD_MS / 1000}s`,
      MAILROOM_HTTP_KEEPALIVE_TIMEOUT: `${KEEPALIVE_MS}ms`,
      MAILROOM_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    },
  });
  await t.api('POST', '/api/lists', { name: 'Public', type: 'public', optin: 'single' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A raw client connection: what it received, and when the server closed it (ms after opening). */
interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
  /** Writes `bytes` one at a time, `everyMs` apart, until they are sent or the socket closes. */
  dribble: (bytes: string | Buffer, everyMs: number) => Promise<void>;
}

async function open(): Promise<Client> {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const dribble = async (bytes: string | Buffer, everyMs: number) => {
    const buf = Buffer.from(bytes);
    for (let i = 0; i < buf.length && !socket.destroyed; i += 1) {
      socket.write(buf.subarray(i, i + 1));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  return { socket, received: () => data, closed, dribble };
}

/** The status code of the first response in `raw`, or null. */
function statusOf(raw: string): number | null {
  const m = /^HTTP\/1\.1 (\d{3})/u.exec(raw);
  return m ? Number(m[1]) : null;
}

describe('request bodies', () => {
  it('a body sent one byte at a time is cut off after MAILROOM_HTTP_REQUEST_TIMEOUT with a 408', async () => {
    const c = await open();
    // 10,000 bytes at one per 50 ms would take over 8 minutes.
    c.socket.write('POST /api/public/subscription HTTP/1.1\r\nHost: mailroom.test\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n');
    void c.dribble(`{"email":"slow@example.org","name":"${'x'.repeat(9950)}`, 50);
    const after = await c.closed;
    expect(statusOf(c.received())).toBe(408);
    expect(c.received()).toMatch(/request body did not arrive within 600 ms/u);
    expect(after).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(after).toBeLessThan(REQUEST_MS + 4000);
  });

  it('a chunked body that never ends is cut off the same way', async () => {
    const c = await open();
    c.socket.write('POST /api/public/subscription HTTP/1.1\r\nHost: mailroom.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    void c.dribble('1\r\n{\r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n', 40);
    await c.closed;
    expect(statusOf(c.received())).toBe(408);
  });

  it('a slow body that arrives within the timeout is answered normally, and the connection is kept', async () => {
    const c = await open();
    const body = JSON.stringify({ email: 'patient@example.org', name: 'Patient', list_uuids: [] });
    c.socket.write(`POST /api/public/subscription HTTP/1.1\r\nHost: mailroom.test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    c.socket.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, REQUEST_MS / 3));
    c.socket.write(body.slice(10));
    await vitestPoll(() => statusOf(c.received()) !== null);
    // Not a timeout: the request was read whole and judged on its content.
    expect(statusOf(c.received())).not.toBe(408);
    expect(c.socket.destroyed).toBe(false);
    c.socket.destroy();
  });

  it('an upload route with credentials gets MAILROOM_HTTP_UPLOAD_TIMEOUT: a slow upload longer than the request timeout succeeds', async () => {
    const c = await open();
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(40, 0x20), Buffer.from('\n%%EOF\n')]);
    const { payload, contentType } = multipart([{ name: 'file', filename: 'slow.pdf', content: pdf, type: 'application/pdf' }]);
    c.socket.write(`POST /api/media HTTP/1.1\r\nHost: mailroom.test\r\nAuthorization: ${AUTH}\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`);
    // About 2.5 times the request timeout, in 5 slices.
    const slice = Math.ceil(payload.length / 5);
    const started = Date.now();
    for (let i = 0; i < payload.length; i += slice) {
      c.socket.write(payload.subarray(i, i + slice));
      await new Promise((r) => setTimeout(r, (REQUEST_MS * 2.5) / 5));
    }
    await vitestPoll(() => c.received().includes('\r\n\r\n{'));
    expect(Date.now() - started).toBeGreaterThan(REQUEST_MS);
    expect(statusOf(c.received()), c.received()).toBe(200);
    expect(c.received()).toContain('slow.pdf');
    c.socket.destroy();
  });

  it('an upload route without credentials answers 401 at once and does not lend the upload timeout to the rest of the body', async () => {
    const c = await open();
    c.socket.write('POST /api/import/subscribers HTTP/1.1\r\nHost: mailroom.test\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000\r\n\r\n');
    void c.dribble('--x\r\n'.repeat(2000), 50);
    await vitestPoll(() => statusOf(c.received()) !== null);
    expect(statusOf(c.received())).toBe(401);
    const after = await c.closed;
    expect(after).toBeLessThan(REQUEST_MS * 2 + 4000);
  });
});

describe('headers and idle connections', () => {
  it('headers sent one byte at a time are cut off after MAILROOM_HTTP_HEADERS_TIMEOUT', async () => {
    const c = await open();
    void c.dribble(`GET /health HTTP/1.1\r\nHost: mailroom.test\r\nX-Slow: ${'a'.repeat(1000)}\r\n\r\n`, 20);
    const after = await c.closed;
    expect(statusOf(c.received())).toBe(408);
    expect(after).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(after).toBeLessThan(HEADERS_MS + 4000);
  });

  it('a connection that sends nothing is closed after the headers timeout', async () => {
    const c = await open();
    const after = await c.closed;
    expect(after).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(after).toBeLessThan(HEADERS_MS + 4000);
  });

  it('a kept-alive connection idle after its answer is closed after MAILROOM_HTTP_KEEPALIVE_TIMEOUT', async () => {
    const c = await open();
    c.socket.write('GET /health HTTP/1.1\r\nHost: mailroom.test\r\n\r\n');
    await vitestPoll(() => statusOf(c.received()) !== null);
    const answered = Date.now();
    await c.closed;
    expect(statusOf(c.received())).toBe(200);
    expect(Date.now() - answered).toBeLessThan(KEEPALIVE_MS + 4000);
  });
});

describe('connection bound', () => {
  it(`at most MAILROOM_HTTP_MAX_CONNECTIONS (${MAX_CONNECTIONS}) are open; one more is closed unanswered, and room frees up as they close`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => open()));
    // The server has counted every held connection once it answers a request on one of them.
    held[0]!.socket.write('GET /health HTTP/1.1\r\nHost: mailroom.test\r\n\r\n');
    await vitestPoll(() => statusOf(held[0]!.received()) !== null);
    const extra = await open();
    extra.socket.write('GET /health HTTP/1.1\r\nHost: mailroom.test\r\n\r\n');
    const after = await extra.closed;
    expect(extra.received()).toBe('');
    expect(after).toBeLessThan(HEADERS_MS);
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    await vitestPoll(async () => {
      const again = await open();
      again.socket.write('GET /health HTTP/1.1\r\nHost: mailroom.test\r\nConnection: close\r\n\r\n');
      await again.closed;
      return statusOf(again.received()) === 200;
    });
  });
});

/** Polls `check` every 20 ms until it holds (or the test times out). */
async function vitestPoll(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}
