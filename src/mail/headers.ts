/**
 * The one rule for custom mail headers (issue 14 finding 7), used by campaign `headers` (create and
 * update), tx `headers`, and the SMTP servers' `email_headers` (settings), and enforced again by the
 * SMTP messenger right before sending, so a row stored before the rule existed cannot send a `Bcc`.
 *
 * nodemailer builds the SMTP envelope from the message's `To`, `Cc` and `Bcc` headers, custom ones
 * included (and listmonk turns `Cc`, `Bcc` and `Return-Path` into envelope recipients and sender on
 * purpose). A `Bcc` in a campaign would copy every personalised message, unsubscribe links included,
 * to that address. So these names are refused, compared case-insensitively:
 *
 * - destination fields (RFC 5322 §3.6.3) and their resent forms (§3.6.6): `To`, `Cc`, `Bcc`,
 *   `Resent-To`, `Resent-Cc`, `Resent-Bcc` — they add recipients;
 * - originator and envelope fields: `From`, `Sender` (§3.6.2), every `Resent-*` field (§3.6.6),
 *   `Return-Path` (§3.6.7; RFC 5321 §4.4: only the final MTA adds it, listmonk makes it the envelope
 *   sender) — the sender is the campaign's or message's `from_email`;
 * - fields Mailroom sets itself: `Subject`, `Date`, `Message-ID` (§3.6.1, §3.6.4, §3.6.5),
 *   `MIME-Version` and `Content-Type`, `Content-Transfer-Encoding`, `Content-Disposition`,
 *   `Content-ID` (RFC 2045, 2183), which shape the MIME structure.
 *
 * `Reply-To` stays allowed: it changes no recipient and no envelope. Names must be RFC 5322 field
 * names (§2.2: printable US-ASCII except the colon, so no spaces), which also refuses the whitespace
 * and line-break spellings (`" Bcc"`, `"Bcc\r\n"`) that nodemailer would trim back to `Bcc`; values
 * must not contain line breaks or NUL.
 */
import { FieldError } from '../errors.js';

/** RFC 5322 §2.2 field names, at most 200 characters. */
const FIELD_NAME = /^[!-9;-~]{1,200}$/u;

const RECIPIENT_FIELDS = new Set(['to', 'cc', 'bcc', 'resent-to', 'resent-cc', 'resent-bcc']);
const ORIGINATOR_FIELDS = new Set(['from', 'sender', 'return-path']);
const MAILROOM_FIELDS = new Set([
  'subject', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding', 'content-disposition', 'content-id',
]);

/**
 * Why a custom header called `name` cannot be given, as a sentence starting with the quoted name; null
 * when it can. Case and surrounding whitespace do not matter for the reserved names (a name with
 * whitespace is invalid anyway).
 */
export function headerNameProblem(name: string): string | null {
  const quoted = JSON.stringify(name);
  const lower = name.trim().toLowerCase();
  if (RECIPIENT_FIELDS.has(lower)) return `${quoted} would add recipients to every message and cannot be given`;
  if (ORIGINATOR_FIELDS.has(lower) || lower.startsWith('resent-')) return `${quoted} would change the sender or the envelope and cannot be given (the sender is from_email)`;
  if (MAILROOM_FIELDS.has(lower)) return `${quoted} is set by Mailroom and cannot be given`;
  if (!FIELD_NAME.test(name)) return `${quoted} is not a valid header name (RFC 5322: printable ASCII without spaces or colons, at most 200 characters)`;
  return null;
}

/** Why the value of header `name` cannot be sent as given, or null (line breaks and NUL are refused). */
export function headerValueProblem(name: string, value: string): string | null {
  return /[\r\n\0]/u.test(value) ? `the value of ${JSON.stringify(name)} must not contain line breaks` : null;
}

/**
 * Checks headers given as listmonk's `[{"Name": "value"}, …]`; returns them as `[name, value]` pairs in
 * order. Throws FieldError on `<field>.<index>` (e.g. `headers.1`) naming the header.
 */
export function checkCustomHeaders(field: string, entries: Array<Record<string, string>>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  entries.forEach((entry, i) => {
    for (const [name, value] of Object.entries(entry)) {
      const problem = headerNameProblem(name) ?? headerValueProblem(name, value);
      if (problem !== null) throw new FieldError(`${field}.${i}`, problem);
      out.push([name, value]);
    }
  });
  return out;
}

/**
 * The send-time guard: `headers` without the ones the rule refuses (reserved or invalid names, values
 * with line breaks), and the names dropped. For data stored before the rule, and any path that skipped
 * the check.
 */
export function sendableHeaders(headers: ReadonlyArray<readonly [string, string]>): { kept: Array<[string, string]>; dropped: string[] } {
  const kept: Array<[string, string]> = [];
  const dropped: string[] = [];
  for (const [name, value] of headers) {
    if (headerNameProblem(name) === null && headerValueProblem(name, value) === null) kept.push([name, value]);
    else dropped.push(name);
  }
  return { kept, dropped };
}
