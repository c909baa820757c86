/**
 * Escaping functions for each HTML context (the behaviour of Go html/template's escapers,
 * reimplemented). Each takes the value an action produced and returns text safe for its context.
 * SafeHTML values are inserted raw in element text only, as Go treats template.HTML.
 */
import { EvalFailure } from '../errors.js';
import { formatValue } from '../go-format.js';
import { toGoJson } from '../go-json.js';
import { SafeHTML } from '../types.js';

/** A context escaper. */
export type Escaper = (v: unknown) => string;

/** What Go's escapers print for values they refuse. */
export const FAILSAFE = 'ZgotmplZ';

/** Value as text plus whether it is safe HTML. nil prints as '' in html mode (Go skips untyped nil). */
export function stringify(v: unknown): [string, boolean] {
  if (typeof v === 'string') return [v, false];
  if (v instanceof SafeHTML) return [v.value, true];
  if (v === undefined || v === null) return ['', false];
  return [formatValue(v), false];
}

function replacer(table: Record<string, string>): (s: string) => string {
  const re = new RegExp(`[${Object.keys(table).map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`, 'g');
  const test = new RegExp(re.source);
  return (s) => (test.test(s) ? s.replace(re, (c) => table[c] as string) : s);
}

const HTML_TABLE = { '\0': '\uFFFD', '"': '&#34;', '&': '&amp;', "'": '&#39;', '+': '&#43;', '<': '&lt;', '>': '&gt;' };
const { '&': _amp, ...HTML_NORM_TABLE } = HTML_TABLE;
const NOSPACE_TABLE = {
  ...HTML_TABLE, '\0': '&#xfffd;', '\t': '&#9;', '\n': '&#10;', '\v': '&#11;', '\f': '&#12;', '\r': '&#13;',
  ' ': '&#32;', '=': '&#61;', '`': '&#96;',
};
const { '&': _amp2, ...NOSPACE_NORM_TABLE } = NOSPACE_TABLE;

const htmlReplace = replacer(HTML_TABLE);
const htmlNormReplace = replacer(HTML_NORM_TABLE);
const nospaceReplace = replacer(NOSPACE_TABLE);
const nospaceNormReplace = replacer(NOSPACE_NORM_TABLE);

/** Text content of an HTML snippet (tags, comments, script and style bodies removed). */
export function stripTags(html: string): string {
  if (!/[<]/.test(html)) return html;
  return html
    .replace(/<!--[\s\S]*?(-->|$)/g, '')
    .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, '')
    .replace(/<\/?[A-Za-z][^>]*(>|$)/g, '');
}

/** Element text: escapes `& < > " ' +` and NUL; SafeHTML raw. */
export const htmlEscaper: Escaper = (v) => {
  if (typeof v === 'string') return htmlReplace(v);
  const [s, safe] = stringify(v);
  return safe ? s : htmlReplace(s);
};

/** `<title>`/`<textarea>` bodies: SafeHTML keeps its entities but not its markup meaning. */
export const rcdataEscaper: Escaper = (v) => {
  const [s, safe] = stringify(v);
  return safe ? htmlNormReplace(s) : htmlReplace(s);
};

/** Quoted attribute values. */
export const attrEscaper: Escaper = (v) => {
  const [s, safe] = stringify(v);
  return safe ? htmlNormReplace(stripTags(s)) : htmlReplace(s);
};

/** Unquoted attribute values: also whitespace, `=` and backquote. */
export const nospaceEscaper: Escaper = (v) => {
  const [s, safe] = stringify(v);
  return safe ? nospaceNormReplace(stripTags(s)) : nospaceReplace(s);
};

/** Go's text/template `html` function (HTMLEscapeString). */
export function htmlEscapeString(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);
}

/** Attribute or tag names produced by actions: lower-case alphanumerics of a plain attribute only. */
export function htmlNameFilter(v: unknown, isPlainAttr: (name: string) => boolean): string {
  const s = stringify(v)[0].toLowerCase();
  if (s === '' || !/^[a-z0-9]+$/.test(s) || !isPlainAttr(s)) return FAILSAFE;
  return s;
}

