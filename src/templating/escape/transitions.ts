/**
 * Context transitions over static template text (the roles of Go html/template's transition.go,
 * reimplemented): each function consumes a prefix of the text and returns the new context.
 */
import { A, attrKind, attrStartState, type Ctx, D, E, EscapeError, J, S, TEXT, U, withCtx } from './context.js';
import { nextJsCtx } from './js-ctx.js';

type Step = [Ctx, number];

const isWs = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
const isAlpha = (c: string | undefined): boolean => c !== undefined && /[A-Za-z]/.test(c);

function eatWs(s: string, i: number): number {
  while (i < s.length && isWs(s[i])) i++;
  return i;
}

const ELEMENTS: Record<string, number> = { script: E.Script, style: E.Style, textarea: E.Textarea, title: E.Title };

function eatTagName(s: string, i: number): [number, number] {
  if (!isAlpha(s[i])) return [i, E.None];
  let j = i + 1;
  while (j < s.length && /[A-Za-z0-9:-]/.test(s[j] as string)) j++;
  return [j, ELEMENTS[s.slice(i, j).toLowerCase()] ?? E.None];
}

function tText(c: Ctx, s: string): Step {
  let k = 0;
  for (;;) {
    let i = s.indexOf('<', k);
    if (i === -1 || i + 1 === s.length) return [c, s.length];
    if (s.startsWith('<!--', i)) return [withCtx(TEXT, { s: S.HTMLCmt }), i + 4];
    i++;
    let end = false;
    if (s[i] === '/') {
      if (i + 1 === s.length) return [c, s.length];
      end = true;
      i++;
    }
    const [j, el] = eatTagName(s, i);
    if (j !== i) return [withCtx(TEXT, { s: S.Tag, el: end ? E.None : el }), j];
    k = j;
  }
}

function eatAttrName(s: string, i: number): number {
  for (let j = i; j < s.length; j++) {
    const ch = s[j];
    if (isWs(ch) || ch === '=' || ch === '>') return j;
    if (ch === "'" || ch === '"' || ch === '<') throw new EscapeError(`${JSON.stringify(ch)} in attribute name: ${JSON.stringify(s.slice(0, 32))}`, j);
  }
  return s.length;
}

const CONTENT_STATE: Record<number, number> = { [E.None]: S.Text, [E.Script]: S.JS, [E.Style]: S.CSS, [E.Textarea]: S.RCDATA, [E.Title]: S.RCDATA };

function tTag(c: Ctx, s: string): Step {
  const i = eatWs(s, 0);
  if (i === s.length) return [c, s.length];
  if (s[i] === '>') return [withCtx(TEXT, { s: CONTENT_STATE[c.el] as number, el: c.el }), i + 1];
  const j = eatAttrName(s, i);
  if (i === j) throw new EscapeError(`expected space, attr name, or end of tag, but got ${JSON.stringify(s.slice(i, i + 32))}`, i);
  const name = s.slice(i, j).toLowerCase();
  let attr: number = A.None;
  if (c.el === E.Script && name === 'type') attr = A.ScriptType;
  else {
    const k = attrKind(name);
    attr = k === 'url' ? A.URL : k === 'css' ? A.Style : k === 'js' ? A.Script : k === 'srcset' ? A.Srcset : A.None;
  }
  return [withCtx(TEXT, { s: j === s.length ? S.AttrName : S.AfterName, el: c.el, attr }), j];
}

function tAttrName(c: Ctx, s: string): Step {
  const i = eatAttrName(s, 0);
  return i !== s.length ? [withCtx(c, { s: S.AfterName }), i] : [c, i];
}

function tAfterName(c: Ctx, s: string): Step {
  const i = eatWs(s, 0);
  if (i === s.length) return [c, s.length];
  if (s[i] !== '=') return [withCtx(c, { s: S.Tag }), i];
  return [withCtx(c, { s: S.BeforeValue }), i + 1];
}

