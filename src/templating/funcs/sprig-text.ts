/**
 * Sprig v3 string functions beyond sprig-strings.ts: case conversion as huandu/xstrings 1.5 does it
 * (`camelcase` is its ToPascalCase since Sprig 3.3, `snakecase`, `kebabcase`), goutils' `swapcase`,
 * `initials` and `abbrevboth`, `shuffle`, the crypto-random `randAlphaNum`/`randAlpha`/`randAscii`/
 * `randNumeric`, `splitn`, `toStrings`, `trimall`, `b32enc`/`b32dec` and `hello`. Behaviour from
 * Sprig's strings.go and functions.go and the libraries it calls; written anew. Positions count
 * characters (code points), not bytes, as everywhere in Mailroom's templates.
 */
import { randomInt } from 'node:crypto';
import type { CallContext } from '../types.js';
import { str, strval, toInt64 } from './conv.js';
import {
  isAlphabet, isLower, isNumber, isPunct, isSpace, isTitle, isUpper, toLower, toTitle, toUpper,
} from './go-unicode.js';
import { checkSize, def, type FuncTable } from './registry.js';
import { newDict } from './sprig-lists.js';
import { SPRIG_STRINGS } from './sprig-strings.js';

type F = (c: CallContext, ...a: unknown[]) => unknown;

const isConnector = (ch: string): boolean => ch === '-' || ch === '_' || isSpace(ch);

/**
 * xstrings' toCamelCase (ToPascalCase when `big`): connectors (`-`, `_`, spaces) are dropped and the
 * next letter upper-cased; a run of capitals after a word start is lower-cased ("GOLANG_IS" →
 * "GolangIs"); leading connectors are kept, doubled connectors keep one.
 */
export function toCamel(s: string, big: boolean): string {
  const cs = Array.from(s);
  if (cs.length === 0) return '';
  let out = '';
  let i = 0;
  let firstUpper = false;
  let r0 = '';
  for (; i < cs.length; ) {
    r0 = cs[i++] as string;
    if (!isConnector(r0)) {
      firstUpper = isUpper(r0);
      r0 = big ? toUpper(r0) : toLower(r0);
      break;
    }
    out += r0;
  }
  if (i >= cs.length) return out + r0;
  for (; i < cs.length; i++) {
    const r1 = r0;
    r0 = cs[i] as string;
    if (isConnector(r0) && isConnector(r1)) {
      out += r1;
      continue;
    }
    if (isConnector(r1)) {
      firstUpper = isUpper(r0);
      r0 = toUpper(r0);
    } else {
      if (firstUpper) {
        if (isUpper(r0)) r0 = toLower(r0);
        else firstUpper = false;
      }
      out += r1;
    }
  }
  if (firstUpper && !big) r0 = toLower(r0);
  return out + r0;
}

const enum W { Invalid, Number, Upper, Alphabet, Connector, Punct, Other }

/** xstrings' nextWord: the kind of word starting at `i` and where it ends. */
function nextWord(cs: string[], i: number): { wt: W; end: number } {
  const n = cs.length;
  if (i >= n) return { wt: W.Invalid, end: i };
  const r = cs[i] as string;
  let j = i + 1;
  const run = (ok: (ch: string) => boolean): void => {
    while (j < n && ok(cs[j] as string)) j++;
  };
  if (isConnector(r)) {
    run(isConnector);
    return { wt: W.Connector, end: j };
  }
  if (isPunct(r)) {
    run(isPunct);
    return { wt: W.Punct, end: j };
  }
  if (isUpper(r)) {
    if (j < n) {
      const r2 = cs[j] as string;
      if (isUpper(r2)) {
        j++;
        run(isUpper);
        // "HTTPStatus" is "HTTP" + "Status": the last capital starts the next word.
        if (j < n && isAlphabet(cs[j] as string)) j--;
      } else if (isAlphabet(r2)) {
        j++;
        run((ch) => isAlphabet(ch) && !isUpper(ch));
      }
    }
    return { wt: W.Upper, end: j };
  }
  if (isAlphabet(r)) {
    run((ch) => isAlphabet(ch) && !isUpper(ch));
    return { wt: W.Alphabet, end: j };
  }
  if (isNumber(r)) {
    run(isNumber);
    return { wt: W.Number, end: j };
  }
  run((ch) => !(isConnector(ch) || isAlphabet(ch) || isNumber(ch) || isPunct(ch)));
  return { wt: W.Other, end: j };
}

/**
 * xstrings' camelCaseToLowerCase (ToSnakeCase with '_', ToKebabCase with '-'): words split at case
 * changes, digits kept with the word before them unless lower-case letters follow ("Bld4Floor3rd"
 * → "bld4_floor_3rd", "HTTP2xx" → "http_2xx"), connectors become `conn`.
 */
