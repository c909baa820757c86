/**
 * Lexer for Go's text/template syntax (the rules of Go's text/template/parse/lex.go, written anew):
 * `{{ }}` actions, `{{- ` / ` -}}` trim markers, comments (slash-star inside braces), and action tokens.
 */
import { syntaxError, type SourceInfo } from './errors.js';

/** Token kinds. `char` is any other printable ASCII character; the parser reports it as unexpected. */
export type TokType =
  | 'text' | 'leftDelim' | 'rightDelim' | 'space' | 'ident' | 'field' | 'variable' | 'dot'
  | 'string' | 'rawString' | 'charConst' | 'number' | 'bool' | 'nil' | 'declare' | 'assign'
  | 'pipe' | 'leftParen' | 'rightParen' | 'char' | 'keyword' | 'eof';

/** One token; `val` is the raw source text (text tokens: the text after trimming). */
export interface Token {
  t: TokType;
  val: string;
  /** Offset in the lexed text. */
  pos: number;
}

const KEYWORDS = new Set(['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with']);

/** Go's isSpace: the characters trim markers remove and actions may contain. */
export function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

const ALNUM = /[\p{L}\p{Nd}_]/u;
function isAlnum(c: string | undefined): boolean {
  return c !== undefined && ALNUM.test(c);
}

function trimEndSpace(s: string): string {
  let e = s.length;
  while (e > 0 && isSpace(s[e - 1])) e--;
  return s.slice(0, e);
}

/**
 * Splits `src.text` into tokens. Throws TemplateSyntaxError (Go's lexer messages: "unclosed action",
 * "unclosed comment", "unterminated quoted string", "bad number syntax: …", …).
 */
export function lex(src: SourceInfo): Token[] {
  return new Lexer(src).run();
}

class Lexer {
  private readonly s: string;
  private readonly out: Token[] = [];
  private p = 0;
  private parenDepth = 0;

  constructor(private readonly src: SourceInfo) {
    this.s = src.text;
  }

  run(): Token[] {
    let trimNext = false;
    for (;;) {
      const start = this.p;
      const j = this.s.indexOf('{{', start);
      const end = j === -1 ? this.s.length : j;
      const trimHere = j !== -1 && this.s[j + 2] === '-' && isSpace(this.s[j + 3]);
      this.emitText(start, end, trimNext, trimHere);
      if (j === -1) break;
      this.p = j + 2 + (trimHere ? 2 : 0);
      trimNext = this.s.startsWith('/*', this.p) ? this.comment(j) : this.action(j);
    }
    this.out.push({ t: 'eof', val: '', pos: this.s.length });
    return this.out;
  }

  private emitText(start: number, end: number, trimLeading: boolean, trimTrailing: boolean): void {
    let a = start;
    if (trimLeading) while (a < end && isSpace(this.s[a])) a++;
    let text = this.s.slice(a, end);
    if (trimTrailing) text = trimEndSpace(text);
    if (text !== '') this.out.push({ t: 'text', val: text, pos: a });
  }

  /** At `/*` after a left delimiter; returns whether the comment ends with a trim marker. */
  private comment(delimPos: number): boolean {
    const close = this.s.indexOf('*/', this.p + 2);
    if (close === -1) syntaxError(this.src, delimPos, 'unclosed comment');
    this.p = close + 2;
    const right = this.atRightDelim();
    if (!right) syntaxError(this.src, this.p, 'comment ends before closing delimiter');
    this.p += right.len;
    return right.trim;
  }

  /** Returns the length of a right delimiter at p (with its trim marker), or null. */
  private atRightDelim(): { len: number; trim: boolean } | null {
    if (isSpace(this.s[this.p]) && this.s[this.p + 1] === '-' && this.s.startsWith('}}', this.p + 2)) {
      return { len: 4, trim: true };
    }
    return this.s.startsWith('}}', this.p) ? { len: 2, trim: false } : null;
  }

  private push(t: TokType, start: number): void {
    this.out.push({ t, val: this.s.slice(start, this.p), pos: start });
  }

  /** Lexes one action after its left delimiter; returns whether it ends with a trim marker. */
  private action(delimPos: number): boolean {
    this.out.push({ t: 'leftDelim', val: '{{', pos: delimPos });
    this.parenDepth = 0;
    for (;;) {
      const right = this.atRightDelim();
      if (right) {
        if (this.parenDepth > 0) syntaxError(this.src, this.p, 'unclosed left paren');
        this.out.push({ t: 'rightDelim', val: '}}', pos: this.p });
        this.p += right.len;
        return right.trim;
      }
      if (this.p >= this.s.length) syntaxError(this.src, delimPos, 'unclosed action');
      this.insideAction();
    }
  }

