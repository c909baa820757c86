/**
 * HTTP postback messengers (listmonk reference §18.2): each message is POSTed as JSON to the
 * messenger's URL, one recipient per request, with HTTP Basic auth when a username is set, a timeout,
 * and at most `max_conns` connections. A 2xx answer means accepted. Every other outcome — a non-2xx
 * status, a timeout, a connection error, a refused address — is transient: the engine retries it,
 * counts it toward `app.max_send_errors`, and never records a bounce for it (an HTTP endpoint's error
 * says nothing about the recipient's mailbox). Addresses are checked by {@link guardedLookup}.
 *
 * Scope (issue 14 findings 6 and 10): connection errors, timeouts, refused addresses and the statuses in
 * {@link ENDPOINT_STATUSES} (login refused, wrong URL, endpoint unavailable) are about the endpoint:
 * they count toward the messenger's health and show only the generic CONNECTION_FAILED message (the
 * details go to the log). Any other status is the endpoint's answer about this message, which a
 * subscriber's data can cause: it never decides health.
 */
import http from 'node:http';
import https from 'node:https';
import { BlockedAddressError, checkLiteralHost, guardedLookup, refusedRange } from './address-guard.js';
import { connectionFailure, SendError, type Messenger, type OutgoingMessage } from './messenger.js';

/**
 * HTTP statuses that say the endpoint, not the message, is the problem (RFC 9110 §15): credentials
 * refused (401, 403, 407), no such endpoint or method (404, 405), timeout or rate limit (408, 429), and
 * gateway or availability errors (502, 503, 504).
 */
export const ENDPOINT_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 405, 407, 408, 429, 502, 503, 504]);

/**
 * The guard refused the endpoint's address before connecting: a messenger-scope failure whose message
 * says so (the operator's decision to make, `security.allow_private_messenger_urls`); it tells nothing
 * about which ports answer, since nothing was connected to.
 */
function blocked(err: Error): SendError {
  return new SendError('transient', err.message, null, { scope: 'messenger' });
}

/** Settings of one postback messenger. Durations in milliseconds. */
export interface PostbackOptions {
  url: string;
  username: string;
  password: string;
  timeoutMs: number;
  maxConns: number;
  maxRetries: number;
  /** Whether private, loopback and link-local addresses may be reached (read at each request). */
  allowPrivate: () => boolean;
}

/** listmonk's postback body (reference §18.2). */
export function postbackPayload(m: OutgoingMessage): Record<string, unknown> {
  const ctx = m.context;
  return {
    subject: m.subject,
    from_email: m.from,
    content_type: ctx?.contentType ?? (m.html !== undefined ? 'html' : 'plain'),
    body: m.html ?? m.text ?? '',
    recipients: [
      ctx?.recipient ?? { uuid: '', email: m.to.address, name: m.to.name, attribs: {}, status: '' },
    ],
    campaign: ctx?.campaign ?? null,
    attachments:
      m.attachments && m.attachments.length > 0
        ? m.attachments.map((a) => ({
            name: a.filename,
            header: { 'Content-Type': [a.contentType ?? 'application/octet-stream'] },
            content: a.content.toString('base64'),
          }))
        : null,
  };
}

/** One postback endpoint. */
export class PostbackMessenger implements Messenger {
  private readonly url: URL;
  private readonly agent: http.Agent;
  readonly maxRetries: number;

  constructor(
    readonly name: string,
    private readonly opts: PostbackOptions,
  ) {
    this.url = new URL(opts.url);
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxConns, lookup: guardedLookup(opts.allowPrivate) });
    this.maxRetries = opts.maxRetries;
  }

  /** POSTs the message; resolves on a 2xx answer. Throws a transient SendError otherwise. */
  async push(message: OutgoingMessage): Promise<void> {
    try {
      checkLiteralHost(this.url.hostname, this.opts.allowPrivate);
    } catch (err) {
      throw blocked(err as Error);
    }
    const body = JSON.stringify(postbackPayload(message));
    const status = await this.post(body);
    if (status >= 200 && status <= 299) return;
    const answer = `postback ${this.name} answered HTTP ${status}`;
    throw ENDPOINT_STATUSES.has(status) ? connectionFailure(answer) : new SendError('transient', answer, null);
  }

  private post(body: string): Promise<number> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'mailroom',
    };
    if (this.opts.username !== '') {
      headers.authorization = `Basic ${Buffer.from(`${this.opts.username}:${this.opts.password}`).toString('base64')}`;
    }
    const request = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise<number>((resolve, reject) => {
      const req = request(this.url, { method: 'POST', agent: this.agent, headers, timeout: this.opts.timeoutMs }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', (err) => reject(connectionFailure(`postback ${this.name}: ${err.message}`)));
      });
      // A kept-alive socket skips the lookup: check the peer of every request's socket too.
      req.on('socket', (socket) => {
        const check = (): void => {
          const peer = socket.remoteAddress;
          const range = peer === undefined || this.opts.allowPrivate() ? null : refusedRange(peer);
          if (range !== null) req.destroy(new BlockedAddressError(this.url.hostname, peer!, range));
        };
        if (socket.connecting) socket.once('connect', check);
        else check();
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`timed out after ${this.opts.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', (err) => reject(err instanceof BlockedAddressError ? blocked(err) : connectionFailure(`postback ${this.name}: ${err.message}`)));
      req.end(body);
    });
  }

  /** Closes kept-alive connections. */
  async close(): Promise<void> {
    this.agent.destroy();
  }
}
