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

/** One pattern match: `subject` is the scanned text, `pattern` the pattern or needle. */
export interface PatternSite {
  readonly subject: unknown;
  readonly pattern: unknown;
  /** Regular-expression syntax (back-references possible). */
  readonly regex: boolean;
  /** `x LIKE ANY (array)`: `pattern` is an array of patterns. */
  readonly quantified?: boolean;
  /** Containment (`@>` …): the constant side need not be one string literal on any store. */
  readonly containment?: boolean;
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
  checkStorePatternRules(site, facts, ctx);
}

/** The stricter rules of a store without a statement timeout (EMBEDDED_LIMITS). */
function checkStorePatternRules(site: PatternSite, facts: TreeFacts, ctx: EmitContext): void {
  const { maxPatternLength, allowRegexBackrefs } = ctx.limits;
  if (site.regex && !allowRegexBackrefs && facts.literals.some((s) => /\\[1-9]/.test(s))) {
    refuse('regular-expression back-references (\\1 … \\9) are not allowed on this database');
  }
  if (maxPatternLength === null || site.containment === true) return;
  if (site.quantified === true) refuse('on this database pattern matching with ANY/ALL is not allowed');
  const literal = stringLiteral(site.pattern);
  if (literal === undefined) {
    refuse(`on this database a pattern must be a string literal of at most ${maxPatternLength} characters`);
  }
  if (literal.length > maxPatternLength) {
    refuse(`pattern is too long (${literal.length} characters; at most ${maxPatternLength})`);
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
  checkPattern({ subject, pattern, regex: false, containment: true }, ctx);
}