export function toDelimited(s: string, conn: string): string {
  const cs = Array.from(s);
  if (cs.length === 0) return '';
  let out = '';
  const lower = (wt: W, a: number, b: number): void => {
    if (wt !== W.Upper && wt !== W.Connector) {
      for (let k = a; k < b; k++) out += cs[k];
      return;
    }
    for (let k = a; k < b; k++) {
      const ch = cs[k] as string;
      out += isConnector(ch) ? conn : isUpper(ch) ? toLower(ch) : ch;
    }
  };
  let start = 0;
  let { wt, end } = nextWord(cs, 0);
  const kind = (): W => wt;
  const advance = (): void => {
    start = end;
    ({ wt, end } = nextWord(cs, start));
  };
  while (end < cs.length) {
    if (kind() !== W.Connector) lower(wt, start, end);
    const prev = wt;
    const [lastA, lastB] = [start, end];
    advance();
    switch (prev) {
      case W.Number:
        while (kind() === W.Alphabet || kind() === W.Number) {
          lower(wt, start, end);
          advance();
        }
        if (kind() !== W.Invalid && kind() !== W.Punct && kind() !== W.Connector) out += conn;
        break;
      case W.Connector:
        lower(prev, lastA, lastB);
        break;
      case W.Punct:
        break;
      default: {
        if (kind() !== W.Number) {
          if (kind() !== W.Connector && kind() !== W.Punct) out += conn;
          break;
        }
        if (end >= cs.length) break;
        const [numA, numB] = [start, end];
        advance();
        if (kind() !== W.Alphabet) {
          lower(W.Number, numA, numB);
          if (kind() !== W.Connector && kind() !== W.Punct) out += conn;
          break;
        }
        out += conn;
        lower(W.Number, numA, numB);
        while (kind() === W.Alphabet || kind() === W.Number) {
          lower(wt, start, end);
          advance();
        }
        if (kind() !== W.Invalid && kind() !== W.Connector && kind() !== W.Punct) out += conn;
      }
    }
  }
  lower(wt, start, end);
  return out;
}

/** goutils.SwapCase: upper/title → lower; lower → upper, or title case at the start of a word. */
export function swapCase(s: string): string {
  let out = '';
  let space = true;
  for (const ch of s) {
    if (isUpper(ch) || isTitle(ch)) {
      out += toLower(ch);
      space = false;
    } else if (isLower(ch)) {
      out += space ? toTitle(ch) : toUpper(ch);
      space = false;
    } else {
      out += ch;
      space = isSpace(ch);
    }
  }
  return out;
}

/**
 * goutils.Initials: the first character of each whitespace-separated word. (goutils works on bytes,
 * so listmonk turns a non-ASCII initial into mojibake; here it is the whole character.)
 */
export function initials(s: string): string {
  let out = '';
  let gap = true;
  for (const ch of s) {
    if (isSpace(ch)) gap = true;
    else if (gap) {
      out += ch;
      gap = false;
    }
  }
  return out;
}

/** goutils.AbbreviateFull with Sprig's guard: `...` on either side, at most `right` characters. */
function abbrevBoth(left: number, right: number, s: string): string {
  if (right < 4 || (left > 0 && right < 7)) return s;
  const cs = Array.from(s);
  const full = (offsetIn: number, width: number): string => {
    if (cs.length === 0) return '';
    if (cs.length <= width) return cs.join('');
    let offset = Math.min(offsetIn, cs.length);
    if (cs.length - offset < width - 3) offset = cs.length - (width - 3);
    if (offset <= 4) return `${cs.slice(0, width - 3).join('')}...`;
    if (offset + width - 3 < cs.length) {
      const rest = cs.slice(offset);
      const w = width - 3;
      const inner = w < 4 ? '' : rest.length <= w ? rest.join('') : `${rest.slice(0, w - 3).join('')}...`;
      return `...${inner}`;
    }
    return `...${cs.slice(cs.length - (width - 3)).join('')}`;
  };
  return full(left, right);
}

/** Fisher–Yates over characters (xstrings.Shuffle). */
function shuffle(s: string): string {
  const cs = Array.from(s);
  for (let i = cs.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [cs[i], cs[j]] = [cs[j] as string, cs[i] as string];
  }
  return cs.join('');
}

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
let ASCII = '';
for (let i = 32; i < 127; i++) ASCII += String.fromCharCode(i);

/** goutils.CryptoRandom over `alphabet`: `count` characters from crypto randomness; '' when count ≤ 0. */
function randomString(c: CallContext, count: unknown, alphabet: string): string {
  const n = toInt64(count);
  if (n <= 0) return '';
  checkSize(c, n, 'random string');
  c.charge(n >>> 6);
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** strings.SplitN: n == 0 → none, n < 0 → all, else at most n pieces (the last holds the rest). */
export function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const cs = Array.from(s);
    if (n < 0 || n >= cs.length) return cs;
    return [...cs.slice(0, n - 1), cs.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let at = 0;
  while (n < 0 || out.length < n - 1) {
    const i = s.indexOf(sep, at);
    if (i === -1) break;
    out.push(s.slice(at, i));
    at = i + sep.length;
  }
  out.push(s.slice(at));
  return out;
}

/** Sprig's strslice: list elements as strings (nil dropped); nil → []; any other value → [value]. */
export function toStrings(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined && x !== null).map((x) => strval(x));
  if (v === undefined || v === null) return [];
  return [strval(v)];
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** encoding/base32 StdEncoding (RFC 4648, padded). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 5) {
    const chunk = bytes.subarray(i, i + 5);
    let bits = 0n;
    for (let k = 0; k < 5; k++) bits = (bits << 8n) | BigInt(chunk[k] ?? 0);
    const chars = [0, 2, 4, 5, 7, 8][chunk.length] as number;
    for (let k = 0; k < 8; k++) out += k < chars ? B32[Number((bits >> BigInt(35 - 5 * k)) & 31n)] : '=';
  }
  return out;
}

