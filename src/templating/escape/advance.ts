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

/** One step: returns the context after a prefix of `s` (which starts at `at` of the text) and its length. */
function contextAfterText(c: Ctx, s: string, at: number, findEnd: EndFinder): [Ctx, number] {
  if (c.delim === D.None) {
    let end = s.length;
    if (c.el !== E.None) {
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
