/**
 * Chooses, at compile time, the escapers an action needs in its context, and the context after it
 * (Go html/template's escapeAction, reimplemented). Nothing here runs per render.
 */
import { attrKind, type Ctx, D, J, nudge, S, U, withCtx } from './context.js';
import {
  attrEscaper, commentEscaper, cssEscaper, cssValueFilter, type Escaper, htmlCommentEscaper, htmlEscapeString,
  htmlEscaper, htmlNameFilter, jsRegexpEscaper, jsStrEscaper, jsTmplLitEscaper, jsValEscaper, nospaceEscaper,
  rcdataEscaper, stringify,
} from './escapers.js';
import { srcsetEscaper, urlEscaper, urlFilter, urlNormalizer } from './url.js';

/** Escaper names; `html` and `urlquery` name the Go predefined escapers a pipeline may end with. */
export type EscId =
  | 'htmlEsc' | 'rcdata' | 'attr' | 'nospace' | 'urlFilter' | 'urlNorm' | 'urlEsc' | 'srcset' | 'jsVal'
  | 'jsStr' | 'jsTmpl' | 'jsRegexp' | 'cssVal' | 'cssEsc' | 'htmlName' | 'htmlCmt' | 'cmt' | 'html' | 'urlquery';

/** Go's text/template `urlquery`: QueryEscape of the printed value. */
export function queryEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

export const ESCAPERS: Record<EscId, Escaper> = {
  htmlEsc: htmlEscaper, rcdata: rcdataEscaper, attr: attrEscaper, nospace: nospaceEscaper, urlFilter,
  urlNorm: urlNormalizer, urlEsc: urlEscaper, srcset: srcsetEscaper, jsVal: jsValEscaper, jsStr: jsStrEscaper,
  jsTmpl: jsTmplLitEscaper, jsRegexp: jsRegexpEscaper, cssVal: cssValueFilter, cssEsc: cssEscaper,
  htmlName: (v) => htmlNameFilter(v, (n) => attrKind(n) === 'plain'), htmlCmt: htmlCommentEscaper, cmt: commentEscaper,
  html: (v) => htmlEscapeString(stringify(v)[0]),
  urlquery: (v) => queryEscape(stringify(v)[0]),
};

/** Escapers a predefined escaper may stand in for (Go's equivalentEscapers). */
export const EQUIVALENT: Partial<Record<EscId, 'html' | 'urlquery'>> = {
  attr: 'html', htmlEsc: 'html', rcdata: 'html', urlEsc: 'urlquery', urlNorm: 'urlquery',
};

/** Result of choosing: escapers to apply in order and the context after the action. */
export interface Choice {
  chain: EscId[];
  after: Ctx;
}

const URL_STATES: ReadonlySet<number> = new Set([S.URL, S.CSSDqStr, S.CSSSqStr, S.CSSDqURL, S.CSSSqURL, S.CSSURL]);
const COMMENT_STATES: ReadonlySet<number> = new Set([S.JSBlockCmt, S.JSLineCmt, S.CSSBlockCmt, S.CSSLineCmt]);

function urlChain(c: Ctx): EscId[] | string {
  const cssStr = c.s === S.CSSDqStr || c.s === S.CSSSqStr;
  switch (c.url) {
    case U.None: return ['urlFilter', cssStr ? 'cssEsc' : 'urlNorm'];
    case U.PreQuery: return [cssStr ? 'cssEsc' : 'urlNorm'];
    case U.QueryOrFrag: return ['urlEsc'];
    default: return 'appears in an ambiguous context within a URL';
  }
}

/**
 * Escapers for an action printed in context `c0`. Returns an error message string for contexts
 * where interpolation is ambiguous (Go's ErrAmbigContext).
 */
export function chooseEscapers(c0: Ctx): Choice | string {
  let c = nudge(c0);
  let chain: EscId[];
  if (URL_STATES.has(c.s)) {
    const u = urlChain(c);
    if (typeof u === 'string') return u;
    chain = u;
  } else if (COMMENT_STATES.has(c.s)) chain = ['cmt'];
  else {
    switch (c.s) {
      case S.JS: chain = ['jsVal']; c = withCtx(c, { js: J.DivOp }); break;
      case S.JSDqStr: case S.JSSqStr: chain = ['jsStr']; break;
      case S.JSBqStr: chain = ['jsTmpl']; break;
      case S.JSRegexp: chain = ['jsRegexp']; break;
      case S.CSS: chain = ['cssVal']; break;
      case S.RCDATA: chain = ['rcdata']; break;
      case S.Attr: chain = []; break;
      case S.AttrName: case S.Tag: chain = ['htmlName']; c = withCtx(c, { s: S.AttrName }); break;
      case S.Srcset: chain = ['srcset']; break;
      case S.HTMLCmt: chain = ['htmlCmt']; break;
      default: chain = ['htmlEsc'];
    }
  }
  if (c.delim === D.SpaceOrTagEnd) chain.push('nospace');
  else if (c.delim !== D.None) chain.push('attr');
  return { chain, after: c };
}