/**
 * encoding/base32 StdEncoding.DecodeString (newlines ignored); on bad input Sprig returns Go's error
 * text, `illegal base32 data at input byte N`, as the result.
 */
export function base32Decode(text: string): string {
  const src = Buffer.from(text.replace(/[\r\n]/g, ''), 'utf8');
  const olen = src.length;
  const out: number[] = [];
  let p = 0;
  const bad = (at: number): string => `illegal base32 data at input byte ${at}`;
  let end = false;
  while (p < olen && !end) {
    const d = [0, 0, 0, 0, 0, 0, 0, 0];
    let dlen = 8;
    for (let j = 0; j < 8; ) {
      if (p >= olen) return bad(olen - j);
      const ch = src[p++] as number;
      const left = olen - p;
      if (ch === 0x3d && j >= 2 && left < 8) {
        if (left + j < 7) return bad(olen);
        for (let k = 0; k < 7 - j; k++) if (left > k && src[p + k] !== 0x3d) return bad(p + k - 1);
        dlen = j;
        end = true;
        if (dlen === 1 || dlen === 3 || dlen === 6) return bad(p - 1);
        break;
      }
      const v = B32.indexOf(String.fromCharCode(ch));
      if (v === -1) return bad(p - 1);
      d[j++] = v;
    }
    const [a = 0, b = 0, c = 0, e = 0, f = 0, g = 0, h = 0, k = 0] = d;
    const bytes = [(a << 3) | (b >> 2), ((b << 6) | (c << 1) | (e >> 4)) & 255, ((e << 4) | (f >> 1)) & 255,
      ((f << 7) | (g << 2) | (h >> 3)) & 255, ((h << 5) | k) & 255];
    const count = { 8: 5, 7: 4, 5: 3, 4: 2, 2: 1 }[dlen as 8 | 7 | 5 | 4 | 2] ?? 0;
    out.push(...bytes.slice(0, count).map((x) => x & 255));
  }
  return Buffer.from(out).toString('utf8');
}

/**
 * goutils.WrapCustom(s, width, nl, true), what Sprig's `wrapWith` calls: lines broken at the last
 * space within `width` characters, leading spaces of a new line dropped, and words longer than
 * `width` cut (Sprig's `wrap` keeps them whole).
 */
export function wrapLongWords(s: string, width: number, nl: string): string {
  if (s === '') return '';
  const sep = nl === '' ? '\n' : nl;
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
      out += s.slice(off, space) + sep;
      off = space + 1;
    } else {
      out += s.slice(off, off + w) + sep;
      off += w;
    }
  }
  return out + s.slice(off);
}

/** The Sprig string functions added here, by name. */
export const SPRIG_TEXT: FuncTable = {
  hello: def(() => 'Hello!', 0),
  camelcase: def((_c, s) => toCamel(str(s), true), 1),
  snakecase: def((_c, s) => toDelimited(str(s), '_'), 1),
  kebabcase: def((_c, s) => toDelimited(str(s), '-'), 1),
  swapcase: def((_c, s) => swapCase(str(s)), 1),
  initials: def((_c, s) => initials(str(s)), 1),
  abbrevboth: def((_c, l, r, s) => abbrevBoth(toInt64(l), toInt64(r), str(s)), 3),
  shuffle: def((_c, s) => shuffle(str(s)), 1),
  randAlphaNum: def(((c, n) => randomString(c, n, ALPHA + DIGITS)) as F, 1),
  randAlpha: def(((c, n) => randomString(c, n, ALPHA)) as F, 1),
  randNumeric: def(((c, n) => randomString(c, n, DIGITS)) as F, 1),
  randAscii: def(((c, n) => randomString(c, n, ASCII)) as F, 1),
  trimall: SPRIG_STRINGS.trimAll as FuncTable[string],
  splitn: def((_c, sep, n, s) => {
    const d = newDict();
    splitN(str(s), str(sep), toInt64(n)).forEach((part, i) => {
      d[`_${i}`] = part;
    });
    return d;
  }, 3),
  toStrings: def((_c, v) => toStrings(v), 1),
  b32enc: def((_c, s) => base32Encode(Buffer.from(str(s), 'utf8')), 1),
  b32dec: def((_c, s) => base32Decode(str(s)), 1),
  wrapWith: def((c, width, sep, s) => {
    const text = str(s);
    checkSize(c, text.length * (str(sep).length + 1), 'wrapWith');
    return wrapLongWords(text, toInt64(width), str(sep));
  }, 3),
};
