/**
 * Finds the template actions (`{{ … }}`) in a template source without parsing the language, so other
 * text processors (markdown, HTML-to-text) can be run over a source while its actions are set aside
 * and put back verbatim afterwards. The scan follows the Go lexer's rules for where an action ends:
 * a `}}` inside a quoted string, a raw string, a character literal or a `{{/* comment *\/}}` does not
 * end it. An unterminated action runs to the end of the source (the template compiler reports it).
 */

/** One action: `[start, end)` offsets in the source, `text` = the whole `{{ … }}`. */
export interface ActionSpan {
  start: number;
  end: number;
  text: string;
}

/** Offset just past the quoted literal that starts at `i` (`"`, `'` or a backquote). */
function skipQuoted(src: string, i: number): number {
  const quote = src[i];
  let j = i + 1;
  while (j < src.length && src[j] !== quote) {
    if (src[j] === '\n' && quote !== '`') return j; // Go: unterminated; let the compiler say so
    j += src[j] === '\\' && quote !== '`' ? 2 : 1;
  }
  return Math.min(j + 1, src.length);
}

/** Offset just past the `}}` closing the action whose body starts at `i`. */
function actionEnd(src: string, i: number): number {
  let j = i;
  // `{{/* … */}}` and `{{- /* … */ -}}`: a comment may contain `}}`.
  const lead = /^-?\s*\/\*/u.exec(src.slice(j, j + 64));
  if (lead) {
    const close = src.indexOf('*/', j + lead[0].length);
    if (close === -1) return src.length;
    j = close + 2;
  }
  while (j < src.length) {
    const c = src[j];
    if (c === '}' && src[j + 1] === '}') return j + 2;
    if (c === '"' || c === "'" || c === '`') j = skipQuoted(src, j);
    else j++;
  }
  return src.length;
}

/** Every action of `src`, in order. */
export function findActions(src: string): ActionSpan[] {
  const out: ActionSpan[] = [];
  let i = src.indexOf('{{');
  while (i !== -1) {
    const end = actionEnd(src, i + 2);
    out.push({ start: i, end, text: src.slice(i, end) });
    i = src.indexOf('{{', end);
  }
  return out;
}

/**
 * Replaces every action by a token made with `token(n)` (`n` numbers distinct action texts, so the
 * same action gets the same token) and returns the new text and a function that puts the actions
 * back in any text derived from it. `pattern` must match a token and capture its number.
 */
export function protectActions(src: string, token: (n: number) => string, pattern: RegExp): { text: string; restore(text: string): string } {
  const actions = findActions(src);
  const numbers = new Map<string, number>();
  const texts: string[] = [];
  let out = '';
  let last = 0;
  for (const a of actions) {
    let n = numbers.get(a.text);
    if (n === undefined) {
      n = texts.length;
      numbers.set(a.text, n);
      texts.push(a.text);
    }
    out += src.slice(last, a.start) + token(n);
    last = a.end;
  }
  out += src.slice(last);
  return {
    text: out,
    restore: (text) => (texts.length === 0 ? text : text.replace(pattern, (whole, n: string) => texts[Number(n)] ?? whole)),
  };
}
