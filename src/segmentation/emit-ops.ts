/**
 * Checked emitter for operator expressions (PostgreSQL's A_Expr): binary and prefix operators,
 * `op ANY/ALL (array)`, IS [NOT] DISTINCT FROM, NULLIF, [NOT] IN (list), [NOT] LIKE/ILIKE/SIMILAR TO
 * [ESCAPE], [NOT] BETWEEN [SYMMETRIC]. Operators must be unqualified and allow-listed;
 * `OPERATOR(schema.op)` is refused. Every result is parenthesised.
 */
import {
  BINARY_OPERATORS, CONTAINMENT_OPERATORS, PATTERN_OPERATORS, PREFIX_OPERATORS, QUANTIFIED_OPERATORS, REGEX_OPERATORS,
} from './allow-list.js';
import { refuse } from './errors.js';
import {
  listOf, namesOf, onlyKeys, unwrap, type EmitContext, type Handler, type Obj,
} from './emit-support.js';
import { checkContainment, checkPattern, checkProduct, PRODUCT_OPERATORS, treeFacts } from './patterns.js';

type KindEmitter = (op: string, body: Obj, ctx: EmitContext, depth: number) => string;

/** Any A_Expr; dispatches on its kind. */
export const emitAExpr: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['kind', 'name', 'lexpr', 'rexpr', 'location', 'rexpr_list_start', 'rexpr_list_end'], 'operator');
  const names = namesOf(body, 'name');
  const [op] = names;
  if (names.length > 1) refuse(`schema-qualified operator OPERATOR(${names.join('.')}) is not allowed`);
  if (op === undefined) return refuse('the expression has an operator without a name');
  const kind = KINDS[String(body['kind'])];
  if (kind === undefined) return refuse(`operator form ${String(body['kind'])} is not allowed`);
  return kind(op, body, ctx, depth);
};

const side = (body: Obj, key: 'lexpr' | 'rexpr', ctx: EmitContext, depth: number): string => {
  if (body[key] === undefined) refuse('the expression has an operator with a missing operand');
  return ctx.emit(body[key], depth + 1);
};

const emitOp: KindEmitter = (op, body, ctx, depth) => {
  if (body['lexpr'] === undefined) {
    if (!PREFIX_OPERATORS.has(op)) refuse(`prefix operator "${op}" is not allowed`);
    return `(${op} ${side(body, 'rexpr', ctx, depth)})`;
  }
  if (!BINARY_OPERATORS.has(op)) refuse(`operator "${op}" is not allowed`);
  if (PATTERN_OPERATORS.has(op)) {
    checkPattern({ subject: body['lexpr'], pattern: body['rexpr'], kind: REGEX_OPERATORS.has(op) ? 'regex' : 'like' }, ctx);
  }
  if (CONTAINMENT_OPERATORS.has(op)) checkContainment(op, body['lexpr'], body['rexpr'], ctx);
  if (PRODUCT_OPERATORS.has(op)) checkProduct(op, body['lexpr'], body['rexpr']);
  return `(${side(body, 'lexpr', ctx, depth)} ${op} ${side(body, 'rexpr', ctx, depth)})`;
};

const quantified = (word: 'ANY' | 'ALL'): KindEmitter => (op, body, ctx, depth) => {
  if (!QUANTIFIED_OPERATORS.has(op)) refuse(`operator "${op}" is not allowed with ${word}`);
  if (PATTERN_OPERATORS.has(op)) {
    const kind = REGEX_OPERATORS.has(op) ? 'regex' : 'like';
    checkPattern({ subject: body['lexpr'], pattern: body['rexpr'], kind, quantified: true }, ctx);
  }
  return `(${side(body, 'lexpr', ctx, depth)} ${op} ${word} (${side(body, 'rexpr', ctx, depth)}))`;
};

const expectOp = (op: string, allowed: Readonly<Record<string, string>>, what: string): string => {
  const sql = allowed[op];
  if (sql === undefined) refuse(`the expression has an unexpected ${what}`);
  return sql;
};

const distinct = (negated: boolean): KindEmitter => (op, body, ctx, depth) => {
  expectOp(op, { '=': '' }, 'IS DISTINCT FROM');
  const word = negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM';
  return `(${side(body, 'lexpr', ctx, depth)} ${word} ${side(body, 'rexpr', ctx, depth)})`;
};

const emitNullIf: KindEmitter = (op, body, ctx, depth) => {
  expectOp(op, { '=': '' }, 'NULLIF');
  return `NULLIF(${side(body, 'lexpr', ctx, depth)}, ${side(body, 'rexpr', ctx, depth)})`;
};

