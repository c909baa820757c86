/**
 * Static analysis of the regular expressions a `query` may carry, for PostgreSQL's regex engine
 * (Henry Spencer's ARE engine: a lazily built DFA, with backtracking only where the DFA cannot decide).
 * Source: issue 14 finding 3 (one lookahead pattern froze PGlite for hours).
 *
 * What costs what in that engine, measured on PGlite (PostgreSQL 18) over one 60 KB value:
 * - Matching without asking where (`~ ~* !~ !~*`, `SIMILAR TO`, `regexp_like`): one DFA pass, linear
 *   in the text whatever the quantifiers: `(a+)+z`, `(a|aa)*z`, `(.*a){20}z` take 2–35 ms. Nested or
 *   adjacent unbounded quantifiers do **not** backtrack here, so they are not refused.
 * - Lookaround constraints `(?=` `(?!` `(?<=` `(?<!`: the DFA runs a sub-DFA at each position it
 *   reaches, so one evaluation is quadratic: `(?=.*x)z` took 23 s; 1,000 such rows take hours.
 * - Back-references (`\1`…): matched by backtracking over every split (`^(aa+)\1+$` is quadratic or
 *   worse); PostgreSQL's engine checks for cancellation there, PGlite has nothing to cancel with.
 * - Asking where the match is (`regexp_match`, `substring(x from 'regex')`, `substring(x similar …)`):
 *   the engine tries every candidate start with a full scan, then dissects capture groups. An
 *   unanchored pattern is quadratic (`regexp_match(a…ab, '(?:a.*c|b)')` took 43 s), and so are
 *   adjacent non-greedy captures even when anchored (`^(a*?)(a*?)b` took 44 s); anchored greedy
 *   patterns stayed under 100 ms (`^((a+)(a+))+$`, `^(.*)(b.*)$`).
 * - Bounded repetition multiplies the automaton: `(?:a?){100}a{100}z` costs 20 ms per 60 KB, about 40
 *   times a plain pattern.
 */

/** Which syntax a pattern is written in. */
export type RegexDialect = 'regex' | 'similar';

/** What the analysis found in one pattern. Each `string` field quotes the first offending construct. */
export interface RegexFacts {
  /** A lookahead or lookbehind constraint, e.g. `(?=`; null when none. */
  readonly lookaround: string | null;
  /** A back-reference, e.g. `\1`; null when none. */
  readonly backReference: string | null;
  /** A non-greedy quantifier, e.g. `*?`; null when none. */
  readonly nonGreedy: string | null;
  /** Whether every match must start at the beginning of the text (`^` or `\A` leading every branch). */
  readonly anchored: boolean;
  /** The pattern's size once bounded repetitions are expanded (atoms), capped at 1,000,000. */
  readonly expandedSize: number;
}

/** Thrown for text the analysis cannot read; the guard refuses such a pattern. */
export class RegexSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexSyntaxError';
  }
}

const CAP = 1_000_000;
const FLAG_LETTERS = /^[bceimnpqstwxg]*$/;

interface Mode {
  /** 'are' (default), 'ere', 'bre', or 'literal' (q flag / `***=`). */
  syntax: 'are' | 'ere' | 'bre' | 'literal';
  expanded: boolean;
  /** `^` matches after every newline (flags n, w): it no longer anchors. */
  newlineAnchors: boolean;
}

/**
 * Analyses a POSIX-style pattern (`dialect: 'regex'`, with `flags` as given to regexp_like/regexp_match,
 * '' for the operators) or a SIMILAR TO pattern (`dialect: 'similar'`, with its ESCAPE character:
 * `\` by default, '' for none). Throws RegexSyntaxError for flags it does not know or a pattern it
 * cannot read.
 */
export function analyseRegex(pattern: string, dialect: RegexDialect, options: { flags?: string; escape?: string } = {}): RegexFacts {
  if (dialect === 'similar') return analyseSimilar(pattern, options.escape ?? '\\');
  const flags = options.flags ?? '';
  if (!FLAG_LETTERS.test(flags)) throw new RegexSyntaxError(`unknown regular-expression flags "${flags}"`);
  const mode: Mode = { syntax: 'are', expanded: false, newlineAnchors: false };
  applyFlags(mode, flags);
  let text = pattern;
  if (text.startsWith('***=')) return literalFacts();
  if (text.startsWith('***:')) {
    text = text.slice(4);
    mode.syntax = 'are';
  }
  if (mode.syntax === 'are') {
    const embedded = /^\(\?([a-z]*)\)/.exec(text);
    if (embedded !== null) {
      if (!FLAG_LETTERS.test(embedded[1] ?? '')) throw new RegexSyntaxError('unknown embedded regular-expression options');
      applyFlags(mode, embedded[1] ?? '');
      text = text.slice(embedded[0].length);
    }
  }
  if (mode.syntax === 'literal') return literalFacts();
  return new Parser(text, mode).run();
}

