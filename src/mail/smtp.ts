/**
 * The SMTP messenger: a nodemailer connection pool to one server. Failures are classified from the
 * error's `code`, `command` and SMTP `responseCode`, never from message text (conventions §7; nodemailer
 * lib/errors): a 5xx reply to the recipient (RCPT TO, nodemailer `EENVELOPE`) is permanent — a hard
 * bounce for that subscriber; 4xx replies, connection-level errors and timeouts are transient. A 5xx at
 * another stage (MAIL FROM, DATA, AUTH) says nothing about the recipient — a relay refusing to relay
 * or rejecting our credentials answers 5xx for every message — so it is transient too: retried, counted
 * toward `app.max_send_errors`, and never recorded as the subscriber's bounce. Only failures to
 * connect or log in count toward the messenger's health ({@link classifySmtpError}).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { sendableHeaders } from './headers.js';
import { connectionFailure, SendError, type Messenger, type OutgoingMessage } from './messenger.js';

/** Connection settings of one SMTP server. Durations in milliseconds. */
export interface SmtpServerOptions {
  host: string;
  port: number;
  /**
   * Transport security: `tls` = implicit TLS from the first byte (port 465, `smtps://`); `starttls` =
   * upgrade with STARTTLS when the server offers it (listmonk's STARTTLS); `none` = never use TLS.
   */
  security: 'none' | 'starttls' | 'tls';
  /** Skip certificate verification (self-signed relays). */
  tlsSkipVerify?: boolean;
  user?: string | null;
  password?: string | null;
  /** SASL mechanism when `user` is set (default: the best the server offers). */
  authMethod?: 'PLAIN' | 'LOGIN' | 'CRAM-MD5';
  /** Headers added to every message sent through this server (listmonk `email_headers`). */
  headers?: Array<[string, string]>;
  /** Concurrent connections in the pool (default 10). */
  maxConnections?: number;
  /** Messages sent over one connection before it is recycled (default 1000). */
  maxMessagesPerConnection?: number;
  /** Time to establish a connection and to wait for greetings (default 10 s). */
  connectionTimeoutMs?: number;
  /** Inactivity timeout of a connection (default 30 s). */
  socketTimeoutMs?: number;
  /** EHLO name (default: the OS host name). */
  helloName?: string;
  /** Immediate retries of a transient failure before the engine defers the message (default 2). */
  maxRetries?: number;
  /**
   * Told the names of headers dropped at send time by the header rule (src/mail/headers.ts): data
   * stored before the rule existed. For the log: each name is told once per messenger.
   */
  onDroppedHeaders?: (names: string[]) => void;
}

/** nodemailer codes of errors about the message itself (envelope, content, its stream), not the server. */
const MESSAGE_CODES = new Set(['EENVELOPE', 'EMESSAGE', 'ESTREAM', 'EREQUIRETLS']);
/** SMTP commands whose answer is about one message or recipient (RFC 5321 §3.3). */
const MESSAGE_COMMANDS = /^(MAIL|RCPT|DATA|BDAT)\b/u;
/** RFC 4954 §6 replies saying the session lacks (valid) authentication: about the relay, not the message. */
const AUTH_REPLIES = new Set([530, 534, 535, 538]);

/**
 * Classifies a nodemailer error and wraps it in a SendError.
 *
 * Kind: only a 5xx to the recipient is permanent (a hard bounce); everything else is transient.
 * Scope (issue 14 finding 6): answers to MAIL FROM, RCPT TO or DATA (4xx or 5xx, nodemailer
 * `EENVELOPE`/`EMESSAGE`) are about this message, which a subscriber's address or name can cause, so
 * they are `message` scope and keep the server's reply; connection, TLS, greeting, EHLO and login
 * failures, timeouts, and a MAIL FROM refused for want of authentication (RFC 4954 §6: 530, 534, 535,
 * 538) are `messenger` scope, with the generic CONNECTION_FAILED message (the real
 * one in `detail`, for the log: it may name internal hosts and ports, issue 14 finding 10).
 */
