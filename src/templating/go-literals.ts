/**
 * Go literal syntax used inside actions: quoted strings, raw strings, character constants and
 * numbers (rules of Go's strconv.Unquote / ParseInt(base 0) / ParseFloat, written anew).
 * Every function returns null on malformed input; the parser turns that into a syntax error.
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\',
};

const HEX = /^[0-9a-fA-F]+$/;

/** Decodes one escape after a backslash at `i` (index of the char after `\`). */
function readEscape(s: string, i: number, quote: string): { text?: string; byte?: number; next: number } | null {
  const c = s[i];
  if (c === undefined) return null;
  if (c in SIMPLE_ESCAPES) return { text: SIMPLE_ESCAPES[c], next: i + 1 };
  if (c === quote) return { text: c, next: i + 1 };
  if (c === 'x') {
    const h = s.slice(i + 1, i + 3);
    return h.length === 2 && HEX.test(h) ? { byte: parseInt(h, 16), next: i + 3 } : null;
  }
  if (c === 'u' || c === 'U') {
    const n = c === 'u' ? 4 : 8;
    const h = s.slice(i + 1, i + 1 + n);
    if (h.length !== n || !HEX.test(h)) return null;
    const cp = parseInt(h, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
    return { text: String.fromCodePoint(cp), next: i + 1 + n };
  }
  if (c >= '0' && c <= '7') {
    const o = s.slice(i, i + 3);
    if (!/^[0-7]{3}$/.test(o)) return null;
    const v = parseInt(o, 8);
    return v > 255 ? null : { byte: v, next: i + 3 };
  }
  return null;
}

/** Unquotes the body of a "…" or '…' literal; byte escapes are decoded as UTF-8 together. */
function unescapeBody(body: string, quote: string): string | null {
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length) out += Buffer.from(bytes).toString('utf8');
    bytes = [];
  };
  for (let i = 0; i < body.length; ) {
    const c = body[i] as string;
    if (c === quote || c === '\n') return null;
    if (c !== '\\') {
      flush();
      out += c;
      i++;
      continue;
    }
    const e = readEscape(body, i + 1, quote);
    if (!e) return null;
    if (e.byte !== undefined) bytes.push(e.byte);
    else {
      flush();
      out += e.text;
    }
    i = e.next;
  }
  flush();
  return out;
}

/** Value of a Go string token: `"…"` with escapes or a raw `` `…` `` string (carriage returns dropped). */
export function unquoteString(tok: string): string | null {
  if (tok.startsWith('`')) return tok.slice(1, -1).replace(/\r/g, '');
  return unescapeBody(tok.slice(1, -1), '"');
}

/** Code point of a Go character constant such as `'a'`, `'\n'`, `'\x41'`. */
export function unquoteChar(tok: string): number | null {
  const body = unescapeBody(tok.slice(1, -1), "'");
  if (body === null) return null;
  const cps = Array.from(body);
  return cps.length === 1 ? (cps[0] as string).codePointAt(0) ?? null : null;
}

const INT_RE = /^[+-]?(0[xX](_?[0-9a-fA-F])+|0[bB](_?[01])+|0[oO](_?[0-7])+|0(_?[0-7])*|[1-9](_?[0-9])*)$/;
const DEC_FLOAT_RE = /^[+-]?(\d(_?\d)*)?(\.(\d(_?\d)*)?)?([eE][+-]?\d(_?\d)*)?$/;
const HEX_FLOAT_RE = /^[+-]?0[xX](_?[0-9a-fA-F])*(\.[0-9a-fA-F]*)?[pP][+-]?\d+$/;

/** Parses an integer literal with Go's base-0 rules (0x, 0o, 0b, leading-0 octal, underscores). */
function parseIntLiteral(text: string): number | null {
  if (!INT_RE.test(text)) return null;
  const neg = text.startsWith('-');
  let t = text.replace(/^[+-]/, '').replace(/_/g, '');
  let base = 10;
  if (/^0[xX]/.test(t)) [base, t] = [16, t.slice(2)];
  else if (/^0[bB]/.test(t)) [base, t] = [2, t.slice(2)];
  else if (/^0[oO]/.test(t)) [base, t] = [8, t.slice(2)];
  else if (t.length > 1 && t.startsWith('0')) [base, t] = [8, t.slice(1)];
  const big = BigInt(base === 10 ? t : `0${'xbo'[[16, 2, 8].indexOf(base)]}${t}`);
  const v = Number(neg ? -big : big);
  return v;
}

function parseHexFloat(text: string): number {
  const neg = text.startsWith('-');
  const t = text.replace(/^[+-]/, '').replace(/_/g, '').slice(2);
  const [mant = '', exp = '0'] = t.split(/[pP]/);
  const [ip = '', fp = ''] = mant.split('.');
  let v = parseInt(ip || '0', 16);
  for (let i = 0; i < fp.length; i++) v += parseInt(fp[i] as string, 16) / 16 ** (i + 1);
  v *= 2 ** Number(exp);
  return neg ? -v : v;
}

/**
 * True for an integer literal (no `.`, exponent or `p`) outside both int64 and uint64: Go's parser
 * rejects it with `integer overflow` rather than reading it as a float.
 */
export function integerOverflows(text: string): boolean {
  if (!INT_RE.test(text)) return false;
  const neg = text.startsWith('-');
  let t = text.replace(/^[+-]/, '').replace(/_/g, '');
  if (t.length > 1 && /^0[0-7]/.test(t)) t = `0o${t.slice(1)}`;
  const big = BigInt(t.replace(/^0([XBO])/, (_m, b: string) => `0${b.toLowerCase()}`));
  return neg ? big > 2n ** 63n : big > 2n ** 64n - 1n;
}

/**
 * Value of a Go number literal (`42`, `-1`, `0x1F`, `1_000`, `1.5e3`, `.5`, `0x1p-2`).
 * Returns null for malformed text (Go: `illegal number syntax`) and for imaginary literals.
 */
export function parseNumber(text: string): number | null {
  if (text.endsWith('i')) return null;
  const asInt = parseIntLiteral(text);
  if (asInt !== null) return asInt;
  if (HEX_FLOAT_RE.test(text)) return parseHexFloat(text);
  if (!DEC_FLOAT_RE.test(text) || !/\d/.test(text)) return null;
  const v = Number(text.replace(/_/g, ''));
  return Number.isNaN(v) ? null : v;
}
