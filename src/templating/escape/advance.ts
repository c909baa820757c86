/**
 * Moves a context across a static text node (Go html/template's contextAfterText loop,
 * reimplemented), including attribute-value ends and the ends of script/style/title/textarea.
 */
import { A, type Ctx, D, E, EscapeError, S, TEXT, withCtx } from './context.js';
import { END_TAGS, indexTagEnd, TRANSITIONS } from './transitions.js';

const JS_TYPES = new Set(['application/ecmascript', 'application/javascript', 'application/json',
  'application/ld+json', 'application/x-ecmascript', 'application/x-javascript', 'module', 'text/ecmascript',
  'text/javascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2', 'text/javascript1.3',
  'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript', 'text/x-ecmascript',
  'text/x-javascript']);

function isJsType(mime: string): boolean {
  const t = (mime.toLowerCase().split(';')[0] as string).trim();
  return JS_TYPES.has(t);
}

const ENTITIES: Record<string, string> = { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>', nbsp: '\u00a0' };

/** Decodes the character references that matter for context tracking inside attribute values. */
function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (m, body: string) => {
    if (body[0] !== '#') return ENTITIES[body] ?? m;
    const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

/** Runs transitions over all of `s` (used for decoded attribute values). */
function runAll(c: Ctx, s: string): Ctx {
  let cur = c;
  for (let rest = s; rest.length > 0; ) {
    const [n, used] = (TRANSITIONS[cur.s] as (c: Ctx, s: string) => [Ctx, number])(cur, rest);
    cur = n;
    rest = rest.slice(used);
  }
  return cur;
}

/** Finds the end tag of a special element at or after an offset; remembers the last answer. */
type EndFinder = (tag: string, at: number) => number;

function endFinder(text: string): EndFinder {
  let memo = { tag: '', from: -1, idx: -1 };
  return (tag, at) => {
    if (memo.tag !== tag || at < memo.from || (memo.idx !== -1 && memo.idx < at)) {
      memo = { tag, from: at, idx: indexTagEnd(text, tag, at) };
    }
    return memo.idx === -1 ? -1 : memo.idx - at;
  };
}

/** JS and CSS comment states (HTML comments are kept, so they are not listed: README "Known differences" 5). */
const isComment = (s: number): boolean => s === S.JSBlockCmt || s === S.JSLineCmt || s === S.CSSBlockCmt || s === S.CSSLineCmt;
/** Inside a JS string, template literal or regexp literal. */
const isScriptLiteral = (s: number): boolean => s === S.JSDqStr || s === S.JSSqStr || s === S.JSBqStr || s === S.JSRegexp;

/** One step: returns the context after a prefix of `s` (which starts at `at` of the text) and its length. */
function contextAfterText(c: Ctx, s: string, at: number, findEnd: EndFinder): [Ctx, number] {
  if (c.delim === D.None) {
    let end = s.length;
    // As Go 1.21+: `</script` inside a JS string, template or regexp literal does not end the script
    // (escapeText writes it as `\x3C/script`). Inside a JS comment it does, as browsers read it
    // (Go 1.21+ would elide it with the comment and then fail: "ends in a non-text context").
    if (c.el !== E.None && !(c.el === E.Script && isScriptLiteral(c.s))) {
      const i = findEnd(END_TAGS[c.el] as string, at);
      if (i === 0) return [TEXT, 0];
      if (i > 0) end = i;
    }
    const fn = TRANSITIONS[c.s] as (c: Ctx, s: string) => [Ctx, number];
    return fn(c, s.slice(0, end));
  }
  const ends = c.delim === D.Double ? '"' : c.delim === D.Single ? "'" : ' \t\n\f\r>';
  let i = 0;
  while (i < s.length && !ends.includes(s[i] as string)) i++;
  if (c.delim === D.SpaceOrTagEnd) {
    const bad = /["'<=`]/.exec(s.slice(0, i));
    if (bad) throw new EscapeError(`${JSON.stringify(bad[0])} in unquoted attr: ${JSON.stringify(s.slice(0, i))}`, bad.index);
  }
  if (i === s.length) return [runAll(c, decodeEntities(s)), s.length];
  let el = c.el;
  if (c.s === S.Attr && c.el === E.Script && c.attr === A.ScriptType && !isJsType(s.slice(0, i))) el = E.None;
  if (c.delim !== D.SpaceOrTagEnd) i++;
  return [withCtx(TEXT, { s: S.Tag, el }), i];
}

/** Length of the comment opener that ends at `end` of `s`: `<!--`, `-->`, else two (`//`, `/*`, `#!`). */
function openerLength(s: string, end: number): number {
  if (s.slice(end - 4, end) === '<!--') return 4;
  return s.slice(end - 3, end) === '-->' ? 3 : 2;
}

const SPECIAL_SCRIPT_TAG = /<(script|\/script|!--)/gi;

/**
 * The text Go's html/template outputs for static text `s` starting in `c`, and the context after
 * it (Go's escapeText, reimplemented): in element text and RCDATA a `<` that does not start a tag
 * (or a doctype) becomes `&lt;`; JS and CSS comments are removed (a block comment becomes a space,
 * or a newline if it spans lines); `<script`, `</script` and `<!--` inside JS string, template and
 * regexp literals get their `<` written as `\x3C`. HTML comments are kept (a deliberate difference).
 * Throws EscapeError like advanceText.
 */
export function escapeText(c: Ctx, s: string): { text: string; ctx: Ctx } {
  let cur = c;
  let at = 0;
  let written = 0;
  let out = '';
  const findEnd = endFinder(s);
  while (at < s.length) {
    let step: [Ctx, number];
    try {
      step = contextAfterText(cur, s.slice(at), at, findEnd);
    } catch (e) {
      if (e instanceof EscapeError) throw new EscapeError(e.message, at + e.at);
      throw e;
    }
    const [n, used] = step;
    if (used === 0 && n === cur) break;
    const i1 = at + used;
    if (cur.s === S.Text || cur.s === S.RCDATA) {
      let end = i1;
      if (n.s !== cur.s) {
        const k = s.lastIndexOf('<', i1 - 1);
        if (k >= at) end = k;
      }
      for (let j = s.indexOf('<', at); j !== -1 && j < end; j = s.indexOf('<', j + 1)) {
        if (s.slice(j, j + 9).toUpperCase() === '<!DOCTYPE') continue;
        out += `${s.slice(written, j)}&lt;`;
        written = j + 1;
      }
    } else if (isComment(cur.s) && cur.delim === D.None) {
      if (cur.s === S.JSBlockCmt) out += /[\n\r\u2028\u2029]/.test(s.slice(written, i1)) ? '\n' : ' ';
      else if (cur.s === S.CSSBlockCmt) out += ' ';
      written = i1;
    }
    if (n.s !== cur.s && isComment(n.s) && n.delim === D.None) {
      out += s.slice(written, i1 - openerLength(s, i1));
      written = i1;
    }
    if (isScriptLiteral(cur.s)) {
      const part = s.slice(at, i1);
      if (/<(script|\/script|!--)/i.test(part)) {
        out += s.slice(written, at) + part.replace(SPECIAL_SCRIPT_TAG, '\\x3C$1');
        written = i1;
      }
    }
    cur = n;
    at = i1;
  }
  if (written === 0) return { text: s, ctx: cur };
  if (!(isComment(cur.s) && cur.delim === D.None)) out += s.slice(written);
  return { text: out, ctx: cur };
}

/**
 * Context after the text `s` starting in `c`. Throws EscapeError (with the offset in `s`) for HTML
 * the tracker cannot follow, as Go's html/template does (e.g. `"` in an attribute name).
 */
export function advanceText(c: Ctx, s: string): Ctx {
  let cur = c;
  let at = 0;
  const findEnd = endFinder(s);
  while (at < s.length) {
    try {
      const [n, used] = contextAfterText(cur, s.slice(at), at, findEnd);
      // A zero-length step only happens at a special end tag; it must change the context.
      if (used === 0 && n === cur) break;
      cur = n;
      at += used;
    } catch (e) {
      if (e instanceof EscapeError) throw new EscapeError(e.message, at + e.at);
      throw e;
    }
  }
  return cur;
}
