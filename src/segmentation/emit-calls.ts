/**
 * Checked emitter for function calls. A call is accepted when its name is on ALLOWED_FUNCTIONS
 * (unqualified), or is one of the grammar's own SQL-syntax expansions (SQL_SYNTAX_FUNCTIONS, which
 * the parser qualifies `pg_catalog.` and marks COERCE_SQL_SYNTAX); it must carry no aggregate,
 * window, FILTER, ORDER BY, DISTINCT, WITHIN GROUP or VARIADIC part. Calls are emitted as
 * `pg_catalog."name"(…)`, so a same-named function in another schema can never be chosen.
 */
import { ALLOWED_FUNCTIONS, PATTERN_FUNCTIONS, SQL_SYNTAX_FUNCTIONS } from './allow-list.js';
import { refuse } from './errors.js';
import {
  listOf, namesOf, onlyKeys, quoteIdent, unwrap, type EmitContext, type Handler, type Obj,
} from './emit-support.js';
import { checkPattern, checkProduct, stringLiteral, treeFacts } from './patterns.js';

const CALL_PARTS: ReadonlyArray<[string, string]> = [
  ['agg_star', 'aggregate calls such as count(*) are not allowed'],
  ['agg_within_group', 'WITHIN GROUP is not allowed'],
  ['agg_distinct', 'DISTINCT inside a function call is not allowed'],
  ['agg_order', 'ORDER BY inside a function call is not allowed'],
  ['agg_filter', 'FILTER clauses are not allowed'],
  ['over', 'window functions (OVER …) are not allowed'],
  ['func_variadic', 'VARIADIC arguments are not allowed'],
];

/** Names refused with a more specific reason than "not allowed" (messages only). */
const HINTS: Readonly<Record<string, string>> = {
  count: 'aggregate', sum: 'aggregate', avg: 'aggregate', min: 'aggregate', max: 'aggregate',
  array_agg: 'aggregate', string_agg: 'aggregate', bool_and: 'aggregate', bool_or: 'aggregate',
  generate_series: 'set-returning', unnest: 'set-returning', regexp_matches: 'set-returning',
  jsonb_array_elements: 'set-returning', jsonb_each: 'set-returning', json_populate_record: 'set-returning',
  jsonb_populate_record: 'set-returning', jsonb_object_keys: 'set-returning',
};

/** A function call, validated and emitted schema-qualified. */
export const emitFuncCall: Handler = (body, ctx, depth) => {
  for (const [key, problem] of CALL_PARTS) if (body[key] !== undefined && body[key] !== false) refuse(problem);
  onlyKeys(body, ['funcname', 'args', 'funcformat', 'location'], 'function call');
  const name = allowedName(body);
  const args = listOf(body, 'args');
  const patternFn = PATTERN_FUNCTIONS[name];
  if (patternFn !== undefined) checkPatternArgs(name, args, patternFn, ctx);
  if (name === 'mod') checkProduct('mod', args[0], args[1]);
  const sql = args.map((a) => emitArgument(a, ctx, depth + 1));
  return `pg_catalog.${quoteIdent(name)}(${sql.join(', ')})`;
};

function allowedName(body: Obj): string {
  const names = namesOf(body, 'funcname');
  const [first, second] = names;
  if (names.length === 1 && first !== undefined) {
    if (ALLOWED_FUNCTIONS.has(first)) return first;
    const hint = HINTS[first];
    return refuse(`${hint === undefined ? '' : `${hint} `}function "${first}" is not allowed`);
  }
  const grammar = body['funcformat'] === 'COERCE_SQL_SYNTAX';
  if (names.length === 2 && first === 'pg_catalog' && second !== undefined && grammar) {
    if (SQL_SYNTAX_FUNCTIONS.has(second)) return second;
    return refuse(`function "${second}" is not allowed`);
  }
  return refuse(`schema-qualified function "${names.join('.')}" is not allowed`);
}

/**
 * A pattern function (regexp_*, regex substring, strpos, position, split_part): its second argument
 * is checked as a pattern against its first; flags and positions after it must be constants. For
 * regexp_like/regexp_match the third argument is the flags; `substring(x, 'p', 'e')` (the form of
 * `substring(x similar p escape e)`) is SIMILAR TO with escape `e`.
 */
function checkPatternArgs(
  name: string,
  args: readonly unknown[],
  fn: { readonly kind: 'regex' | 'needle'; readonly locate?: boolean },
  ctx: EmitContext,
): void {
  const [subject, pattern, third, ...rest] = args;
  if (pattern === undefined) return;
  const [type, body] = unwrap(pattern);
  if (type === 'A_Const' && ('ival' in body || 'fval' in body)) return; // substring(x from n): positions
  if ([third, ...rest].some((r) => r !== undefined && treeFacts(r).columns > 0)) refuse('pattern flags and positions must be constants');
  if (fn.kind === 'needle') return checkPattern({ subject, pattern, kind: 'needle' }, ctx);
  const locate = fn.locate === true;
  if (name === 'substring' && third !== undefined && stringLiteral(third) !== undefined) {
    return checkPattern({ subject, pattern, kind: 'similar', escape: third, locate }, ctx);
  }
  const flags = name === 'substring' || third === undefined ? {} : { flags: third };
  checkPattern({ subject, pattern, kind: 'regex', locate, ...flags }, ctx);
}

/** One argument: an expression, or `name => expression` (e.g. `make_interval(days => 7)`). */
function emitArgument(node: unknown, ctx: EmitContext, depth: number): string {
  const [type, body] = unwrap(node);
  if (type !== 'NamedArgExpr') return ctx.emit(node, depth);
  onlyKeys(body, ['arg', 'name', 'argnumber', 'location'], 'named argument');
  const name = body['name'];
  if (typeof name !== 'string' || !/^[a-z_][a-z0-9_]*$/.test(name)) {
    refuse('the expression has an unexpected argument name');
  }
  return `${quoteIdent(name)} => ${ctx.emit(body['arg'], depth + 1)}`;
}
