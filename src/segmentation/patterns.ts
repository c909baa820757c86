/**
 * Bounds on the operations whose cost is (size of a stored value) × (size of the other operand):
 * pattern matching (LIKE, ILIKE, SIMILAR TO, the `~` family, regexp_match/regexp_like/regex
 * substring), needle search (strpos, position, split_part) and containment (`@>`, `<@`, `?|`, `?&`,
 * `&&`). PostgreSQL 15 does not check for cancellation inside LIKE, substring search or jsonb
 * containment: measured, a 5,000-character LIKE pattern over a 2 MB value ran 14 s past a 500 ms
 * statement_timeout, and `@>` of a 1,000-element array against a 200,000-element one ran 3.4 s past
 * a 200 ms one. So one evaluation is bounded statically: the pattern (or one containment side) is a
 * constant, never taken from columns; constants are budgeted in total; and the other side may use
 * only a few column values. Source: issue "SQL segmentation guard" (ReDoS / CPU note); README.md.
 */
import { refuse } from './errors.js';
import { isObj, unwrap, type EmitContext } from './emit-support.js';
import { analyseRegex, RegexSyntaxError, type RegexFacts } from './regex.js';

/** What a pattern site matches with. */
export type PatternKind = 'like' | 'regex' | 'similar' | 'needle' | 'containment';

/** One pattern match: `subject` is the scanned text, `pattern` the pattern or needle. */
export interface PatternSite {
  readonly subject: unknown;
  readonly pattern: unknown;
  /** LIKE/ILIKE, POSIX regex, SIMILAR TO, a needle (strpos…) or one side of a containment. */
  readonly kind: PatternKind;
  /** `x LIKE ANY (array)`: `pattern` is an array of patterns. */
  readonly quantified?: boolean;
  /** regex: the flags argument of regexp_like/regexp_match, when given. */
  readonly flags?: unknown;
  /** similar: the ESCAPE argument, when given (default `\`). */
  readonly escape?: unknown;
  /** regex/similar: the engine must locate the match (regexp_match, substring), not only test it. */
  readonly locate?: boolean;
}

interface TreeFacts { columns: number; literalChars: number; literals: string[] }

/** Counts column references and string-literal characters in a raw parse tree, iteratively. */
export function treeFacts(node: unknown): TreeFacts {
  const facts: TreeFacts = { columns: 0, literalChars: 0, literals: [] };
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) { stack.push(...n); continue; }
    if (!isObj(n)) continue;
    if ('ColumnRef' in n) facts.columns += 1;
    const aConst = n['A_Const'];
    if (isObj(aConst)) countLiteral(aConst, facts);
    stack.push(...Object.values(n));
  }
  return facts;
}

/** Adds one literal's length (strings by characters, numbers by digits) to `facts`. */
function countLiteral(aConst: Record<string, unknown>, facts: TreeFacts): void {
  for (const kind of ['sval', 'ival', 'fval', 'bsval']) {
    const inner = aConst[kind];
    if (!isObj(inner)) continue;
    const text = String(inner[kind] ?? (kind === 'ival' ? 0 : ''));
    facts.literalChars += Math.max(1, text.length);
    if (kind === 'sval') facts.literals.push(text);
  }
}

/** A string literal's value, or `undefined` when `node` is not a plain string literal. */
export function stringLiteral(node: unknown): string | undefined {
  const [type, body] = unwrap(node);
  if (type !== 'A_Const' || !isObj(body['sval'])) return undefined;
  const v = body['sval']['sval'] ?? '';
  return typeof v === 'string' ? v : undefined;
}

/**
 * Applies the limits to one pattern, needle or containment site. Throws QueryRefusedError saying
 * which limit.
 */
export function checkPattern(site: PatternSite, ctx: EmitContext): void {
  const { maxPatternOps, maxPatternChars, maxSubjectColumns } = ctx.limits;
  ctx.patternOps += 1;
  if (ctx.patternOps > maxPatternOps) {
    refuse(`too many pattern and containment matches (at most ${maxPatternOps})`);
  }
  if (treeFacts(site.subject).columns > maxSubjectColumns) {
    refuse(`the text a pattern is matched against may use at most ${maxSubjectColumns} columns`);
  }
  const facts = treeFacts(site.pattern);
  if (facts.columns > 0) refuse('patterns must be constants, not taken from columns');
  ctx.patternChars += facts.literalChars;
  if (ctx.patternChars > maxPatternChars) {
    refuse(`patterns are too long in total (${ctx.patternChars} characters; at most ${maxPatternChars})`);
  }
  if (site.kind === 'regex' || site.kind === 'similar') checkRegexSite(site, ctx);
  checkStorePatternRules(site, ctx);
}

/** The stricter rules of a store without a statement timeout (EMBEDDED_LIMITS). */
function checkStorePatternRules(site: PatternSite, ctx: EmitContext): void {
  const { maxPatternLength } = ctx.limits;
  if (maxPatternLength === null || site.kind === 'containment') return;
  if (site.quantified === true) refuse('on this database pattern matching with ANY/ALL is not allowed');
  const literal = stringLiteral(site.pattern);
  if (literal === undefined) {
    refuse(`on this database a pattern must be a string literal of at most ${maxPatternLength} characters`);
  }
  if (literal.length > maxPatternLength) {
    refuse(`pattern is too long (${literal.length} characters; at most ${maxPatternLength})`);
  }
}