export function classifySmtpError(err: unknown): SendError {
  const e = err as { code?: string; command?: string; responseCode?: number; response?: string; message?: string };
  const rc = typeof e.responseCode === 'number' ? e.responseCode : null;
  const detail = (e.response ?? e.message ?? 'SMTP error').slice(0, 500);
  // nodemailer also reports a refused MAIL FROM as EENVELOPE, so the command decides when it is known.
  const command = (e.command ?? '').toUpperCase();
  const atMessage = (MESSAGE_COMMANDS.test(command) || MESSAGE_CODES.has(e.code ?? '')) && !(command.startsWith('MAIL') && rc !== null && AUTH_REPLIES.has(rc));
  if (!atMessage) return connectionFailure(`${e.code ?? 'error'}${command ? ` at ${command}` : ''}: ${detail}`);
  const atRecipient = command.startsWith('RCPT') || (command === '' && e.code === 'EENVELOPE');
  if (rc !== null && rc >= 500 && rc < 600 && atRecipient) return new SendError('permanent', detail, rc);
  return new SendError('transient', detail, rc);
}

/** Sends through one SMTP server with a pooled transport. */
export class SmtpMessenger implements Messenger {
  private readonly transport: Transporter<SMTPPool.SentMessageInfo>;
  private readonly headers: Array<[string, string]>;
  private readonly onDroppedHeaders: (names: string[]) => void;
  private readonly droppedBefore = new Set<string>();
  readonly maxRetries: number;

  constructor(
    readonly name: string,
    options: SmtpServerOptions,
  ) {
    const auth = options.user ? { user: options.user, pass: options.password ?? '' } : undefined;
    this.headers = options.headers ?? [];
    this.onDroppedHeaders = options.onDroppedHeaders ?? (() => undefined);
    this.maxRetries = options.maxRetries ?? 2;
    this.transport = nodemailer.createTransport({
      pool: true,
      host: options.host,
      port: options.port,
      secure: options.security === 'tls',
      ignoreTLS: options.security === 'none',
      ...(options.authMethod ? { authMethod: options.authMethod } : {}),
      tls: { rejectUnauthorized: !(options.tlsSkipVerify ?? false) },
      auth,
      maxConnections: options.maxConnections ?? 10,
      maxMessages: options.maxMessagesPerConnection ?? 1000,
      connectionTimeout: options.connectionTimeoutMs ?? 10_000,
      greetingTimeout: options.connectionTimeoutMs ?? 10_000,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
      ...(options.helloName ? { name: options.helloName } : {}),
    });
  }

  /**
   * Sends one message; resolves when the server accepted it. Throws a classified SendError. Headers the
   * header rule refuses (a `Bcc` stored before the rule, issue 14 finding 7) are dropped, not sent:
   * nodemailer would make their addresses envelope recipients.
   */
  async push(message: OutgoingMessage): Promise<void> {
    const { kept, dropped } = sendableHeaders([...this.headers, ...message.headers]);
    const firstSeen = dropped.filter((name) => !this.droppedBefore.has(name));
    if (firstSeen.length > 0 && this.droppedBefore.size < 1000) {
      for (const name of firstSeen) this.droppedBefore.add(name);
      this.onDroppedHeaders(firstSeen);
    }
    try {
      const info = await this.transport.sendMail({
        from: message.from,
        to: message.to.name ? { name: message.to.name, address: message.to.address } : message.to.address,
        subject: message.subject,
        html: message.html,
        text: message.text,
        headers: kept.map(([key, value]) => ({ key, value })),
        messageId: `<${message.messageId}>`,
        attachments: message.attachments,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      if (info.rejected.length > 0) throw Object.assign(new Error(info.response), { responseCode: 550, code: 'EENVELOPE' });
    } catch (err) {
      throw classifySmtpError(err);
    }
  }

  /** Closes the pool. */
  async close(): Promise<void> {
    this.transport.close();
  }
}
