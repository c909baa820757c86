/**
 * Reading the e-mails an SMTP sink received: finding the messages to one address and the double
 * opt-in confirmation link inside them.
 */
import type { ReceivedMail, SmtpSink } from './smtp.js';

/** The messages the sink received for `address`, in arrival order. */
export function mailsTo(sink: SmtpSink, address: string): ReceivedMail[] {
  return sink.messages.filter((m) => m.envelope.to.includes(address));
}

/** The opt-in confirmation link (`…/subscription/optin/<uuid>?l=…`) of a received message, HTML-decoded. */
export function optinLink(mail: ReceivedMail): string {
  const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
  const m = /href="([^"]*\/subscription\/optin\/[^"]*)"/u.exec(html);
  if (!m) throw new Error(`no opt-in link in: ${html.slice(0, 500)}`);
  return m[1]!.replace(/&amp;/gu, '&');
}

/** Waits until `address` has received `n` messages (or fails after `timeoutMs`). */
export async function waitForMailTo(sink: SmtpSink, address: string, n = 1, timeoutMs = 15_000): Promise<ReceivedMail[]> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const got = mailsTo(sink, address);
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${address} received ${mailsTo(sink, address).length} of ${n} messages`);
}
