/**
 * E-mail address rules shared by subscribers, campaigns, configuration and messengers.
 *
 * A subscriber address is a bare RFC 5322 addr-spec (`local@domain`), trimmed and lower-cased, at most
 * 1,000 bytes; display-name forms (`Name <a@b.c>`) and comments are refused, as listmonk does by
 * requiring Go's net/mail parse to equal the input (reference §13). A sender (`from_email`) may be either
 * a bare address or `Name <address>` (reference §7.3).
 */

/** Longest accepted address, in UTF-8 bytes (listmonk: 1,000 on create, import and public forms). */
export const MAX_EMAIL_BYTES = 1000;

// RFC 5322 dot-atom local part (atext characters separated by single dots) or a quoted string without
// control characters. Unicode letters are allowed in the local part (RFC 6531, SMTPUTF8).
const ATEXT = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]";
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED = '"(?:[^"\\\\\\p{Cc}]|\\\\[^\\p{Cc}])*"';
// Domain: dot-separated labels of letters, digits and inner hyphens (IDN letters allowed), or an
// address literal such as [192.0.2.1]. A TLD is not required (`a@localhost` passes, as in listmonk).
const LABEL = '[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?';
const DOMAIN = `(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9A-Fa-f:.]+\\])`;
const ADDR_SPEC = new RegExp(`^(?:${DOT_ATOM}|${QUOTED})@${DOMAIN}$`, 'u');
const NAME_ADDR = /^\s*(.*?)\s*<([^<>]+)>\s*$/su;

/** Result of parsing an address: the normalised form, or the reason it was refused. */
export type ParsedEmail = { ok: true; email: string } | { ok: false; reason: string };

/**
 * Normalises and validates a subscriber e-mail address: trims, lower-cases, and checks it is one bare
 * addr-spec of at most {@link MAX_EMAIL_BYTES} bytes. Never throws.
 */
export function parseEmail(input: string): ParsedEmail {
  const email = input.trim().toLowerCase();
  if (email === '') return { ok: false, reason: 'is empty' };
  if (Buffer.byteLength(email, 'utf8') > MAX_EMAIL_BYTES) {
    return { ok: false, reason: `is longer than ${MAX_EMAIL_BYTES} bytes` };
  }
  if (email.includes('<') || email.includes('>')) {
    return { ok: false, reason: 'must be a bare address like user@example.com, without a display name' };
  }
  if (!ADDR_SPEC.test(email)) return { ok: false, reason: 'is not a valid e-mail address' };
  return { ok: true, email };
}

/** A sender address split into its parts. `name` is '' when the input was a bare address. */
export interface Sender {
  name: string;
  address: string;
}

/**
 * Parses a `from_email` value: `Name <address>` or a bare address. Returns null when it is neither.
 * The address part keeps its case (senders are not normalised). Source: reference §7.3.
 */
export function parseSender(input: string): Sender | null {
  const trimmed = input.trim();
  const match = NAME_ADDR.exec(trimmed);
  const name = match ? (match[1] ?? '').replace(/^"(.*)"$/su, '$1') : '';
  const address = (match ? (match[2] ?? '') : trimmed).trim();
  if (/[\r\n]/u.test(trimmed)) return null; // header injection
  if (!ADDR_SPEC.test(address.toLowerCase())) return null;
  return { name, address };
}

/** Formats a sender back into `Name <address>` (or the bare address when there is no name). */
export function formatSender(sender: Sender): string {
  if (sender.name === '') return sender.address;
  const needsQuotes = /[",;:<>@()[\]\\]/u.test(sender.name);
  const name = needsQuotes ? `"${sender.name.replace(/(["\\])/gu, '\\$1')}"` : sender.name;
  return `${name} <${sender.address}>`;
}

/** The domain of an address (text after the last `@`), lower-cased. */
export function emailDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Derives a display name from an address's local part when none is given: dots, underscores and
 * hyphens become spaces and each word is capitalised (`john.doe@x` → `John Doe`). Source: reference §4.3.
 */
export function nameFromEmail(email: string): string {
  const local = email.slice(0, email.lastIndexOf('@'));
  const words = local.split(/[._\-+]+/u).filter((w) => w !== '');
  if (words.length === 0) return local;
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