/** A string-literal argument (flags, ESCAPE), or refusal naming `what`. */
function literalArgument(node: unknown, what: string): string {
  const value = stringLiteral(node);
  if (value === undefined) refuse(`${what} must be a string literal`);
  return value;
}

/**
 * The patterns of a regex or SIMILAR TO site as string values: one string literal, or for ANY/ALL
 * an `ARRAY['…', …]` of string literals. Anything else is refused on every store, because a pattern
 * that cannot be read cannot be checked for the constructs below.
 */
function regexPatterns(site: PatternSite): string[] {
  if (site.quantified !== true) {
    const one = stringLiteral(site.pattern);
    if (one === undefined) refuse('regular-expression and SIMILAR TO patterns must be string literals');
    return [one];
  }
  const [type, body] = unwrap(site.pattern);
  const elements = type === 'A_ArrayExpr' && Array.isArray(body['elements']) ? body['elements'] : undefined;
  const values = elements?.map(stringLiteral);
  if (values === undefined || values.some((v) => v === undefined)) {
    refuse("regular expressions used with ANY/ALL must be written ARRAY['…', …] of string literals");
  }
  return values as string[];
}

/**
 * The regex rules (regex.ts). On every store: no lookaround constraints and no back-references,
 * whose matching is super-linear in PostgreSQL's engine (issue 14 finding 3). On a store without a
 * statement timeout (EMBEDDED_LIMITS): a bounded automaton size, and anchored greedy patterns where
 * the match is located.
 */
function checkRegexSite(site: PatternSite, ctx: EmitContext): void {
  const flags = site.flags === undefined ? '' : literalArgument(site.flags, 'regular-expression flags');
  const escape = site.escape === undefined ? '\\' : literalArgument(site.escape, 'ESCAPE');
  for (const pattern of regexPatterns(site)) {
    let facts: RegexFacts;
    try {
      facts = analyseRegex(pattern, site.kind === 'similar' ? 'similar' : 'regex', { flags, escape });
    } catch (err) {
      return refuse(err instanceof RegexSyntaxError ? err.message : 'the regular expression could not be read');
    }
    if (facts.lookaround !== null) {
      refuse(`lookahead and lookbehind constraints ("${facts.lookaround}") are not allowed in regular expressions: matching them takes time quadratic in the text`);
    }
    if (facts.backReference !== null) {
      refuse(`back-references ("${facts.backReference}") are not allowed in regular expressions: matching them can take time exponential in the text`);
    }
    checkStoreRegexRules(site, facts, ctx);
  }
}

function checkStoreRegexRules(site: PatternSite, facts: RegexFacts, ctx: EmitContext): void {
  const { maxRegexSize, locatingNeedsAnchor } = ctx.limits;
  if (maxRegexSize !== null && facts.expandedSize > maxRegexSize) {
    refuse(`on this database a regular expression may have at most ${maxRegexSize} parts once its repetitions ({m,n}) are expanded (this one has ${facts.expandedSize})`);
  }
  if (site.locate !== true || !locatingNeedsAnchor) return;
  if (!facts.anchored) {
    refuse('on this database regexp_match and substring(… from pattern) need a pattern anchored at the start with ^ (e.g. \'^[^@]*@(.*)$\'): an unanchored search takes time quadratic in the text');
  }
  if (facts.nonGreedy !== null) {
    refuse(`on this database non-greedy quantifiers ("${facts.nonGreedy}") are not allowed in regexp_match and substring: locating them takes time quadratic in the text`);
  }
}

/**
 * A containment operator (`@>`, `<@`, `?|`, `?&`, `&&`) between `left` and `right`: one side must
 * be a constant, which is then checked like a pattern against the other.
 */
export function checkContainment(op: string, left: unknown, right: unknown, ctx: EmitContext): void {
  const leftColumns = treeFacts(left).columns;
  if (leftColumns > 0 && treeFacts(right).columns > 0) {
    refuse(`operator "${op}" needs a constant on one side, not column values on both`);
  }
  const [subject, pattern] = leftColumns > 0 ? [left, right] : [right, left];
  checkPattern({ subject, pattern, kind: 'containment' }, ctx);
}

/** Arithmetic whose cost is the product of its operands' lengths for `numeric` values. */
export const PRODUCT_OPERATORS: ReadonlySet<string> = new Set(['*', '/', '%']);

/**
 * `a * b`, `a / b`, `a % b` (and `mod(a, b)`) with column values on both sides: numeric
 * multiplication is quadratic in the digits, and a 64 KB attribute holds a 60,000-digit number
 * (measured on PGlite: one such multiplication took 1 s, and PostgreSQL cannot interrupt it either).
 * With a constant on one side the cost is linear. Refused on every store (issue 14 finding 3).
 */
export function checkProduct(op: string, left: unknown, right: unknown): void {
  if (treeFacts(left).columns > 0 && treeFacts(right).columns > 0) {
    refuse(`"${op}" between two column values is not allowed (multiplying or dividing long stored numbers takes time quadratic in their length); use a constant on one side`);
  }
}
