/**
 * Whether a `/` after some JS text starts a regular expression or is a division (the heuristic of
 * Go html/template's nextJSCtx: one token of look-behind), reimplemented.
 */
import { J } from './context.js';

const REGEXP_PRECEDER_KEYWORDS = new Set(['break', 'case', 'continue', 'delete', 'do', 'else', 'finally',
  'in', 'instanceof', 'return', 'throw', 'try', 'typeof', 'void']);

const isIdentPart = (c: string | undefined): boolean => c !== undefined && /[$0-9A-Za-z_]/.test(c);

/** JS slash context after `s`, given the context before it. */
export function nextJsCtx(s: string, preceding: number): number {
  const t = s.replace(/[\t\n\f\r \u2028\u2029]+$/, '');
  if (t === '') return preceding;
  const c = t[t.length - 1] as string;
  if (c === '+' || c === '-') {
    let start = t.length - 1;
    while (start > 0 && t[start - 1] === c) start--;
    return (t.length - start) % 2 === 1 ? J.Regexp : J.DivOp;
  }
  if (c === '.') return t.length > 1 && /[0-9]/.test(t[t.length - 2] as string) ? J.DivOp : J.Regexp;
  if (',<>=*%&|^?!~([:;{}'.includes(c)) return J.Regexp;
  let j = t.length;
  while (j > 0 && isIdentPart(t[j - 1])) j--;
  return REGEXP_PRECEDER_KEYWORDS.has(t.slice(j)) ? J.Regexp : J.DivOp;
}
