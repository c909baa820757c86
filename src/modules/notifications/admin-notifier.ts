/**
 * E-mails to the people running Mailroom, as listmonk sends them to `app.notify_emails` (reference
 * §6 and §15.1): a campaign finished ("Finished: <name>"), a campaign paused by `app.max_send_errors`
 * ("Paused: <name>"), an import ended ("Finished: <file> import", "Stopped: …", "Failed: …").
 *
 * Best effort and in the background: a notification never delays or fails the work it reports on. It
 * goes through the `email` messenger from `app.from_email`, one message per address, plain text,
 * marked `Auto-Submitted: auto-generated` (RFC 3834) so that auto-responders leave it alone. A
 * transient failure is retried twice (1 s, 5 s by default); what still fails is logged and dropped.
 * Nothing is sent while `app.notify_emails` is empty (the default, as in listmonk). {@link
 * AdminNotifier.deliver} sends other system e-mails (the password-reset link) the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { parseSender } from '../../mail/address.js';
import { SendError, type MessengerRegistry, type OutgoingMessage } from '../../mail/messenger.js';
import { sleep } from '../../util/sleep.js';

/** Collaborators of the {@link AdminNotifier}; the two settings are read at each notification. */
export interface AdminNotifierOptions {
  messengers: MessengerRegistry;
  /** `app.notify_emails`: `Name <address>` or bare addresses. */
  recipients: () => string[];
  /** `app.from_email`. */
  from: () => string;
  logger: Logger;
  /** Delays before the retries of a transient failure, ms (default 1 s, 5 s). */
  retryDelaysMs?: number[];
}

/** Most notifications waiting at once; more are dropped with a warning. */
const MAX_PENDING = 1000;

/** Sends operator notifications. */
export class AdminNotifier {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: AdminNotifierOptions) {}

  /**
   * Queues `subject` with the plain-text `body` to every address of `app.notify_emails`. Never throws
   * and returns at once; {@link drain} waits for the sends.
   */
  notify(subject: string, body: string): void {
    const to = this.opts.recipients();
    if (to.length === 0) return;
    if (this.pending.size >= MAX_PENDING) {
      this.opts.logger.warn({ subject }, 'too many notifications waiting; not sending this one');
      return;
    }
    const from = this.opts.from();
    const domain = parseSender(from)?.address.split('@')[1] ?? 'localhost';
    for (const recipient of to) {
      const address = parseSender(recipient);
      if (address === null) continue; // the setting is validated; an address stored otherwise is skipped
      const message: OutgoingMessage = {
        from,
        to: { name: address.name, address: address.address },
        subject,
        text: body,
        headers: [['Auto-Submitted', 'auto-generated']],
        messageId: `${randomUUID()}@${domain}`,
      };
      this.deliver(message);
    }
  }

  /**
   * Queues one system e-mail to one recipient (a password-reset link) through the same messenger,
   * retries and drain as the notifications. Never throws and returns at once; returns false, sending
   * nothing, when too many messages are waiting.
   */
  deliver(message: OutgoingMessage): boolean {
    if (this.pending.size >= MAX_PENDING) {
      this.opts.logger.warn({ subject: message.subject }, 'too many system e-mails waiting; not sending this one');
      return false;
    }
    const sending = this.send(message).finally(() => this.pending.delete(sending));
    this.pending.add(sending);
    return true;
  }

  /** Resolves once every queued notification was sent or given up (graceful shutdown, tests). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async send(message: OutgoingMessage): Promise<void> {
    const delays = this.opts.retryDelaysMs ?? [1000, 5000];
    for (let attempt = 0; ; attempt++) {
      const messenger = this.opts.messengers.get('email');
      try {
        if (messenger === undefined) throw new Error('no e-mail messenger is configured');
        await messenger.push(message);
        return;
      } catch (err) {
        const transient = !(err instanceof SendError) || err.kind === 'transient';
        if (!transient || attempt >= delays.length) {
          this.opts.logger.warn({ err, to: message.to.address, subject: message.subject }, 'notification e-mail not sent');
          return;
        }
        await sleep(delays[attempt]!);
      }
    }
  }
}
