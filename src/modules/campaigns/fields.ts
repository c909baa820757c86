/**
 * Pure rules for single campaign fields (spec 4.7, reference §7.3, §13): send times, senders,
 * archive slugs, custom headers, and the body generated for opt-in campaigns.
 */
import { checkCustomHeaders } from '../../mail/headers.js';
import { FieldError } from '../../errors.js';
import { escapeHtml } from '../../http/html.js';
import { formatSender, parseSender } from '../../mail/address.js';
import type { ListRef } from '../lists/repo.js';

/**
 * Parses `send_at`: ISO 8601 with or without offset (spec format `YYYY-MM-DDTHH:MM:SS` is read as UTC).
 * Throws FieldError for unparseable values.
 */
export function parseSendAt(value: string): Date {
  const text = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/u.test(value.trim()) ? `${value.trim()}Z` : value.trim();
  const ms = /^\d{4}-\d{2}-\d{2}T/u.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new FieldError('send_at', 'must be a date-time like 2026-12-01T09:00:00Z');
  return new Date(ms);
}

/** A trimmed, non-blank value; FieldError `must not be blank` otherwise. */
export function nonBlank(field: string, value: string): string {
  const v = value.trim();
  if (v === '') throw new FieldError(field, 'must not be blank');
  return v;
}

/** Normalises a `from_email`: `Name <address>` or a bare address; '' means `fallback`. */
export function normaliseSender(input: string, fallback: string): string {
  if (input.trim() === '') return fallback;
  const sender = parseSender(input);
  if (sender === null) throw new FieldError('from_email', 'must be `Name <address>` or an e-mail address');
  return formatSender(sender);
}

/**
 * listmonk's archive slug rule (reference §7.3): lower-cased, every run of characters other than
 * letters and digits becomes `-`, no leading or trailing `-`; empty → null (the archive URL then uses
 * the campaign UUID).
 */
export function slugify(value: string | null): string | null {
  if (value === null) return null;
  const slug = value.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/gu, '');
  return slug === '' ? null : slug;
}

/**
 * Checks custom headers (`[{"X-Name": "value"}]`) with the one header rule (src/mail/headers.ts, issue
 * 14 finding 7): valid names, none that adds recipients, changes the envelope or that Mailroom sets.
 * Throws FieldError on `headers.<index>`.
 */
export function checkHeaders(headers: Array<Record<string, string>>): void {
  checkCustomHeaders('headers', headers);
}

/** A list name made safe for HTML and for the template language (no `{{` can start an action). */
function listNameHtml(list: ListRef): string {
  const name = list.type === 'private' ? 'a private list' : list.name;
  return escapeHtml(name).replace(/\{/gu, '&#123;').replace(/\}/gu, '&#125;');
}

/**
 * The body of an opt-in campaign created without one (reference §7.3, §15.4): a greeting, the double
 * opt-in lists (private ones not named), and a button to `{{ OptinURL }}` with `l=<list uuid>` for
 * each list, the link the opt-in page confirms.
 */
export function optinCampaignBody(lists: ListRef[]): string {
  const double = lists.filter((l) => l.optin === 'double');
  const items = double.map((l) => `  <li>${listNameHtml(l)}</li>`).join('\n');
  const params = double.map((l) => `l=${l.uuid}`).join('&amp;');
  return `<p>Hi {{ .Subscriber.FirstName }},</p>
<p>You have been added to the following mailing list${double.length === 1 ? '' : 's'}:</p>
<ul>
${items}
</ul>
<p>Please confirm your subscription, so that we know you want to receive our e-mails.</p>
<p><a class="mr-button button" href="{{ OptinURL }}${params}">Confirm subscription</a></p>`;
}