/** Inside an HTML comment: escaped so the value cannot end the comment (Go drops the value). */
export const htmlCommentEscaper: Escaper = (v) => htmlReplace(stringify(v)[0]);

/** Inside JS or CSS comments: dropped, as Go does. */
export const commentEscaper: Escaper = () => '';

const JS_STR_TABLE: Record<string, string> = {
  '\0': '\\0', '\t': '\\t', '\n': '\\n', '\v': '\\x0b', '\f': '\\f', '\r': '\\r', '"': '\\x22', '&': '\\x26',
  "'": '\\x27', '+': '\\x2b', '/': '\\/', '<': '\\x3c', '>': '\\x3e', '\\': '\\\\', '`': '\\x60',
  '\u2028': '\\u2028', '\u2029': '\\u2029',
};
const JS_REGEXP_TABLE: Record<string, string> = {
  ...JS_STR_TABLE, '$': '\\$', '(': '\\(', ')': '\\)', '*': '\\*', '-': '\\-', '.': '\\.', '?': '\\?',
  '[': '\\[', ']': '\\]', '^': '\\^', '{': '\\{', '|': '\\|', '}': '\\}',
};
const JS_TMPL_TABLE: Record<string, string> = { ...JS_STR_TABLE, $: '\\x24', '{': '\\x7b', '}': '\\x7d' };
const jsStrReplace = replacer(JS_STR_TABLE);
const jsRegexpReplace = replacer(JS_REGEXP_TABLE);
const jsTmplReplace = replacer(JS_TMPL_TABLE);

/** Inside a JS '…' or "…" string. */
export const jsStrEscaper: Escaper = (v) => jsStrReplace(stringify(v)[0]);
/** Inside a JS template literal. */
export const jsTmplLitEscaper: Escaper = (v) => jsTmplReplace(stringify(v)[0]);
/** Inside a JS regexp literal; empty becomes `(?:)` so `//` never appears. */
export const jsRegexpEscaper: Escaper = (v) => jsRegexpReplace(stringify(v)[0]) || '(?:)';

/** A JS expression position: the value as a JSON literal, padded so it cannot merge with identifiers. */
export const jsValEscaper: Escaper = (v) => {
  let json: string;
  try {
    json = toGoJson(v instanceof SafeHTML ? v.value : v);
  } catch (e) {
    if (e instanceof EvalFailure && e.bound) throw e;
    return ` /* ${String((e as Error).message).replace(/\*\//g, '* /')} */null `;
  }
  const ident = /[$0-9A-Za-z_]/;
  return ident.test(json[0] ?? '') || ident.test(json[json.length - 1] ?? '') ? ` ${json} ` : json;
};

const CSS_ESC = /[\0\t\n\f\r"&'()+/:;<>\\{}]/g;
/** Inside a CSS string or url(…): CSS hex escapes. */
export const cssEscaper: Escaper = (v) => {
  const s = stringify(v)[0];
  return s.replace(CSS_ESC, (c, i: number) => {
    const next = s[i + 1];
    const sep = next !== undefined && /[0-9a-fA-F \t\n\f\r]/.test(next) ? ' ' : '';
    return `\\${c.charCodeAt(0).toString(16)}${sep}`;
  });
};

/** A CSS value position: only values that cannot break out of the declaration pass. */
export const cssValueFilter: Escaper = (v) => {
  const s = stringify(v)[0];
  const decoded = s.replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_m, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)));
  if (/[\0"'()/;@[\\\]`{}<>]/.test(decoded) || decoded.includes('--')) return FAILSAFE;
  const id = decoded.replace(/[^A-Za-z0-9_\-\u0080-\uffff]/g, '').toLowerCase();
  if (id.includes('expression') || id.includes('mozbinding')) return FAILSAFE;
  return s;
};
