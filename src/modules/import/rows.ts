/**
 * CSV rows of an import (spec 4.6, reference §6): the header names the columns (`email` required,
 * `name` and `attributes` optional, others ignored; BOM and non-ASCII characters stripped from names,
 * as listmonk does), and every data row is checked like an API create: a valid address, a name
 * (derived from the address when empty), and attributes that are a JSON object within the size limit.
 * A bad row is reported with its reason, never fatal. Valid rows become lines of PostgreSQL's COPY
 * text format.
 */
import { checkDomain, NO_DOMAIN_RULES, type DomainRules } from '../subscribers/domains.js';
import { FieldError } from '../../errors.js';
import { MAX_JSON_DEPTH, tooDeep, tooDeepMessage } from '../../http/json-body.js';
import { MAX_ATTRIBS_BYTES } from '../subscribers/schemas.js';
import { validEmail, validName } from '../subscribers/service.js';

/** Column positions from the header row (-1 when absent). */
export interface Columns {
  email: number;
  name: number;
  attributes: number;
  /** Number of columns every row must have. */
  count: number;
}

/** A checked row: the values to write, or why it is skipped. */
export type CheckedRow = { ok: true; email: string; name: string; attribs: string } | { ok: false; reason: string };

/** Thrown when the header row is unusable (the import cannot start). */
export class HeaderError extends Error {}

/**
 * Maps the header row to column positions. Throws HeaderError when there is no `email` column or a
 * recognised column appears twice.
 */
export function mapHeader(fields: string[]): Columns {
  const names = fields.map((f) => f.replace(/[^\x20-\x7e]/gu, '').trim().toLowerCase());
  const find = (name: string): number => {
    const at = names.indexOf(name);
    if (at !== -1 && names.indexOf(name, at + 1) !== -1) throw new HeaderError(`the header has two "${name}" columns`);
    return at;
  };
  const cols = { email: find('email'), name: find('name'), attributes: find('attributes'), count: fields.length };
  if (cols.email === -1) {
    const shown = names.filter((n) => n !== '').slice(0, 10).join(', ');
    throw new HeaderError(`the header row has no "email" column${shown ? ` (found: ${shown})` : ''}`);
  }
  return cols;
}

// An unpaired UTF-16 surrogate (no `u` flag: the pattern works on code units).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when a parsed JSON value holds a string PostgreSQL cannot store (NUL, unpaired surrogate). */
function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0') || LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => hasUnstorableText(k) || hasUnstorableText(v));
  }
  return false;
}

/** Checks the `attributes` cell; its JSON text to store, or the reason it is refused. */
function checkAttributes(text: string): { json: string } | { reason: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { json: '{}' };
  // Before parsing: a value nested thousands deep would overflow the stack below (issue 14 finding 9).
  if (tooDeep(trimmed, MAX_JSON_DEPTH, 0) !== null) return { reason: tooDeepMessage('attributes') };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { reason: 'attributes: is not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { reason: 'attributes: must be a JSON object' };
  // Escapes are the only way to write NUL or a lone surrogate in JSON text; check only then.
  if (trimmed.includes('\\u') && hasUnstorableText(value)) return { reason: 'attributes: contains a NUL character or an invalid Unicode escape' };
  const json = JSON.stringify(value);
  // The same limit as the subscribers API (64 KiB of JSON).
  if (json.length > MAX_ATTRIBS_BYTES / 4 && Buffer.byteLength(json, 'utf8') > MAX_ATTRIBS_BYTES) {
    return { reason: `attributes: must be at most ${MAX_ATTRIBS_BYTES} bytes of JSON` };
  }
  return { json };
}

/**
 * Checks one data row against the header's columns, and its address against `domains` (listmonk's
 * importer applies the domain allow/blocklists too, reference §6).
 */
export function checkRow(fields: string[], cols: Columns, domains: DomainRules = NO_DOMAIN_RULES): CheckedRow {
  if (fields.length !== cols.count) return { ok: false, reason: `expected ${cols.count} columns, found ${fields.length}` };
  let email: string;
  let name: string;
  try {
    email = validEmail(fields[cols.email] ?? '');
    checkDomain(email, domains);
    const rawName = cols.name === -1 ? '' : (fields[cols.name] ?? '');
    if (rawName.includes('\0')) return { ok: false, reason: 'name: contains a NUL character' };
    name = validName(rawName, email);
  } catch (err) {
    if (err instanceof FieldError) return { ok: false, reason: err.message };
    throw err;
  }
  const attribs = cols.attributes === -1 ? { json: '{}' } : checkAttributes(fields[cols.attributes] ?? '');
  if ('reason' in attribs) return { ok: false, reason: attribs.reason };
  return { ok: true, email, name, attribs: attribs.json };
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Escapes a value for COPY's text format (backslash, tab, newline, carriage return). */
export function copyEscape(value: string): string {
  return /[\\\t\n\r]/u.test(value) ? value.replace(/[\\\t\n\r]/gu, (c) => COPY_ESCAPES[c] as string) : value;
}

/** One COPY text line for the staging table: line, email, name, attribs. */
export function copyLine(line: number, row: { email: string; name: string; attribs: string }): string {
  return `${line}\t${copyEscape(row.email)}\t${copyEscape(row.name)}\t${copyEscape(row.attribs)}\n`;
}

/** Number of line breaks (CRLF, LF or CR) inside a record's fields, to find the line it starts on. */
export function lineBreaks(fields: string[]): number {
  let n = 0;
  for (const f of fields) {
    if (f.includes('\n') || f.includes('\r')) n += f.match(/\r\n|\r|\n/gu)?.length ?? 0;
  }
  return n;
}