function applyFlags(mode: Mode, flags: string): void {
  for (const f of flags) {
    if (f === 'b') mode.syntax = 'bre';
    else if (f === 'e') mode.syntax = 'ere';
    else if (f === 'q') mode.syntax = 'literal';
    else if (f === 'x') mode.expanded = true;
    else if (f === 't') mode.expanded = false;
    else if (f === 'n' || f === 'w') mode.newlineAnchors = true;
    else if (f === 's' || f === 'p') mode.newlineAnchors = false;
  }
}

function literalFacts(): RegexFacts {
  return { lookaround: null, backReference: null, nonGreedy: null, anchored: false, expandedSize: 1 };
}

/** One parsed piece: its expanded size and whether it pins the match to the start of the text. */
interface Piece { size: number; anchors: boolean }

/** A recursive-descent reader of ARE/ERE/BRE syntax that records the facts above. */
class Parser {
  private i = 0;
  private lookaround: string | null = null;
  private backReference: string | null = null;
  private nonGreedy: string | null = null;

  constructor(private readonly s: string, private readonly mode: Mode) {}

  run(): RegexFacts {
    const top = this.alternation(0);
    if (this.i < this.s.length) throw new RegexSyntaxError('unbalanced parentheses in a regular expression');
    return {
      lookaround: this.lookaround,
      backReference: this.backReference,
      nonGreedy: this.nonGreedy,
      anchored: top.anchors,
      expandedSize: Math.min(top.size, CAP),
    };
  }

  private get bre(): boolean { return this.mode.syntax === 'bre'; }

  private skipIgnored(): void {
    if (!this.mode.expanded) return;
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') this.i += 1;
      else if (c === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i += 1;
      } else return;
    }
  }

  private atEnd(depth: number): boolean {
    this.skipIgnored();
    if (this.i >= this.s.length) return true;
    if (this.bre) return depth > 0 && this.s.startsWith('\\)', this.i);
    return depth > 0 && this.s[this.i] === ')';
  }

  /** branch ( '|' branch )*; BRE has no alternation. */
  private alternation(depth: number): Piece {
    let size = 0;
    let anchors = true;
    for (;;) {
      const b = this.branch(depth);
      size = Math.min(CAP, size + b.size);
      anchors &&= b.anchors;
      this.skipIgnored();
      if (!this.bre && this.s[this.i] === '|') {
        this.i += 1;
        continue;
      }
      return { size, anchors };
    }
  }

  private branch(depth: number): Piece {
    let size = 0;
    let first: Piece | null = null;
    while (!this.atEnd(depth) && (this.bre || this.s[this.i] !== '|')) {
      const p = this.quantified(depth, first === null);
      first ??= p;
      size = Math.min(CAP, size + p.size);
    }
    return { size: Math.max(size, 1), anchors: first?.anchors ?? false };
  }

  /** An atom with its quantifiers. */
  private quantified(depth: number, leading: boolean): Piece {
    const atom = this.atom(depth, leading);
    let size = atom.size;
    let anchors = atom.anchors;
    for (;;) {
      this.skipIgnored();
      const q = this.quantifier();
      if (q === null) break;
      const [min, max] = q;
      size = Math.min(CAP, size * Math.max(1, max ?? min + 1));
      if (min === 0) anchors = false;
    }
    return { size, anchors };
  }

  /** Reads one quantifier and returns [min, max|null], or null when none follows. */
  private quantifier(): [number, number | null] | null {
    const c = this.s[this.i];
    let q: [number, number | null] | null = null;
    const start = this.i;
    if (c === '*') { this.i += 1; q = [0, null]; }
    else if (!this.bre && c === '+') { this.i += 1; q = [1, null]; }
    else if (!this.bre && c === '?') { this.i += 1; q = [0, 1]; }
    else {
      const bound = this.bre ? /^\\\{(\d+)(,(\d*))?\\\}/.exec(this.s.slice(this.i)) : /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i));
      if (bound === null) return null;
      this.i += bound[0].length;
      const min = Number(bound[1]);
      const max = bound[2] === undefined ? min : bound[3] === '' || bound[3] === undefined ? null : Number(bound[3]);
      q = [min, max];
    }
    if (!this.bre && this.mode.syntax === 'are' && this.s[this.i] === '?') {
      this.i += 1;
      this.nonGreedy ??= this.s.slice(start, this.i);
    }
    return q;
  }

  private atom(depth: number, leading: boolean): Piece {
    const c = this.s[this.i] ?? '';
    if (this.bre) return this.breAtom(depth, leading);
    if (c === '(') return this.group(depth);
    if (c === '[') return this.bracket();
    if (c === '\\') return this.escape();
    this.i += 1;
    if (c === '^') return { size: 1, anchors: !this.mode.newlineAnchors };
    if (c === ')') throw new RegexSyntaxError('unbalanced parentheses in a regular expression');
    return { size: 1, anchors: false };
  }

  private breAtom(depth: number, leading: boolean): Piece {
    if (this.s.startsWith('\\(', this.i)) {
      this.i += 2;
      const inner = this.alternation(depth + 1);
      if (!this.s.startsWith('\\)', this.i)) throw new RegexSyntaxError('unbalanced parentheses in a regular expression');
      this.i += 2;
      return inner;
    }
    const c = this.s[this.i] ?? '';
    if (c === '[') return this.bracket();
    if (c === '\\') return this.escape();
    this.i += 1;
    if (c === '^' && leading) return { size: 1, anchors: !this.mode.newlineAnchors };
    return { size: 1, anchors: false };
  }

  private group(depth: number): Piece {
    const rest = this.s.slice(this.i);
    const look = /^\(\?(=|!|<=|<!)/.exec(rest);
    if (look !== null) {
      this.lookaround ??= look[0];
      this.i += look[0].length;
      const inner = this.alternation(depth + 1);
      this.closeGroup();
      return { size: inner.size, anchors: false };
    }
    if (rest.startsWith('(?#')) {
      const end = this.s.indexOf(')', this.i);
      if (end < 0) throw new RegexSyntaxError('unterminated comment in a regular expression');
      this.i = end + 1;
      return { size: 0, anchors: false };
    }
    this.i += rest.startsWith('(?:') ? 3 : 1;
    const inner = this.alternation(depth + 1);
    this.closeGroup();
    return inner;
  }

  private closeGroup(): void {
    this.skipIgnored();
    if (this.s[this.i] !== ')') throw new RegexSyntaxError('unbalanced parentheses in a regular expression');
    this.i += 1;
  }

  /** `[...]`, including `[]...]`, `[^]...]`, `[:class:]`, `[.x.]`, `[=x=]`; ARE escapes inside. */
  private bracket(): Piece {
    let j = this.i + 1;
    if (this.s[j] === '^') j += 1;
    if (this.s[j] === ']') j += 1;
    for (;;) {
      const c = this.s[j];
      if (c === undefined) throw new RegexSyntaxError('unterminated bracket expression in a regular expression');
      if (c === ']') break;
      if (c === '[' && ':.='.includes(this.s[j + 1] ?? '')) {
        const close = this.s.indexOf(`${this.s[j + 1] ?? ''}]`, j + 2);
        if (close < 0) throw new RegexSyntaxError('unterminated bracket expression in a regular expression');
        j = close + 2;
        continue;
      }
      if (c === '\\' && this.mode.syntax === 'are') {
        if (/[1-9]/.test(this.s[j + 1] ?? '')) this.backReference ??= this.s.slice(j, j + 2);
        j += 2;
        continue;
      }
      j += 1;
    }
    this.i = j + 1;
    return { size: 1, anchors: false };
  }

  /** `\x`: back-references `\1`…, the start anchor `\A`, and everything else as one atom. */
  private escape(): Piece {
    const next = this.s[this.i + 1];
    if (next === undefined) throw new RegexSyntaxError('a regular expression ends with a backslash');
    if (/[1-9]/.test(next)) {
      const digits = /^\\[1-9]\d*/.exec(this.s.slice(this.i))?.[0] ?? `\\${next}`;
      this.backReference ??= digits;
      this.i += digits.length;
      return { size: 1, anchors: false };
    }
    this.i += 2;
    return { size: 1, anchors: next === 'A' && this.mode.syntax === 'are' };
  }
}

