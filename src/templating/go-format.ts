/**
 * Go's fmt for template values: %v printing (what an action prints), Sprint/Sprintln and Sprintf,
 * plus strconv.Quote. Written anew from Go's documented fmt behaviour.
 */
import { chargeBuilt, chargeText, chargeWalk } from './budget.js';
import { formatE, formatF, formatG, formatNumberV } from './go-number.js';
import { GoNull, NullTime } from './go-null.js';
import { timeString } from './go-time.js';
import { SafeHTML } from './types.js';
import { goTypeName, isMap, mapGet, sortedKeys } from './values.js';

const MAX_PRINT_DEPTH = 32;

/** Whether a class instance has its own toString (Go's Stringer). */
function stringer(v: object): string | null {
  const ts = (v as { toString?: unknown }).toString;
  if (typeof ts === 'function' && ts !== Object.prototype.toString && !Array.isArray(v)) {
    return String(ts.call(v));
  }
  return null;
}

function formatStruct(v: object, plus: boolean, depth: number): string {
  const s = stringer(v);
  if (s !== null) return s;
  const keys = Object.keys(v);
  chargeWalk(keys.length + 1);
  const parts = keys.map((k) => {
    const val = formatValue((v as Record<string, unknown>)[k], plus, depth + 1);
    return plus ? `${k}:${val}` : val;
  });
  return chargeBuilt(`{${parts.join(' ')}}`);
}

/**
 * Go's %v (and %+v with `plus`) of a value: nil → `<nil>`, arrays → `[a b]`, maps →
 * `map[k:v]` in sorted key order, dates → time.Time.String(), structs → `{v1 v2}`.
 * Containers are charged to the execution's step budget node by node (budget.ts), so a value
 * sharing structure exponentially fails with the step limit instead of printing for minutes.
 */
export function formatValue(v: unknown, plus = false, depth = 0): string {
  switch (typeof v) {
    case 'string':
      if (depth > 0) chargeText(v);
      return v;
    case 'number': return formatNumberV(v);
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint': return v.toString();
    case 'undefined': return '<nil>';
    case 'function': return '<func>';
    case 'symbol': return v.toString();
  }
  if (v === null) return '<nil>';
  if (depth > MAX_PRINT_DEPTH) return '...';
  if (v instanceof SafeHTML) return v.value;
  if (v instanceof Date) return timeString(v);
  if (v instanceof GoNull) return v.text();
  if (Array.isArray(v)) {
    chargeWalk(v.length + 1);
    return chargeBuilt(`[${v.map((e) => formatValue(e, plus, depth + 1)).join(' ')}]`);
  }
  if (isMap(v)) {
    const keys = sortedKeys(v);
    chargeWalk(2 * keys.length + 1);
    const parts = keys.map((k) => `${formatValue(k, plus, depth + 1)}:${formatValue(mapGet(v, k), plus, depth + 1)}`);
    return chargeBuilt(`map[${parts.join(' ')}]`);
  }
  return formatStruct(v as object, plus, depth);
}

const isStringish = (v: unknown): boolean => typeof v === 'string' || v instanceof SafeHTML;

