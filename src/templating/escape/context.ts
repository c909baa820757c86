/**
 * The HTML parsing context at a point of a template, and how static template text moves it.
 * Follows the model of Go's html/template (states, delimiters, URL parts, JS regexp/division
 * ambiguity, special elements), reimplemented. Used only at compile time.
 */

/** Parser states. */
export const S = {
  Text: 0, Tag: 1, AttrName: 2, AfterName: 3, BeforeValue: 4, HTMLCmt: 5, RCDATA: 6, Attr: 7,
  URL: 8, Srcset: 9, JS: 10, JSDqStr: 11, JSSqStr: 12, JSBqStr: 13, JSRegexp: 14, JSBlockCmt: 15,
  JSLineCmt: 16, CSS: 17, CSSDqStr: 18, CSSSqStr: 19, CSSDqURL: 20, CSSSqURL: 21, CSSURL: 22,
  CSSBlockCmt: 23, CSSLineCmt: 24, Dead: 25,
} as const;
export const D = { None: 0, Double: 1, Single: 2, SpaceOrTagEnd: 3 } as const;
export const U = { None: 0, PreQuery: 1, QueryOrFrag: 2, Unknown: 3 } as const;
export const J = { Regexp: 0, DivOp: 1, Unknown: 2 } as const;
export const A = { None: 0, Script: 1, ScriptType: 2, Style: 3, URL: 4, Srcset: 5 } as const;
export const E = { None: 0, Script: 1, Style: 2, Textarea: 3, Title: 4 } as const;

/** A context. Treat as immutable; `with` makes modified copies. */
export interface Ctx {
  readonly s: number;
  readonly delim: number;
  readonly url: number;
  readonly js: number;
  readonly attr: number;
  readonly el: number;
}

export const TEXT: Ctx = Object.freeze({ s: S.Text, delim: D.None, url: U.None, js: J.Regexp, attr: A.None, el: E.None });
export const DEAD: Ctx = Object.freeze({ ...TEXT, s: S.Dead });

/** Copy of `c` with some fields changed. */
export function withCtx(c: Ctx, changes: Partial<Ctx>): Ctx {
  return { ...c, ...changes };
}

/** A stable key for caching and equality. */
export function ctxKey(c: Ctx): string {
  return `${c.s}.${c.delim}.${c.url}.${c.js}.${c.attr}.${c.el}`;
}

export const ctxEq = (a: Ctx, b: Ctx): boolean => ctxKey(a) === ctxKey(b);

/** Malformed or ambiguous HTML in template text; `at` is the offset in the text being scanned. */
export class EscapeError extends Error {
  constructor(message: string, readonly at = 0) {
    super(message);
  }
}

/** What `<a href={{.}}` means: an action at BeforeValue/Tag/AfterName is a value or a name. */
export function nudge(c: Ctx): Ctx {
  switch (c.s) {
    case S.Tag: return withCtx(c, { s: S.AttrName });
    case S.BeforeValue: return withCtx(c, { s: attrStartState(c.attr), delim: D.SpaceOrTagEnd, attr: A.None });
    case S.AfterName: return withCtx(c, { s: S.AttrName, attr: A.None });
  }
  return c;
}

/**
 * Joins the end contexts of two branches (if/else, range body/else). Differences only in the URL
 * part or the JS slash ambiguity give an "unknown" part; a nudged context joins an unnudged one;
 * anything else is Go's "{{if}} branches end in different contexts" error (returned as a string).
 */
export function join(a: Ctx, b: Ctx, nodeName: string): Ctx | string {
  if (a.s === S.Dead) return b;
  if (b.s === S.Dead) return a;
  if (ctxEq(a, b)) return a;
  if (ctxEq(withCtx(a, { url: b.url }), b)) return withCtx(a, { url: U.Unknown });
  if (ctxEq(withCtx(a, { js: b.js }), b)) return withCtx(a, { js: J.Unknown });
  const na = nudge(a);
  const nb = nudge(b);
  if (!(ctxEq(na, a) && ctxEq(nb, b))) {
    const j = join(na, nb, nodeName);
    if (typeof j !== 'string') return j;
  }
  return `{{${nodeName}}} branches end in different contexts: ${describe(a)}, ${describe(b)}`;
}

const STATE_NAMES = Object.fromEntries(Object.entries(S).map(([k, v]) => [v, `state${k}`]));

