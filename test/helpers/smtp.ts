/**
 * A real SMTP server for tests (`smtp-server` on a random port). Every accepted message is parsed with
 * `mailparser` and kept, in arrival order. A `reject` hook can refuse recipients or whole messages with
 * any SMTP code, to exercise transient (4xx) and permanent (5xx) failures.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

/** A received message: the envelope and the parsed content. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
  raw: Buffer;
  /** When the sink accepted the message (ms since the epoch). */
  receivedAt: number;
}

/** Decides to refuse a recipient: return an SMTP code (4xx/5xx) to refuse, or null to accept. */
export type RejectHook = (recipient: string) => number | null;

/** A running sink. */
export interface SmtpSink {
  port: number;
  url: string;
  messages: ReceivedMail[];
  /** Refuse recipients while set. */
  reject: RejectHook | null;
  /** While true, every new connection is greeted with 421 and closed (the relay is down for us). */
  refuseConnections: boolean;
  /** Delay before accepting each message's data (ms), to make a campaign last. */
  delayMs: number;
  /** Resolves once at least `n` messages have arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts an SMTP sink on 127.0.0.1 with a random port. `parse: false` keeps raw messages only (speed).
 * `auth`: the server offers AUTH PLAIN/LOGIN (over plain text, for tests), accepts only these
 * credentials (535 otherwise) and refuses mail from sessions that did not log in (530).
 */
export async function startSmtpSink(opts: { parse?: boolean; auth?: { user: string; pass: string } } = {}): Promise<SmtpSink> {
  const parse = opts.parse ?? true;
  const messages: ReceivedMail[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sink: Partial<SmtpSink> = { messages, reject: null, delayMs: 0, refuseConnections: false };

  const auth = opts.auth;
  const server = new SMTPServer({
    authOptional: auth === undefined,
    disabledCommands: ['STARTTLS'],
    ...(auth === undefined ? {} : { allowInsecureAuth: true, authMethods: ['PLAIN', 'LOGIN'] }),
    onAuth(credentials, _session, callback) {
      if (auth !== undefined && credentials.username === auth.user && credentials.password === auth.pass) return callback(null, { user: credentials.username });
      return callback(Object.assign(new Error('invalid credentials (test sink)'), { responseCode: 535 }));
    },
    logger: false,
    size: 50 * 1024 * 1024,
    onConnect(_session, callback) {
      if (!sink.refuseConnections) return callback();
      return callback(Object.assign(new Error('service not available (test sink)'), { responseCode: 421 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const code = sink.reject?.(address.address) ?? null;
      if (code === null) return callback();
      const err = Object.assign(new Error(`refused by test sink (${code})`), { responseCode: code });
      return callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const receivedAt = Date.now();
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const done = (parsed: ParsedMail): void => {
          messages.push({ envelope, parsed, raw, receivedAt });
          for (const w of [...waiters]) {
            if (messages.length >= w.n) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve();
            }
          }
          callback();
        };
        const accept = (): void => {
          if (parse) simpleParser(raw).then(done, (err: Error) => callback(err));
          else done({} as ParsedMail);
        };
        if (sink.delayMs) setTimeout(accept, sink.delayMs);
        else accept();
      });
    },
  });
  // Clients that die mid-session (a killed Mailroom) reset connections; that is expected here.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(sink, {
    port,
    url: `smtp://127.0.0.1:${port}`,
    waitFor(n: number, timeoutMs = 30_000): Promise<void> {
      if (messages.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${messages.length} of ${n} messages arrived`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as SmtpSink;
}

/** The Message-ID of a raw message (without angle brackets), or undefined. Works with `parse: false`. */
export function rawMessageId(raw: Buffer): string | undefined {
  const head = raw.subarray(0, Math.min(raw.length, 8192)).toString('latin1');
  return /^Message-ID:\s*<([^>]+)>/imu.exec(head)?.[1];
}

/** The unfolded value of the first header called `name` in a parsed message, or undefined. */
export function headerValue(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/gu, ' ').trim();
}