/**
 * SIMILAR TO: PostgreSQL turns the pattern into `^(?:…)$` (so it is always anchored), `(` into `(?:`
 * (no captures, hence no lookaround), `%` into `.*`, `_` into `.`; the ESCAPE character followed by a
 * digit becomes a back-reference, and `<escape>"` separators become a capture with a non-greedy
 * `{1,1}?` (PostgreSQL 15 `similar_to_escape`).
 */
function analyseSimilar(pattern: string, escape: string): RegexFacts {
  if (escape.length > 1) throw new RegexSyntaxError('the ESCAPE string must be empty or one character');
  let regex = '';
  let backReference: string | null = null;
  let nonGreedy: string | null = null;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] ?? '';
    if (escape !== '' && c === escape) {
      const next = pattern[i + 1];
      if (next === undefined) throw new RegexSyntaxError('a SIMILAR TO pattern ends with its escape character');
      i += 1;
      if (/[1-9]/.test(next)) {
        backReference ??= `${escape}${next}`;
        regex += 'x';
      } else if (next === '"') {
        nonGreedy ??= `${escape}"`;
      } else {
        regex += 'x';
      }
      continue;
    }
    if (c === '%') regex += '.*';
    else if (c === '_') regex += '.';
    else if (c === '(') regex += '(?:';
    else if (c === '\\') regex += '\\\\';
    else regex += c;
  }
  const inner = analyseRegex(regex, 'regex');
  return {
    lookaround: null,
    backReference,
    nonGreedy: nonGreedy ?? inner.nonGreedy,
    anchored: true,
    expandedSize: inner.expandedSize,
  };
}