/** Human-readable context for error messages, e.g. `{stateAttr delimDoubleQuote}`. */
export function describe(c: Ctx): string {
  const parts = [STATE_NAMES[c.s] ?? String(c.s)];
  if (c.delim !== D.None) parts.push(['', 'delimDoubleQuote', 'delimSingleQuote', 'delimSpaceOrTagEnd'][c.delim] as string);
  if (c.url !== U.None) parts.push(['', 'urlPartPreQuery', 'urlPartQueryOrFrag', 'urlPartUnknown'][c.url] as string);
  if (c.attr !== A.None) parts.push(['', 'attrScript', 'attrScriptType', 'attrStyle', 'attrURL', 'attrSrcset'][c.attr] as string);
  if (c.el !== E.None) parts.push(['', 'elementScript', 'elementStyle', 'elementTextarea', 'elementTitle'][c.el] as string);
  return `{${parts.join(' ')}}`;
}

/** State at the start of an attribute value of the given attribute type. */
export function attrStartState(attr: number): number {
  switch (attr) {
    case A.Script: return S.JS;
    case A.Style: return S.CSS;
    case A.URL: return S.URL;
    case A.Srcset: return S.Srcset;
    default: return S.Attr;
  }
}

/** What Go's html/template knows about an attribute's value (its attrTypeMap). */
type AttrKind = 'url' | 'css' | 'js' | 'srcset' | 'plain' | 'html' | 'unsafe';

const ATTR_KINDS: Record<string, AttrKind> = { srcdoc: 'html', style: 'css', srcset: 'srcset' };
for (const n of ['action', 'archive', 'background', 'cite', 'classid', 'codebase', 'data', 'formaction', 'href', 'icon',
  'longdesc', 'manifest', 'poster', 'profile', 'src', 'usemap', 'xmlns']) ATTR_KINDS[n] = 'url';
// Attributes that affect how other content or a request is interpreted: never plain.
for (const n of ['accept-charset', 'async', 'challenge', 'charset', 'content', 'crossorigin', 'defer', 'enctype', 'form',
  'formenctype', 'formmethod', 'formnovalidate', 'http-equiv', 'keytype', 'language', 'method', 'novalidate', 'pattern',
  'rel', 'sandbox', 'type', 'value']) ATTR_KINDS[n] = 'unsafe';
for (const n of ['accept', 'alt', 'autocomplete', 'autofocus', 'autoplay', 'border', 'checked', 'class', 'cols', 'colspan',
  'contenteditable', 'contextmenu', 'controls', 'coords', 'datetime', 'default', 'dir', 'dirname', 'disabled', 'draggable',
  'dropzone', 'for', 'formtarget', 'headers', 'height', 'hidden', 'high', 'hreflang', 'id', 'ismap', 'kind', 'label',
  'lang', 'list', 'loop', 'low', 'max', 'maxlength', 'media', 'mediagroup', 'min', 'multiple', 'name', 'open', 'optimum',
  'placeholder', 'preload', 'pubdate', 'radiogroup', 'readonly', 'required', 'reversed', 'rows', 'rowspan', 'spellcheck',
  'scope', 'scoped', 'seamless', 'selected', 'shape', 'size', 'sizes', 'span', 'srclang', 'start', 'step', 'tabindex',
  'target', 'title', 'width', 'wrap']) ATTR_KINDS[n] = 'plain';

/**
 * Content type of an attribute by (lower-case) name: Go's attrTypeMap, then its heuristics for
 * other names (`on*` is JS; names containing src, uri or url are URLs). `html` and `unsafe` values
 * are escaped as plain text, but such names are refused when an action produces them.
 */
export function attrKind(name: string): AttrKind {
  let n = name;
  if (n.startsWith('data-')) n = n.slice(5);
  else {
    const colon = n.indexOf(':');
    if (colon !== -1) {
      if (n.slice(0, colon) === 'xmlns') return 'url';
      n = n.slice(colon + 1);
    }
  }
  const known = Object.hasOwn(ATTR_KINDS, n) ? ATTR_KINDS[n] : undefined;
  if (known) return known;
  if (n.startsWith('on')) return 'js';
  if (n.includes('src') || n.includes('uri') || n.includes('url')) return 'url';
  return 'plain';
}
