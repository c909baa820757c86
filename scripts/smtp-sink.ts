/**
 * A throwaway SMTP server for trying Mailroom locally (README walk-through): listens on 127.0.0.1:1025
 * (or SMTP_SINK_PORT), accepts every message and prints its recipient, subject, unsubscribe header and
 * text. Nothing is stored or relayed.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

const port = Number(process.env.SMTP_SINK_PORT ?? 1025);
let count = 0;

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        count += 1;
        const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
        // mailparser folds List-* headers into a structured `list` header; the raw line is simpler to show.
        const unsubLine = mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line;
        const unsub = unsubLine?.replace(/^list-unsubscribe:\s*/iu, '').replace(/^<|>$/gu, '');
        process.stdout.write(
          `\n#${count} to ${to}\n  Subject: ${mail.subject ?? ''}\n  List-Unsubscribe: ${unsub ?? '-'}\n` +
            `  ${(mail.text ?? '').trim().replace(/\s+/gu, ' ').slice(0, 200)}\n`,
        );
        callback();
      })
      .catch((err: Error) => callback(err));
  },
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`SMTP sink listening on smtp://127.0.0.1:${port}\n`));