function tBeforeValue(c: Ctx, s: string): Step {
  let i = eatWs(s, 0);
  if (i === s.length) return [c, s.length];
  let delim: number = D.SpaceOrTagEnd;
  if (s[i] === "'") [delim, i] = [D.Single, i + 1];
  else if (s[i] === '"') [delim, i] = [D.Double, i + 1];
  return [withCtx(c, { s: attrStartState(c.attr), delim }), i];
}

function tHTMLCmt(c: Ctx, s: string): Step {
  const i = s.indexOf('-->');
  return i === -1 ? [c, s.length] : [TEXT, i + 3];
}

const END_TAGS: Record<number, string> = { [E.Script]: 'script', [E.Style]: 'style', [E.Textarea]: 'textarea', [E.Title]: 'title' };

const END_TAG_RES: Record<string, RegExp> = {};

/** Index of `</tag` (case-insensitive, followed by a separator) in s at or after `from`, or -1. */
function indexTagEnd(s: string, tag: string, from = 0): number {
  const re = (END_TAG_RES[tag] ??= new RegExp(`</${tag}[> \\t\\n\\f/]`, 'ig'));
  re.lastIndex = from;
  const m = re.exec(s);
  return m ? m.index : -1;
}

function tURL(c: Ctx, s: string): Step {
  if (/[#?]/.test(s)) return [withCtx(c, { url: U.QueryOrFrag }), s.length];
  if (eatWs(s, 0) !== s.length && c.url === U.None) return [withCtx(c, { url: U.PreQuery }), s.length];
  return [c, s.length];
}

function tJS(c: Ctx, s: string): Step {
  const m = /["'`/<\-#]/.exec(s);
  if (!m) return [withCtx(c, { js: nextJsCtx(s, c.js) }), s.length];
  let i = m.index;
  const js = nextJsCtx(s.slice(0, i), c.js);
  let next: Ctx = withCtx(c, { js });
  switch (s[i]) {
    case '"': next = withCtx(c, { s: S.JSDqStr, js: J.Regexp }); break;
    case "'": next = withCtx(c, { s: S.JSSqStr, js: J.Regexp }); break;
    case '`': next = withCtx(c, { s: S.JSBqStr, js: J.Regexp }); break;
    case '/':
      if (s[i + 1] === '/') [next, i] = [withCtx(next, { s: S.JSLineCmt }), i + 1];
      else if (s[i + 1] === '*') [next, i] = [withCtx(next, { s: S.JSBlockCmt }), i + 1];
      else if (js === J.Regexp) next = withCtx(next, { s: S.JSRegexp });
      else if (js === J.DivOp) next = withCtx(next, { js: J.Regexp });
      else throw new EscapeError(`'/' could start a division or regexp: ${JSON.stringify(s.slice(i, i + 32))}`, i);
      break;
    case '<': if (s.startsWith('<!--', i)) [next, i] = [withCtx(next, { s: S.JSLineCmt }), i + 3]; break;
    case '-': if (s.startsWith('-->', i)) [next, i] = [withCtx(next, { s: S.JSLineCmt }), i + 2]; break;
    case '#': if (s[i + 1] === '!') [next, i] = [withCtx(next, { s: S.JSLineCmt }), i + 1]; break;
  }
  return [next, i + 1];
}

function tJSDelimited(c: Ctx, s: string): Step {
  const specials = c.s === S.JSSqStr ? "\\'" : c.s === S.JSBqStr ? '`\\' : c.s === S.JSRegexp ? '\\/[]' : '\\"';
  let inCharset = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (!specials.includes(ch)) continue;
    if (ch === '\\') {
      if (++i === s.length) throw new EscapeError(`unfinished escape sequence in JS string: ${JSON.stringify(s)}`, i);
    } else if (ch === '[') inCharset = true;
    else if (ch === ']') inCharset = false;
    else if (!inCharset) return [withCtx(c, { s: S.JS, js: J.DivOp }), i + 1];
  }
  if (inCharset) throw new EscapeError(`unfinished JS regexp charset: ${JSON.stringify(s)}`, s.length);
  return [c, s.length];
}

function tBlockCmt(c: Ctx, s: string): Step {
  const i = s.indexOf('*/');
  if (i === -1) return [c, s.length];
  return [withCtx(c, { s: c.s === S.JSBlockCmt ? S.JS : S.CSS }), i + 2];
}

function tLineCmt(c: Ctx, s: string): Step {
  const js = c.s === S.JSLineCmt;
  const m = (js ? /[\n\r\u2028\u2029]/ : /[\n\f\r]/).exec(s);
  return m ? [withCtx(c, { s: js ? S.JS : S.CSS }), m.index] : [c, s.length];
}

function tCSS(c: Ctx, s: string): Step {
  for (let k = 0; ; ) {
    const m = /[("'/]/g;
    m.lastIndex = k;
    const hit = m.exec(s);
    if (!hit) return [c, s.length];
    const i = hit.index;
    const ch = s[i];
    if (ch === '(' && /url\s*$/i.test(s.slice(0, i)) && !/[\w-]url\s*$/i.test(s.slice(0, i))) {
      const j = eatWs(s, i + 1);
      if (s[j] === '"') return [withCtx(c, { s: S.CSSDqURL }), j + 1];
      if (s[j] === "'") return [withCtx(c, { s: S.CSSSqURL }), j + 1];
      return [withCtx(c, { s: S.CSSURL }), j];
    }
    if (ch === '/' && s[i + 1] === '/') return [withCtx(c, { s: S.CSSLineCmt }), i + 2];
    if (ch === '/' && s[i + 1] === '*') return [withCtx(c, { s: S.CSSBlockCmt }), i + 2];
    if (ch === '"') return [withCtx(c, { s: S.CSSDqStr }), i + 1];
    if (ch === "'") return [withCtx(c, { s: S.CSSSqStr }), i + 1];
    k = i + 1;
  }
}

function tCSSStr(c: Ctx, s: string): Step {
  const ends = c.s === S.CSSDqStr || c.s === S.CSSDqURL ? '\\"' : c.s === S.CSSURL ? '\\\t\n\f\r )' : "\\'";
  let cur = c;
  let k = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (!ends.includes(ch)) continue;
    if (ch !== '\\') return [withCtx(cur, { s: S.CSS }), i + 1];
    if (++i === s.length) throw new EscapeError(`unfinished escape sequence in CSS string: ${JSON.stringify(s)}`, i);
    cur = tURL(cur, s.slice(k, i + 1))[0];
    k = i + 1;
  }
  return [tURL(cur, s.slice(k))[0], s.length];
}

function tSpecialTagEnd(c: Ctx, s: string): Step {
  return [c, s.length];
}

const TRANSITIONS: Record<number, (c: Ctx, s: string) => Step> = {
  [S.Text]: tText, [S.Tag]: tTag, [S.AttrName]: tAttrName, [S.AfterName]: tAfterName,
  [S.BeforeValue]: tBeforeValue, [S.HTMLCmt]: tHTMLCmt, [S.RCDATA]: tSpecialTagEnd, [S.Attr]: (c, s) => [c, s.length],
  [S.URL]: tURL, [S.Srcset]: tURL, [S.JS]: tJS, [S.JSDqStr]: tJSDelimited, [S.JSSqStr]: tJSDelimited,
  [S.JSBqStr]: tJSDelimited, [S.JSRegexp]: tJSDelimited, [S.JSBlockCmt]: tBlockCmt, [S.JSLineCmt]: tLineCmt,
  [S.CSS]: tCSS, [S.CSSDqStr]: tCSSStr, [S.CSSSqStr]: tCSSStr, [S.CSSDqURL]: tCSSStr, [S.CSSSqURL]: tCSSStr,
  [S.CSSURL]: tCSSStr, [S.CSSBlockCmt]: tBlockCmt, [S.CSSLineCmt]: tLineCmt, [S.Dead]: (c, s) => [c, s.length],
};

export { TRANSITIONS, indexTagEnd, END_TAGS };
