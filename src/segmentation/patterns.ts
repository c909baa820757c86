/**
 * Bounds on pattern matching (LIKE, ILIKE, SIMILAR TO, `~`-family operators, regexp_* functions),
 * the one place where a short expression can burn a lot of CPU per row. On PostgreSQL the statement
 * timeout is the real bound; on PGlite, which has none, {@link EMBEDDED_LIMITS} require patterns to
 * be short literals without back-references. Source: issue "SQL segmentation guard" (ReDoS note).
 */
import { refuse } from './errors.js';
import { isObj, unwrap, type EmitContext } from './emit-support.js';

/** A string literal's value, or `undefined` when `node` is not a plain string literal. */
export function stringLiteral(node: unknown): string | undefined {
  const [type, body] = unwrap(node);
  if (type !== 'A_Const' || !isObj(body['sval'])) return undefined;
  const v = body['sval']['sval'] ?? '';
  return typeof v === 'string' ? v : undefined;
}

/**
 * Counts one pattern match whose pattern is `node` and applies the pattern limits. `regex` marks
 * regular-expression syntax (where back-references exist). Throws QueryRefusedError.
 */
export function checkPattern(node: unknown, ctx: EmitContext, regex: boolean): void {
  ctx.patternOps += 1;
  const { maxPatternOps, maxPatternLength, allowRegexBackrefs } = ctx.limits;
  if (ctx.patternOps > maxPatternOps) refuse(`too many pattern matches (at most ${maxPatternOps})`);
  if (maxPatternLength === null) return;
  const literal = stringLiteral(node);
  if (literal === undefined) {
    refuse(`on this database a pattern must be a string literal of at most ${maxPatternLength} characters`);
  }
  if (literal.length > maxPatternLength) {
    refuse(`pattern is too long (${literal.length} characters; at most ${maxPatternLength})`);
  }
  if (regex && !allowRegexBackrefs && /\\[1-9]/.test(literal)) {
    refuse('regular-expression back-references (\\1 … \\9) are not allowed on this database');
  }
}

/**
 * On a store with pattern limits, refuses quantified pattern matches (`x LIKE ANY (array)`), whose
 * patterns cannot be checked one by one; elsewhere only counts them.
 */
export function checkQuantifiedPattern(ctx: EmitContext): void {
  ctx.patternOps += 1;
  if (ctx.patternOps > ctx.limits.maxPatternOps) {
    refuse(`too many pattern matches (at most ${ctx.limits.maxPatternOps})`);
  }
  if (ctx.limits.maxPatternLength !== null) {
    refuse('on this database pattern matching with ANY/ALL is not allowed');
  }
}
