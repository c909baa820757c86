/**
 * Sprig v3 string functions, argument order as Sprig (`replace old new src`, `trimPrefix prefix s`,
 * `repeat count s`, …). Behaviour from Sprig's documentation; written anew. Positions in
 * substr/trunc/abbrev count characters, not bytes (see README).
 */
import { EvalFailure } from '../errors.js';
import { goQuote } from '../go-format.js';
import type { CallContext } from '../types.js';
import { str, strval, toInt64 } from './conv.js';
import { checkSize, def, type FuncTable } from './registry.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const chars = (s: string): string[] => Array.from(s);

/** Go's strings.Title word-boundary rule: letters, digits and '_' continue a word. */
function isSeparator(ch: string | undefined): boolean {
  if (ch === undefined) return true;
  if (/[A-Za-z0-9_]/.test(ch)) return false;
  if (ch.charCodeAt(0) < 0x80) return true;
  if (/[\p{L}\p{N}]/u.test(ch)) return false;
  return /\s/u.test(ch);
}

/**
 * Go's per-character (simple) case mapping, as strings.ToUpper/ToLower/Title apply it: a character
 * whose full mapping is several characters stays as it is (`ß` is not `SS`), except `İ` → `i`;
 * no context rules (a final `Σ` lowers to `σ`).
 */
function mapCase(s: string, lower: boolean): string {
  if (/^[\x00-\x7f]*$/.test(s)) return lower ? s.toLowerCase() : s.toUpperCase();
  let out = '';
  for (const ch of s) out += caseOf(ch, lower);
  return out;
}

function caseOf(ch: string, lower: boolean): string {
  if (lower && ch === '\u0130') return 'i';
  const m = lower ? ch.toLowerCase() : ch.toUpperCase();
  return m.length === ch.length || Array.from(m).length === 1 ? m : ch;
}

/** Title case differs from upper case only for the Latin digraphs (`ǆ` → `ǅ`, not `Ǆ`). */
const TITLE_DIGRAPHS: Record<string, string> = {
  'Ǆ': 'ǅ', 'ǅ': 'ǅ', 'ǆ': 'ǅ', 'Ǉ': 'ǈ', 'ǈ': 'ǈ', 'ǉ': 'ǈ', 'Ǌ': 'ǋ', 'ǋ': 'ǋ', 'ǌ': 'ǋ', 'Ǳ': 'ǲ', 'ǲ': 'ǲ', 'ǳ': 'ǲ',
};

function title(s: string): string {
  let prev: string | undefined;
  let out = '';
  for (const ch of s) {
    out += isSeparator(prev) ? (TITLE_DIGRAPHS[ch] ?? caseOf(ch, false)) : ch;
    prev = ch;
  }
  return out;
}

function substr(start: number, end: number, s: string): string {
  const cs = chars(s);
  let a = start;
  let b = end;
  if (a < 0) a = 0;
  if (b < 0 || b > cs.length) b = cs.length;
  if (a > b) throw new EvalFailure(`slice bounds out of range [${a}:${b}]`);
  return cs.slice(a, b).join('');
}

function trunc(n: number, s: string): string {
  const cs = chars(s);
  if (n < 0 && cs.length + n > 0) return cs.slice(cs.length + n).join('');
  if (n >= 0 && cs.length > n) return cs.slice(0, n).join('');
  return s;
}

function abbrev(width: number, s: string): string {
  const cs = chars(s);
  if (width < 4 || cs.length <= width) return s;
  return `${cs.slice(0, width - 3).join('')}...`;
}

/**
 * Word wrapping as goutils.WrapCustom: Sprig's `wrap` keeps words longer than the width whole,
 * `wrapWith` (longWords true) cuts them every `width` characters.
 */
export function wrap(width: number, s: string, nl = '\n', longWords = false): string {
  if (s === '') return '';
  const w = Math.max(1, width);
  let out = '';
  let off = 0;
  while (s.length - off > w) {
    if (s[off] === ' ') {
      off++;
      continue;
    }
    const space = s.lastIndexOf(' ', off + w);
    if (space >= off) {
      out += s.slice(off, space) + nl;
      off = space + 1;
      continue;
    }
    if (longWords) {
      out += s.slice(off, off + w) + nl;
      off += w;
      continue;
    }
    const next = s.indexOf(' ', off + w);
    if (next === -1) {
      out += s.slice(off);
      off = s.length;
    } else {
      out += s.slice(off, next) + nl;
      off = next + 1;
    }
  }
  return out + s.slice(off);
}

