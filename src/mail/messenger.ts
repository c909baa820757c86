/**
 * Messengers deliver rendered messages: the SMTP messenger `email` (and `email-<name>` per server), and
 * later HTTP postback messengers (reference §18). The delivery engine only knows this interface
 * (conventions §7).
 */

/** A rendered message for one recipient. */
export interface OutgoingMessage {
  /** `Name <address>` or a bare address. */
  from: string;
  to: { name: string; address: string };
  subject: string;
  /** HTML body; absent for plain-text messages. */
  html?: string;
  /** Plain-text body or alternative part. */
  text?: string;
  /** Extra headers in order; values are already rendered. */
  headers: Array<[string, string]>;
  /** Message-ID without angle brackets, e.g. `campaign.subscriber@example.com`. */
  messageId: string;
  attachments?: Array<{ filename: string; content: Buffer; contentType?: string }>;
  /** What HTTP (postback) messengers send besides the rendered content (listmonk reference §18.2). */
  context?: MessageContext;
}

/** The recipient and campaign of a message, for postback messengers (listmonk reference §18.2). */
export interface MessageContext {
  /** Campaign content type (`richtext`, `html`, `markdown`, `plain`, `visual`). */
  contentType: string;
  recipient: { uuid: string; email: string; name: string; attribs: Record<string, unknown>; status: string };
  /** Null for messages that belong to no campaign (transactional). */
  campaign: { uuid: string; name: string; from_email: string; headers: Array<Record<string, string>>; tags: string[] } | null;
}

/**
 * Why a send failed. `transient`: try again later (SMTP 4xx, connection errors, timeouts); the message
 * must not be counted as sent. `permanent`: this recipient or message will never be accepted (SMTP 5xx);
 * recorded as a hard bounce.
 */
export type FailureKind = 'transient' | 'permanent';

/**
 * Whom a failure is about (issue 14 finding 6). `messenger`: the server could not be reached, the
 * connection broke, timed out, or refused the login: every message would fail the same way, so it
 * counts toward the messenger's health. `message`: the server answered about this one message or
 * recipient (SMTP replies to MAIL FROM, RCPT TO or DATA; an HTTP endpoint's answer about the request):
 * a subscriber can cause it with their address, so it never decides health.
 */
export type FailureScope = 'messenger' | 'message';

/**
 * The message the API shows for a `messenger`-scope failure, whatever happened: refused, timed out,
 * unreachable, not the protocol expected, login refused. One wording for all, so an administrator who
 * points a messenger at internal hosts and ports cannot tell which of them answer (issue 14 finding 10);
 * the details go to the server log only ({@link SendError.detail}).
 */
export const CONNECTION_FAILED = 'could not connect to the server or log in to it (details in the server log)';

/** A failed send, classified. */
export class SendError extends Error {
  readonly kind: FailureKind;
  /** SMTP reply code when the server answered about the message (e.g. 450, 550); null otherwise. */
  readonly responseCode: number | null;
  readonly scope: FailureScope;
  /**
   * What went wrong in full, for the server log only: may name internal hosts, addresses and ports.
   * Equals `message` for `message`-scope failures.
   */
  readonly detail: string;

  /**
   * `message` is what the API may show; for `scope: 'messenger'` pass {@link CONNECTION_FAILED} and the
   * real error as `detail` (see {@link connectionFailure}).
   */
  constructor(kind: FailureKind, message: string, responseCode: number | null = null, opts: { scope?: FailureScope; detail?: string } = {}) {
    super(message);
    this.name = 'SendError';
    this.kind = kind;
    this.responseCode = responseCode;
    this.scope = opts.scope ?? 'message';
    this.detail = opts.detail ?? message;
  }
}

/**
 * A transient, messenger-scope failure (connection, timeout, TLS, login) with the generic
 * {@link CONNECTION_FAILED} message; `detail` (the real error) is for the server log.
 */
export function connectionFailure(detail: string): SendError {
  return new SendError('transient', CONNECTION_FAILED, null, { scope: 'messenger', detail });
}

/** A channel that delivers messages. */
export interface Messenger {
  /** Name campaigns refer to (`email`, `email-<server>`, a postback name). */
  readonly name: string;
  /**
   * How many times the engine retries a transient failure right away (with backoff) before it counts
   * a send error and defers the message (SMTP block / messenger `max_msg_retries`). Default 2.
   */
  readonly maxRetries?: number;
  /** Delivers one message; resolves once the server accepted it. Throws SendError. */
  push(message: OutgoingMessage): Promise<void>;
  /** Closes pooled connections; pending pushes may fail. */
  close(): Promise<void>;
}

/** The configured messengers, by name. */
export class MessengerRegistry {
  private readonly byName = new Map<string, Messenger>();

  constructor(messengers: Messenger[] = []) {
    for (const m of messengers) this.byName.set(m.name, m);
  }

  /** The messenger called `name`, or undefined. */
  get(name: string): Messenger | undefined {
    return this.byName.get(name);
  }

  /** Names of every configured messenger, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Replaces the set of messengers (settings changed); closes the ones that are gone or replaced. */
  async replace(messengers: Messenger[]): Promise<void> {
    const old = [...this.byName.values()];
    this.byName.clear();
    for (const m of messengers) this.byName.set(m.name, m);
    await Promise.allSettled(old.filter((m) => !messengers.includes(m)).map((m) => m.close()));
  }

  /** Closes every messenger. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.byName.values()].map((m) => m.close()));
  }
}