  private insideAction(): void {
    const start = this.p;
    const c = this.s[this.p] as string;
    if (isSpace(c)) {
      while (isSpace(this.s[this.p]) && !this.trimMarkerAt(this.p)) this.p++;
      if (this.p === start) this.p++;
      return this.push('space', start);
    }
    switch (c) {
      case '=': this.p++; return this.push('assign', start);
      case ':':
        if (this.s[this.p + 1] !== '=') syntaxError(this.src, start, 'expected :=');
        this.p += 2;
        return this.push('declare', start);
      case '|': this.p++; return this.push('pipe', start);
      case '"': return this.quoted(start, '"', 'string', 'unterminated quoted string');
      case '`': return this.rawQuote(start);
      case "'": return this.quoted(start, "'", 'charConst', 'unterminated character constant');
      case '$': this.p++; return this.word(start, 'variable');
      case '(': this.p++; this.parenDepth++; return this.push('leftParen', start);
      case ')':
        this.p++;
        if (--this.parenDepth < 0) syntaxError(this.src, start, 'unexpected right paren');
        return this.push('rightParen', start);
      case '.': {
        const n = this.s[this.p + 1];
        if (n === undefined || n < '0' || n > '9') {
          this.p++;
          return isAlnum(this.s[this.p]) ? this.word(start, 'field') : this.push('dot', start);
        }
        return this.number(start);
      }
    }
    if (c === '+' || c === '-' || (c >= '0' && c <= '9')) return this.number(start);
    if (isAlnum(c)) return this.identifier(start);
    const cp = c.codePointAt(0) as number;
    if (cp < 0x80 && cp >= 0x20) {
      this.p++;
      return this.push('char', start);
    }
    const ch = String.fromCodePoint(this.s.codePointAt(this.p) as number);
    syntaxError(this.src, start, `unrecognized character in action: ${goRune(ch)}`);
  }

  private trimMarkerAt(i: number): boolean {
    return this.s[i + 1] === '-' && this.s.startsWith('}}', i + 2);
  }

  /** Scans alphanumerics after a `$` or `.` prefix (already consumed). */
  private word(start: number, t: TokType): void {
    while (isAlnum(this.s[this.p])) this.p++;
    this.checkTerminator();
    this.push(t, start);
  }

  private identifier(start: number): void {
    while (isAlnum(this.s[this.p])) this.p++;
    this.checkTerminator();
    const w = this.s.slice(start, this.p);
    if (KEYWORDS.has(w)) return this.push('keyword', start);
    if (w === 'true' || w === 'false') return this.push('bool', start);
    if (w === 'nil') return this.push('nil', start);
    this.push('ident', start);
  }

  /** Go's atTerminator: what may follow an identifier, field or variable. */
  private checkTerminator(): void {
    const c = this.s[this.p];
    if (c === undefined || isSpace(c) || '.,|:()}'.includes(c)) return;
    syntaxError(this.src, this.p, `bad character ${goRune(c)}`);
  }

  private number(start: number): void {
    const s = this.s;
    const accept = (set: string): boolean => {
      const c = s[this.p];
      if (c !== undefined && set.includes(c)) {
        this.p++;
        return true;
      }
      return false;
    };
    const run = (set: string): void => {
      while (accept(set));
    };
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    run(digits);
    if (accept('.')) run(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      run('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      run('0123456789_');
    }
    accept('i');
    if (isAlnum(s[this.p])) {
      this.p++;
      syntaxError(this.src, start, `bad number syntax: ${JSON.stringify(s.slice(start, this.p))}`);
    }
    this.push('number', start);
  }

  /** A "…" string or '…' character constant: backslash escapes, no newline before the close. */
  private quoted(start: number, quote: string, t: TokType, unterminated: string): void {
    this.p++;
    for (;;) {
      const c = this.s[this.p++];
      if (c === '\\' && this.s[this.p] !== undefined && this.s[this.p] !== '\n') this.p++;
      else if (c === undefined || c === '\n') syntaxError(this.src, start, unterminated);
      else if (c === quote) break;
    }
    this.push(t, start);
  }

  private rawQuote(start: number): void {
    const close = this.s.indexOf('`', this.p + 1);
    if (close === -1) syntaxError(this.src, start, 'unterminated raw quoted string');
    this.p = close + 1;
    this.push('rawString', start);
  }
}

/** Formats a character like Go's %#U: `U+0023 '#'`. */
export function goRune(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${ch}'`;
}
