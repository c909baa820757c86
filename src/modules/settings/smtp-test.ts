/**
 * POST /api/settings/smtp/test (listmonk's TestSMTPSettings, reference §12): sends one test e-mail
 * through an SMTP server described in the request (as edited in the settings form, not yet saved), so
 * an administrator learns whether the settings work before saving them.
 *
 * A password sent back masked (or empty) means the stored password of the block with the same `uuid`,
 * but only while the fields that say where it travels are unchanged (SMTP_SECRET_DESTINATION, the rule
 * of the settings write, issue 14 finding 1): otherwise testing a new host would hand it the stored
 * password. Failures are 400s: a reply of the server about the message keeps its text; failures to
 * connect, greet, secure or log in get the one generic wording (issue 14 finding 10), the real error
 * going to the server log, as for every other send.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { BadRequestError, FieldError } from '../../errors.js';
import { parseEmail, parseSender } from '../../mail/address.js';
import { checkCustomHeaders } from '../../mail/headers.js';
import { SendError } from '../../mail/messenger.js';
import { SmtpMessenger } from '../../mail/smtp.js';
import { smtpOptions } from '../../mail/smtp-messengers.js';
import { isUnchangedSecret, secretMovedProblem } from '../../settings/definitions.js';
import { I18n } from '../../templating/i18n.js';
import { SMTP_SECRET_DESTINATION, SmtpServer } from './core-settings.js';

const { host, port, ...optional } = SmtpServer.properties;

/** Longest wait to connect and be greeted during a test (ms). */
const TEST_CONNECT_MS = 10_000;
/** Longest silence of the server during a test (ms). */
const TEST_SOCKET_MS = 20_000;

/**
 * The body: one SMTP block as GET /api/settings shows it (every field but `host` and `port` may be
 * left out and takes the settings form's default) plus `email`, the recipient of the test.
 */
export const SmtpTestBody = Type.Object({
  ...Type.Partial(Type.Object(optional)).properties,
  host,
  port,
  email: Type.String({ maxLength: 1000 }),
});
export type SmtpTestBody = Static<typeof SmtpTestBody>;

/** What the test needs from the rest of Mailroom. */
export interface SmtpTestDeps {
  /** The stored SMTP blocks (with their real passwords). */
  stored: () => SmtpServer[];
  /** `app.from_email`: the sender of the test, as of every system e-mail. */
  from: () => string;
  /** `app.lang`: the language of the test e-mail. */
  lang: () => string;
  log: Logger;
}

/** Sends SMTP test e-mails. */
export class SmtpTester {
  constructor(private readonly d: SmtpTestDeps) {}

  /**
   * Sends the test e-mail to `body.email` through the described server; resolves with what happened,
   * as lines (listmonk answers an array of log lines). Throws FieldError (`email`, `password`,
   * `email_headers.<i>`) for bad input and BadRequestError when the server could not be used or
   * refused the message.
   */
  async send(body: SmtpTestBody): Promise<string[]> {
    const to = parseEmail(body.email);
    if (!to.ok) throw new FieldError('email', to.reason);
    const block = this.block(body);
    checkCustomHeaders('email_headers', block.email_headers);
    const from = this.d.from();
    const server = `${block.host}:${block.port}`;
    // One connection (listmonk's test pool), and waits capped so a request never hangs on a long
    // `wait_timeout`/`idle_timeout` meant for the campaign pools.
    const options = smtpOptions(block);
    const messenger = new SmtpMessenger('smtp-test', {
      ...options,
      maxConnections: 1,
      maxRetries: 0,
      connectionTimeoutMs: Math.min(options.connectionTimeoutMs ?? TEST_CONNECT_MS, TEST_CONNECT_MS),
      socketTimeoutMs: Math.min(options.socketTimeoutMs ?? TEST_SOCKET_MS, TEST_SOCKET_MS),
    });
    const i18n = I18n.for(this.d.lang());
    try {
      await messenger.push({
        from,
        to: { name: '', address: to.email },
        subject: i18n.T('settings.smtp.testConnection'),
        text: i18n.Ts('settings.smtp.testBody', 'server', server),
        headers: [['Auto-Submitted', 'auto-generated']],
        messageId: `${randomUUID()}@${parseSender(from)?.address.split('@')[1] ?? 'localhost'}`,
      });
    } catch (err) {
      if (!(err instanceof SendError)) throw err;
      if (err.detail !== err.message) this.d.log.warn({ server, err: err.detail }, 'SMTP test: could not use the server');
      throw new BadRequestError(`the test e-mail could not be sent: ${err.message}`);
    } finally {
      await messenger.close();
    }
    return [`test e-mail sent to ${to.email} through ${server}`];
  }

  /** The block to test: defaults for the fields left out, the stored password when it may be kept. */
  private block(body: SmtpTestBody): SmtpServer {
    const { email: _email, ...given } = body;
    const block: SmtpServer = {
      uuid: '', name: '', enabled: true, hello_hostname: '', username: '', password: '',
      auth_protocol: given.username ? 'login' : 'none', tls_type: 'STARTTLS', tls_skip_verify: false,
      max_conns: 1, idle_timeout: '2s', wait_timeout: '5s', max_msg_retries: 0, email_headers: [],
      ...given,
    };
    if (!isUnchangedSecret(block.password)) return block;
    const stored = block.uuid === '' ? undefined : this.d.stored().find((s) => s.uuid === block.uuid);
    if (stored === undefined || stored.password === '') return { ...block, password: '' };
    const changed = SMTP_SECRET_DESTINATION.filter((f) => JSON.stringify(block[f]) !== JSON.stringify(stored[f]));
    if (changed.length === 0) return { ...block, password: stored.password };
    if (block.auth_protocol === 'none') return { ...block, password: '' };
    throw new FieldError('password', secretMovedProblem(changed, SMTP_SECRET_DESTINATION));
  }
}