/** Go's fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0 && !isStringish(args[i]) && !isStringish(args[i - 1])) out += ' ';
    out += formatValue(args[i]);
  }
  return out;
}

/** Go's fmt.Sprintln: operands separated by spaces, newline appended. */
export function sprintln(args: unknown[]): string {
  return `${args.map((a) => formatValue(a)).join(' ')}\n`;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const NAMED: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** Escapes one character as strconv.Quote does (`"` quote; `asciiOnly` for %+q). */
export function quoteRune(ch: string, quote: string, asciiOnly: boolean): string {
  if (ch === quote || ch === '\\') return `\\${ch}`;
  const cp = ch.codePointAt(0) as number;
  if (PRINTABLE.test(ch) && (!asciiOnly || cp < 0x80)) return ch;
  if (NAMED[ch]) return NAMED[ch] as string;
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** Go's strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string, asciiOnly = false): string {
  let out = '"';
  for (const ch of s) out += quoteRune(ch, '"', asciiOnly);
  return `${out}"`;
}

interface Spec {
  minus: boolean; plus: boolean; sharp: boolean; zero: boolean; space: boolean;
  width: number | undefined; prec: number | undefined; verb: string;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  const w = spec.width;
  if (w === undefined || s.length >= w) return s;
  if (spec.minus) return s.padEnd(w, ' ');
  if (spec.zero && numeric) {
    const signLen = /^[+\- ]/.test(s) ? 1 : 0;
    return s.slice(0, signLen) + s.slice(signLen).padStart(w - signLen, '0');
  }
  return s.padStart(w, ' ');
}

const bad = (verb: string, v: unknown): string =>
  v === null || v === undefined ? `%!${verb}(<nil>)` : `%!${verb}(${goTypeName(v)}=${formatValue(v)})`;

function withSign(s: string, x: number, spec: Spec): string {
  if (s.startsWith('-') || Number.isNaN(x)) return s;
  return spec.plus ? `+${s}` : spec.space ? ` ${s}` : s;
}

/** The character for a code point; invalid ones become U+FFFD, as Go's fmt does. */
function runeOf(x: number): string {
  return x >= 0 && x <= 0x10ffff && !(x >= 0xd800 && x <= 0xdfff) ? String.fromCodePoint(x) : '\uFFFD';
}

function formatInt(x: number, spec: Spec): string {
  const neg = x < 0;
  const a = BigInt(Math.abs(x));
  let digits: string;
  switch (spec.verb) {
    case 'd': case 'v': digits = a.toString(); break;
    case 'b': digits = a.toString(2); break;
    case 'o': case 'O': digits = a.toString(8); break;
    case 'x': digits = a.toString(16); break;
    case 'X': digits = a.toString(16).toUpperCase(); break;
    case 'c': return runeOf(x);
    case 'q': return `'${quoteRune(runeOf(x), "'", spec.plus)}'`;
    case 'U': return `U+${a.toString(16).toUpperCase().padStart(4, '0')}`;
    default: return bad(spec.verb, x);
  }
  if (spec.prec !== undefined) digits = digits.padStart(spec.prec, '0');
  const sharpPrefix: Record<string, string> = { x: '0x', X: '0X', o: '0', b: '0b' };
  const prefix = spec.verb === 'O' ? '0o' : spec.sharp ? (sharpPrefix[spec.verb] ?? '') : '';
  return withSign((neg ? '-' : '') + prefix + digits, x, spec);
}

function formatFloat(x: number, spec: Spec): string {
  let s: string;
  switch (spec.verb) {
    case 'e': case 'E': s = formatE(x, spec.prec ?? 6, spec.verb === 'E'); break;
    case 'f': case 'F': s = formatF(x, spec.prec ?? 6); break;
    case 'g': case 'G': s = formatG(x, spec.prec, spec.verb === 'G'); break;
    case 'v': s = spec.prec === undefined ? formatNumberV(x) : formatG(x, spec.prec); break;
    default: return bad(spec.verb, x);
  }
  return withSign(s, x, spec);
}

function formatString(s: string, spec: Spec): string {
  const str = spec.prec === undefined ? s : Array.from(s).slice(0, spec.prec).join('');
  switch (spec.verb) {
    case 's': case 'v': return str;
    case 'q': return spec.sharp && !/[`\r\n]/.test(str) ? `\`${str}\`` : goQuote(str, spec.plus);
    case 'x': case 'X': {
      const hex = Buffer.from(str, 'utf8').toString('hex');
      const h = spec.verb === 'X' ? hex.toUpperCase() : hex;
      return spec.space ? (h.match(/../g) ?? []).join(' ') : h;
    }
  }
  return bad(spec.verb, s);
}

/** Formats one operand for one verb. Arrays and maps apply the verb to each element, like Go. */
function formatArg(arg: unknown, spec: Spec, depth = 0): string {
  const verb = spec.verb;
  if (verb === 'T') return goTypeName(arg);
  // listmonk's null.String/Int/Time format as their value (nil when null) for every verb.
  const v = arg instanceof GoNull ? (arg.Valid ? nullValue(arg) : null) : arg;
  if (typeof v === 'number') return Number.isInteger(v) && !'eEfFgG'.includes(verb) ? formatInt(v, spec) : formatFloat(v, spec);
  if (typeof v === 'string' || v instanceof SafeHTML) {
    const text = String(v);
    if (depth > 0) chargeText(text);
    return formatString(text, spec);
  }
  if (typeof v === 'boolean') return verb === 't' || verb === 'v' ? String(v) : bad(verb, v);
  if (v === null || v === undefined) return verb === 'v' ? '<nil>' : bad(verb, v);
  if (verb === 'v') return formatValue(v, spec.plus);
  if (depth < MAX_PRINT_DEPTH && Array.isArray(v)) {
    chargeWalk(v.length + 1);
    return chargeBuilt(`[${v.map((e) => formatArg(e, spec, depth + 1)).join(' ')}]`);
  }
  if (depth < MAX_PRINT_DEPTH && isMap(v)) {
    const keys = sortedKeys(v);
    chargeWalk(2 * keys.length + 1);
    return chargeBuilt(`map[${keys.map((k) => `${formatArg(k, spec, depth + 1)}:${formatArg(mapGet(v, k), spec, depth + 1)}`).join(' ')}]`);
  }
  if ((verb === 's' || verb === 'q') && v instanceof Date) return formatString(timeString(v), spec);
  return bad(verb, v);
}

function nullValue(v: GoNull): unknown {
  return v instanceof NullTime ? v.Time : v.jsonValue();
}

const SPEC_RE = /%([-+# 0]*)(\*|\d+)?(\.)?(\*|\d+)?(.)?/y;

/**
 * Go's fmt.Sprintf for the verbs templates use (%v %+v %s %q %d %f %e %g %x %X %o %b %c %U %t %T %%),
 * with flags, width and precision (`*` takes an int argument). Mistakes print like Go:
 * `%!d(string=x)`, `%!d(MISSING)`, `%!(EXTRA int=1)`. `maxWidth` bounds width/precision.
 */
export function sprintf(format: string, args: unknown[], maxWidth: number): string {
  let out = '';
  let ai = 0;
  const take = (): { ok: boolean; v?: unknown } => (ai < args.length ? { ok: true, v: args[ai++] } : { ok: false });
  const num = (t: string | undefined): number | undefined => {
    if (t === undefined) return undefined;
    const n = t === '*' ? Number(take().v) : Number(t);
    if (!Number.isFinite(n) || Math.abs(n) > maxWidth) throw new Error(`printf: width or precision ${n} too large`);
    return Math.trunc(n);
  };
  for (let i = 0; i < format.length; ) {
    const pct = format.indexOf('%', i);
    if (pct === -1) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    SPEC_RE.lastIndex = pct;
    const m = SPEC_RE.exec(format) as RegExpExecArray;
    i = SPEC_RE.lastIndex;
    const flags = m[1] ?? '';
    const spec: Spec = {
      minus: flags.includes('-'), plus: flags.includes('+'), sharp: flags.includes('#'),
      zero: flags.includes('0'), space: flags.includes(' '), width: num(m[2]),
      prec: m[3] ? num(m[4]) ?? 0 : undefined,
      verb: m[5] ?? '',
    };
    if (spec.width !== undefined && spec.width < 0) [spec.minus, spec.width] = [true, -spec.width];
    if (spec.verb === '') { out += '%!(NOVERB)'; break; }
    if (spec.verb === '%') { out += '%'; continue; }
    const a = take();
    if (!a.ok) { out += `%!${spec.verb}(MISSING)`; continue; }
    const numeric = typeof a.v === 'number';
    out += pad(formatArg(a.v, spec), spec, numeric);
  }
  if (ai < args.length) {
    out += `%!(EXTRA ${args.slice(ai).map((v) => `${goTypeName(v)}=${formatValue(v)}`).join(', ')})`;
  }
  return out;
}
