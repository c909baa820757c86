/**
 * Checked emitters for logic nodes: AND/OR/NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE/UNKNOWN, CASE,
 * COALESCE, GREATEST/LEAST. Every composite is emitted inside its own parentheses, so operator
 * precedence in the emitted text can never differ from the validated tree.
 */
import { refuse } from './errors.js';
import { listOf, onlyKeys, unwrap, type EmitContext, type Handler } from './emit-support.js';

const BOOL_OPS: Readonly<Record<string, string>> = { AND_EXPR: 'AND', OR_EXPR: 'OR' };

/** `(a AND b …)`, `(a OR b …)`, `(NOT a)`. */
export const emitBoolExpr: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['boolop', 'args', 'location'], 'boolean expression');
  const args = emitAll(listOf(body, 'args'), ctx, depth);
  const [only] = args;
  if (body['boolop'] === 'NOT_EXPR' && args.length === 1 && only !== undefined) return `(NOT ${only})`;
  const op = BOOL_OPS[String(body['boolop'])];
  if (op === undefined || args.length < 2) refuse('the expression has an unexpected AND/OR/NOT');
  return `(${args.join(` ${op} `)})`;
};

const NULL_TESTS: Readonly<Record<string, string>> = { IS_NULL: 'IS NULL', IS_NOT_NULL: 'IS NOT NULL' };

/** `(x IS NULL)`, `(x IS NOT NULL)`. */
export const emitNullTest: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['arg', 'nulltesttype', 'argisrow', 'location'], 'IS NULL test');
  const test = NULL_TESTS[String(body['nulltesttype'])];
  if (test === undefined || body['argisrow'] === true) refuse('the expression has an unexpected IS NULL');
  return `(${ctx.emit(body['arg'], depth + 1)} ${test})`;
};

const BOOLEAN_TESTS: Readonly<Record<string, string>> = {
  IS_TRUE: 'IS TRUE', IS_NOT_TRUE: 'IS NOT TRUE', IS_FALSE: 'IS FALSE', IS_NOT_FALSE: 'IS NOT FALSE',
  IS_UNKNOWN: 'IS UNKNOWN', IS_NOT_UNKNOWN: 'IS NOT UNKNOWN',
};

/** `(x IS TRUE)` and its five siblings. */
export const emitBooleanTest: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['arg', 'booltesttype', 'location'], 'IS TRUE test');
  const test = BOOLEAN_TESTS[String(body['booltesttype'])];
  if (test === undefined) refuse('the expression has an unexpected IS TRUE/FALSE/UNKNOWN');
  return `(${ctx.emit(body['arg'], depth + 1)} ${test})`;
};

/** `CASE [x] WHEN … THEN … [ELSE …] END`. */
export const emitCase: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['arg', 'args', 'defresult', 'location'], 'CASE');
  const parts = ['CASE'];
  if (body['arg'] !== undefined) parts.push(ctx.emit(body['arg'], depth + 1));
  const whens = listOf(body, 'args');
  if (whens.length === 0) refuse('CASE needs at least one WHEN');
  for (const w of whens) parts.push(emitWhen(w, ctx, depth + 1));
  if (body['defresult'] !== undefined) parts.push('ELSE', ctx.emit(body['defresult'], depth + 1));
  parts.push('END');
  return parts.join(' ');
};

function emitWhen(node: unknown, ctx: EmitContext, depth: number): string {
  const [type, body] = unwrap(node);
  if (type !== 'CaseWhen') refuse('the expression has an unexpected CASE branch');
  onlyKeys(body, ['expr', 'result', 'location'], 'CASE branch');
  return `WHEN ${ctx.emit(body['expr'], depth + 1)} THEN ${ctx.emit(body['result'], depth + 1)}`;
}

/** `COALESCE(a, b, …)` (a grammar node in PostgreSQL, not a function call). */
export const emitCoalesce: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['args', 'location'], 'COALESCE');
  const args = emitAll(listOf(body, 'args'), ctx, depth);
  if (args.length === 0) refuse('COALESCE needs arguments');
  return `COALESCE(${args.join(', ')})`;
};

const MIN_MAX: Readonly<Record<string, string>> = { IS_GREATEST: 'GREATEST', IS_LEAST: 'LEAST' };

/** `GREATEST(…)`, `LEAST(…)`. */
export const emitMinMax: Handler = (body, ctx, depth) => {
  onlyKeys(body, ['op', 'args', 'location'], 'GREATEST/LEAST');
  const fn = MIN_MAX[String(body['op'])];
  const args = emitAll(listOf(body, 'args'), ctx, depth);
  if (fn === undefined || args.length === 0) refuse('the expression has an unexpected GREATEST/LEAST');
  return `${fn}(${args.join(', ')})`;
};

/** Emits each node one level deeper. */
export function emitAll(nodes: readonly unknown[], ctx: EmitContext, depth: number): string[] {
  return nodes.map((n) => ctx.emit(n, depth + 1));
}