function repeat(c: CallContext, count: unknown, s: unknown): string {
  const n = toInt64(count);
  const text = str(s);
  if (n < 0) throw new EvalFailure('strings: negative Repeat count');
  checkSize(c, n * text.length, 'repeat');
  return text.repeat(n);
}

function indent(c: CallContext, n: unknown, s: unknown): string {
  const k = toInt64(n);
  if (k < 0) throw new EvalFailure('strings: negative Repeat count');
  const text = str(s);
  const lines = text.split('\n').length;
  checkSize(c, text.length + k * lines, 'indent');
  const pad = ' '.repeat(k);
  return pad + text.split('\n').join(`\n${pad}`);
}

function wrapWith(c: CallContext, width: unknown, sep: unknown, s: unknown, longWords = true): string {
  const text = str(s);
  const nl = str(sep) || '\n';
  checkSize(c, text.length * (nl.length + 1), 'wrapWith');
  return wrap(toInt64(width), text, nl, longWords);
}

const nonNil = (a: unknown[]): unknown[] => a.filter((x) => x !== undefined && x !== null);
const s1 = (fn: (s: string) => unknown): F => (_c, v) => fn(str(v));
const s2 = (fn: (a: string, b: string) => unknown): F => (_c, a, b) => fn(str(a), str(b));

/** Sprig string functions by name. */
export const SPRIG_STRINGS: FuncTable = {
  upper: def(s1((s) => mapCase(s, false)), 1),
  lower: def(s1((s) => mapCase(s, true)), 1),
  title: def(s1(title), 1),
  untitle: def(s1((s) => s.replace(/(^|\s)(\S)/gu, (_m, p: string, ch: string) => p + caseOf(ch, true))), 1),
  trim: def(s1((s) => s.trim()), 1),
  trimAll: def(s2((cut, s) => {
    const set = new Set(chars(cut));
    const cs = chars(s);
    let a = 0;
    let b = cs.length;
    while (a < b && set.has(cs[a] as string)) a++;
    while (b > a && set.has(cs[b - 1] as string)) b--;
    return cs.slice(a, b).join('');
  }), 2),
  trimPrefix: def(s2((p, s) => (s.startsWith(p) ? s.slice(p.length) : s)), 2),
  trimSuffix: def(s2((p, s) => (p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s)), 2),
  replace: def((c, o, n, s) => {
    const src = str(s);
    const [from, to] = [str(o), str(n)];
    const out = from === '' ? chars(src).map((ch) => to + ch).join('') + to : src.split(from).join(to);
    checkSize(c, out.length, 'replace');
    return out;
  }, 3),
  contains: def(s2((sub, s) => s.includes(sub)), 2),
  hasPrefix: def(s2((p, s) => s.startsWith(p)), 2),
  hasSuffix: def(s2((p, s) => s.endsWith(p)), 2),
  repeat: def(repeat as F, 2),
  substr: def((_c, a, b, s) => substr(toInt64(a), toInt64(b), str(s)), 3),
  trunc: def((_c, n, s) => trunc(toInt64(n), str(s)), 2),
  abbrev: def((_c, n, s) => abbrev(toInt64(n), str(s)), 2),
  nospace: def(s1((s) => s.replace(/\s+/gu, '')), 1),
  quote: def((_c, ...a) => nonNil(a).map((x) => goQuote(strval(x))).join(' '), 0, Infinity),
  squote: def((_c, ...a) => nonNil(a).map((x) => `'${strval(x)}'`).join(' '), 0, Infinity),
  cat: def((_c, ...a) => nonNil(a).map(strval).join(' '), 0, Infinity),
  indent: def(indent as F, 2),
  nindent: def((c, n, s) => `\n${indent(c, n, s)}`, 2),
  wrap: def((c, w, s) => wrapWith(c, w, '\n', s, false), 2),
  plural: def((_c, one, many, n) => (toInt64(n) === 1 ? str(one) : str(many)), 3),
  toString: def((_c, v) => strval(v), 1),
};