/** The items of the List node in `rexpr` (IN lists, BETWEEN bounds). */
function rightList(body: Obj, ctx: EmitContext, depth: number): string[] {
  const [type, list] = unwrap(body['rexpr']);
  if (type !== 'List') refuse('the expression has an unexpected IN/BETWEEN operand');
  onlyKeys(list, ['items'], 'list');
  return listOf(list, 'items').map((n) => ctx.emit(n, depth + 1));
}

const emitIn: KindEmitter = (op, body, ctx, depth) => {
  const word = expectOp(op, { '=': 'IN', '<>': 'NOT IN' }, 'IN');
  const items = rightList(body, ctx, depth);
  if (items.length === 0) refuse('IN needs at least one value');
  return `(${side(body, 'lexpr', ctx, depth)} ${word} (${items.join(', ')}))`;
};

const emitBetween = (word: string): KindEmitter => (op, body, ctx, depth) => {
  expectOp(op, { [word]: '' }, word);
  const [low, high, extra] = rightList(body, ctx, depth);
  if (low === undefined || high === undefined || extra !== undefined) refuse(`${word} needs two bounds`);
  return `(${side(body, 'lexpr', ctx, depth)} ${word} ${low} AND ${high})`;
};

/**
 * The pattern side of LIKE/ILIKE/SIMILAR TO: the grammar wraps `p ESCAPE e` as
 * `pg_catalog.like_escape(p, e)` and every SIMILAR TO pattern as `pg_catalog.similar_to_escape(p[, e])`;
 * those two calls are accepted here, and only here, and emitted back in keyword form.
 */
function patternSide(body: Obj, ctx: EmitContext, depth: number, escapeFn: string | null): string {
  const [type, call] = unwrap(body['rexpr']);
  const names = type === 'FuncCall' ? namesOf(call, 'funcname') : [];
  const isEscape = names.length === 2 && names[0] === 'pg_catalog' && names[1] === escapeFn;
  if (!isEscape) {
    if (escapeFn === 'similar_to_escape') refuse('the expression has an unexpected SIMILAR TO');
    checkPattern({ subject: body['lexpr'], pattern: body['rexpr'], kind: 'like' }, ctx);
    return side(body, 'rexpr', ctx, depth);
  }
  onlyKeys(call, ['funcname', 'args', 'funcformat', 'location'], 'ESCAPE');
  const [pattern, escape, extra] = listOf(call, 'args');
  const minArgs = escapeFn === 'like_escape' ? 2 : 1;
  if (pattern === undefined || extra !== undefined || (minArgs === 2 && escape === undefined)) {
    refuse('the expression has an unexpected ESCAPE clause');
  }
  const similar = escapeFn === 'similar_to_escape';
  checkPattern({ subject: body['lexpr'], pattern, kind: similar ? 'similar' : 'like', ...(similar && escape !== undefined ? { escape } : {}) }, ctx);
  if (escape !== undefined && treeFacts(escape).columns > 0) refuse('ESCAPE must be a constant');
  const p = ctx.emit(pattern, depth + 1);
  return escape === undefined ? p : `${p} ESCAPE ${ctx.emit(escape, depth + 1)}`;
}

const emitLike = (words: Readonly<Record<string, string>>, escapeFn: string): KindEmitter =>
  (op, body, ctx, depth) => {
    const word = expectOp(op, words, 'LIKE/ILIKE/SIMILAR TO');
    const left = side(body, 'lexpr', ctx, depth);
    return `(${left} ${word} ${patternSide(body, ctx, depth, escapeFn)})`;
  };

const KINDS: Readonly<Record<string, KindEmitter>> = {
  AEXPR_OP: emitOp,
  AEXPR_OP_ANY: quantified('ANY'),
  AEXPR_OP_ALL: quantified('ALL'),
  AEXPR_DISTINCT: distinct(false),
  AEXPR_NOT_DISTINCT: distinct(true),
  AEXPR_NULLIF: emitNullIf,
  AEXPR_IN: emitIn,
  AEXPR_LIKE: emitLike({ '~~': 'LIKE', '!~~': 'NOT LIKE' }, 'like_escape'),
  AEXPR_ILIKE: emitLike({ '~~*': 'ILIKE', '!~~*': 'NOT ILIKE' }, 'like_escape'),
  AEXPR_SIMILAR: emitLike({ '~': 'SIMILAR TO', '!~': 'NOT SIMILAR TO' }, 'similar_to_escape'),
  AEXPR_BETWEEN: emitBetween('BETWEEN'),
  AEXPR_NOT_BETWEEN: emitBetween('NOT BETWEEN'),
  AEXPR_BETWEEN_SYM: emitBetween('BETWEEN SYMMETRIC'),
  AEXPR_NOT_BETWEEN_SYM: emitBetween('NOT BETWEEN SYMMETRIC'),
};
