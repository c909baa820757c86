/**
 * How long the HTTP server waits for its clients, and how many it holds at once (issue 14 finding 8:
 * request bodies sent one byte at a time never timed out, and ~20,000 held connections exhausted the
 * process's file descriptors, which the database pool, SMTP and uploads need too).
 *
 * - Headers must arrive within `headersTimeoutMs` of a request's first byte (also closes a connection
 *   that sends nothing): Node's `headersTimeout`.
 * - The body must arrive within `requestTimeoutMs` of the headers, or `uploadTimeoutMs` on routes
 *   marked `config: { upload: true }` (imports, media, tx attachments: large files on slow links).
 *   A request answered before its body is in (401, 413, …) keeps at most `requestTimeoutMs` to send
 *   the rest, so an upload route does not lend its long timeout to a client without credentials.
 *   Past the limit the client gets a 408 and the connection is closed. Node's `requestTimeout` is set
 *   to the sum of the headers and the longer body timeout, as a backstop.
 * - A kept-alive connection idle between requests closes after `keepAliveTimeoutMs`; any connection
 *   with nothing sent or received for `connectionTimeoutMs` closes (a client that stopped reading).
 * - At most `maxConnections` connections are open; further ones are closed on arrival and counted in
 *   a warning (Node's `server.maxConnections`), so HTTP alone cannot take every descriptor.
 */
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpLimits } from '../config.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route receives large files (imports, media, tx attachments): the upload timeout applies. */
    upload?: boolean;
  }
}

/** Descriptors kept for everything but HTTP connections (database pool, SMTP, files, logs). */
export const RESERVED_DESCRIPTORS = 256;
/** Upper bound of the derived connection limit: memory, not descriptors, is the limit beyond it. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;

/**
 * The Fastify server options for `limits`: Fastify's `connectionTimeout`, `keepAliveTimeout` and
 * `requestTimeout` (the backstop), and Node's `headersTimeout` with a checking interval short enough
 * for it to be kept to within a quarter of its length (Node checks every 30 s by default).
 */
export function serverTimeoutOptions(limits: HttpLimits) {
  const backstop = limits.headersTimeoutMs + Math.max(limits.requestTimeoutMs, limits.uploadTimeoutMs);
  return {
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: backstop,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: backstop,
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/**
 * The connection limit when none is configured: the process's open-file limit (Linux
 * `/proc/self/limits`, after Node raised the soft limit to the hard one) less
 * {@link RESERVED_DESCRIPTORS}, between 64 and {@link DEFAULT_MAX_CONNECTIONS}; that bound alone
 * where the limit cannot be read.
 */
export function defaultMaxConnections(limitsText: string | null = readProcLimits()): number {
  const m = limitsText === null ? null : /^Max open files\s+(\d+|unlimited)/mu.exec(limitsText);
  if (m === null || m[1] === 'unlimited') return DEFAULT_MAX_CONNECTIONS;
  return Math.min(DEFAULT_MAX_CONNECTIONS, Math.max(64, Number(m[1]) - RESERVED_DESCRIPTORS));
}

function readProcLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

/**
 * Bounds the open connections of `server` to `max`. Connections past it are closed by Node on arrival;
 * they are logged as one warning per 10 s with their count, not one line each.
 */
export function limitConnections(server: Server, max: number, log: FastifyBaseLogger): void {
  server.maxConnections = max;
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  server.on('drop', () => {
    dropped += 1;
    timer ??= setTimeout(() => {
      log.warn({ dropped, max_connections: max }, 'connections refused: MAILROOM_HTTP_MAX_CONNECTIONS reached');
      dropped = 0;
      timer = null;
    }, 10_000).unref();
  });
}

interface BodyTimer {
  timer: NodeJS.Timeout;
  /** When the body must be complete (ms since the epoch). */
  deadline: number;
}

const bodyTimers = new WeakMap<IncomingMessage, BodyTimer>();

/**
 * True when the request came over a connection (not `app.inject`, which has no socket to hold) and
 * announces a body (a non-zero Content-Length, or chunked).
 */
function announcesBody(raw: IncomingMessage): boolean {
  if (!(raw.socket instanceof Socket)) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Installs the body timeouts on `app` (see the module comment). Hooks run on every route, before
 * authentication, so no request body escapes them.
 */
export function installBodyTimeouts(app: FastifyInstance, limits: HttpLimits): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.raw.complete && announcesBody(request.raw)) {
      const upload = request.routeOptions.config?.upload === true;
      armBodyTimer(request, reply, upload ? limits.uploadTimeoutMs : limits.requestTimeoutMs);
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // Answered before the body is in: the rest may take no longer than an ordinary request's body.
    const current = bodyTimers.get(request.raw);
    if (current !== undefined && !request.raw.complete && current.deadline > Date.now() + limits.requestTimeoutMs) {
      armBodyTimer(request, reply, limits.requestTimeoutMs);
    }
    done(null, payload);
  });
}

/** (Re)starts the timer that closes the connection unless the body is complete within `ms`. */
function armBodyTimer(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  const raw = request.raw;
  const previous = bodyTimers.get(raw);
  if (previous !== undefined) clearTimeout(previous.timer);
  const timer = setTimeout(() => bodyTimedOut(request, reply, ms), ms);
  timer.unref();
  bodyTimers.set(raw, { timer, deadline: Date.now() + ms });
  if (previous === undefined) {
    const clear = () => {
      const entry = bodyTimers.get(raw);
      if (entry !== undefined) clearTimeout(entry.timer);
      bodyTimers.delete(raw);
    };
    raw.once('end', clear);
    raw.once('close', clear);
  }
}

/** The body did not arrive in time: answer 408 when nothing was answered yet, and close the connection. */
function bodyTimedOut(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  const raw = request.raw;
  bodyTimers.delete(raw);
  const socket = raw.socket as IncomingMessage['socket'] | null;
  if (raw.complete || socket === null || socket.destroyed) return;
  request.log.info({ timeout_ms: ms, bytes_read: socket.bytesRead }, 'request body not received in time; connection closed');
  if (!reply.raw.headersSent && socket.writable) {
    const body = JSON.stringify({ message: `request timeout: the request body did not arrive within ${formatMs(ms)}` });
    socket.write(
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
