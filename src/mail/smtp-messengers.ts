/**
 * Builds the SMTP messengers from the `smtp` setting (reference §18.1): every enabled server joins the
 * messenger `email`, which spreads messages across them in turn; when more than one server is enabled,
 * each named server is also its own messenger `email-<name>`, so a campaign can pin one server.
 */
import type { SmtpServer } from '../modules/settings/core-settings.js';
import { parseDuration } from '../util/duration.js';
import { SendError, type Messenger, type OutgoingMessage } from './messenger.js';
import { SmtpMessenger, type SmtpServerOptions } from './smtp.js';

const AUTH: Record<string, SmtpServerOptions['authMethod']> = { plain: 'PLAIN', login: 'LOGIN', cram: 'CRAM-MD5' };
const SECURITY: Record<string, SmtpServerOptions['security']> = { none: 'none', STARTTLS: 'starttls', TLS: 'tls' };

/** nodemailer options for one SMTP block. */
export function smtpOptions(s: SmtpServer): SmtpServerOptions {
  const withAuth = s.auth_protocol !== 'none' && s.username !== '';
  return {
    host: s.host,
    port: s.port,
    security: SECURITY[s.tls_type] ?? 'starttls',
    tlsSkipVerify: s.tls_skip_verify,
    user: withAuth ? s.username : null,
    password: withAuth ? s.password : null,
    ...(withAuth && AUTH[s.auth_protocol] ? { authMethod: AUTH[s.auth_protocol] } : {}),
    maxConnections: s.max_conns,
    connectionTimeoutMs: parseDuration(s.wait_timeout) ?? 5000,
    socketTimeoutMs: Math.max(parseDuration(s.idle_timeout) ?? 15_000, 5000),
    ...(s.hello_hostname ? { helloName: s.hello_hostname } : {}),
    headers: s.email_headers.flatMap((h) => Object.entries(h)),
    maxRetries: s.max_msg_retries,
  };
}

/** The `email` messenger: several servers used in turn. */
export class RoundRobinMessenger implements Messenger {
  private next = 0;
  /** The largest `max_msg_retries` of the servers: a retry may go to another server. */
  readonly maxRetries: number;

  constructor(
    readonly name: string,
    private readonly servers: Messenger[],
  ) {
    this.maxRetries = Math.max(0, ...servers.map((s) => s.maxRetries ?? 2));
  }

  /** Sends through the next server in turn. Throws SendError. */
  async push(message: OutgoingMessage): Promise<void> {
    if (this.servers.length === 0) throw new SendError('transient', 'no SMTP server is enabled', null, { scope: 'messenger' });
    const server = this.servers[this.next % this.servers.length] as Messenger;
    this.next = (this.next + 1) % this.servers.length;
    await server.push(message);
  }

  /** Closes every server's pool. */
  async close(): Promise<void> {
    await Promise.allSettled(this.servers.map((s) => s.close()));
  }
}

/**
 * Builds `email` (and `email-<name>` per named server when several are enabled) from the setting.
 * `onDroppedHeaders` is told (once per server and name) of headers the header rule dropped at send
 * time (src/mail/headers.ts).
 */
export function buildSmtpMessengers(servers: SmtpServer[], onDroppedHeaders?: (server: string, names: string[]) => void): Messenger[] {
  const enabled = servers.filter((s) => s.enabled);
  const pools = enabled.map((s) => {
    const name = `email-${s.name || s.uuid}`;
    return { block: s, messenger: new SmtpMessenger(name, { ...smtpOptions(s), ...(onDroppedHeaders ? { onDroppedHeaders: (names: string[]) => onDroppedHeaders(name, names) } : {}) }) };
  });
  const out: Messenger[] = [new RoundRobinMessenger('email', pools.map((p) => p.messenger))];
  if (pools.length > 1) {
    for (const p of pools) if (p.block.name) out.push(new SharedMessenger(`email-${p.block.name}`, p.messenger));
  }
  return out;
}

/** A second name for a pool owned by the `email` messenger (closing it is the owner's job). */
class SharedMessenger implements Messenger {
  readonly maxRetries: number;

  constructor(
    readonly name: string,
    private readonly inner: Messenger,
  ) {
    this.maxRetries = inner.maxRetries ?? 2;
  }

  push(message: OutgoingMessage): Promise<void> {
    return this.inner.push(message);
  }

  async close(): Promise<void> {
    /* owned by the `email` messenger */
  }
}
