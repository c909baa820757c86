/**
 * The checked emitter: walks a parsed WHERE expression, refuses every node type that has no handler
 * here (deny by default), and returns new SQL text generated only from validated nodes. What the
 * database later runs is this generated text, never the user's text. Source: issue "SQL segmentation
 * guard" (allow-list of node types; sub-selects, other tables, catalogs and parameters refused).
 */
import type { SegmentTable } from './allow-list.js';
import { refuse } from './errors.js';
import { emitFuncCall } from './emit-calls.js';
import { emitBoolExpr, emitBooleanTest, emitCase, emitCoalesce, emitMinMax, emitNullTest } from './emit-logic.js';
import { emitAExpr } from './emit-ops.js';
import { emitSubLink } from './emit-subselect.js';
import { countNode, unwrap, type EmitContext, type Handler } from './emit-support.js';
import {
  emitArray, emitColumnRef, emitConst, emitIndirection, emitSqlValueFunction, emitTypeCast,
} from './emit-values.js';
import type { GuardLimits } from './limits.js';

const HANDLERS: Readonly<Record<string, Handler>> = {
  A_Const: emitConst,
  ColumnRef: emitColumnRef,
  TypeCast: emitTypeCast,
  SQLValueFunction: emitSqlValueFunction,
  A_ArrayExpr: emitArray,
  A_Indirection: emitIndirection,
  A_Expr: emitAExpr,
  BoolExpr: emitBoolExpr,
  NullTest: emitNullTest,
  BooleanTest: emitBooleanTest,
  CaseExpr: emitCase,
  CoalesceExpr: emitCoalesce,
  MinMaxExpr: emitMinMax,
  FuncCall: emitFuncCall,
  SubLink: emitSubLink,
};

/** Reasons for node types users are likely to try; any other unknown type gets a generic refusal. */
const DENIED: Readonly<Record<string, string>> = {
  SelectStmt: 'a SELECT is only allowed inside EXISTS (…) or IN (…)',
  RangeVar: 'table references are not allowed',
  RangeSubselect: 'sub-selects in FROM are not allowed',
  RangeFunction: 'table functions are not allowed',
  RowExpr: 'row constructors (ROW(…) or (a, b)) are not allowed',
  ParamRef: 'parameters ($1) are not allowed',
  CollateClause: 'COLLATE is not allowed',
  A_Star: '"*" is not allowed',
  NamedArgExpr: 'named arguments are only allowed inside function calls',
  GroupingFunc: 'GROUPING is not allowed',
  SetToDefault: 'DEFAULT is not allowed',
  XmlExpr: 'XML functions are not allowed',
  XmlSerialize: 'XML functions are not allowed',
  MergeSupportFunc: 'MERGE functions are not allowed',
};

/** Result of emitting one validated expression. */
export interface EmittedExpression {
  /** Generated SQL, fully parenthesised, columns qualified, functions `pg_catalog.`-qualified. */
  readonly sql: string;
  /** Tables the expression references. */
  readonly tables: ReadonlySet<SegmentTable>;
}

/**
 * Validates `where` (a raw-parse-tree node from libpg-query) against the allow-lists and returns the
 * SQL to run. `tables` are the tables in scope. Throws QueryRefusedError naming what was refused.
 */
export function emitWhereClause(
  where: unknown,
  tables: ReadonlySet<SegmentTable>,
  limits: GuardLimits,
): EmittedExpression {
  const ctx: EmitContext = {
    limits, tables, nodes: 0, columnRefs: 0, patternOps: 0, patternChars: 0, usedTables: new Set(),
    scope: null, subSelects: 0,
    emit: (node, depth) => emitNode(node, ctx, depth),
  };
  const sql = ctx.emit(where, 1);
  return { sql, tables: ctx.usedTables };
}

function emitNode(node: unknown, ctx: EmitContext, depth: number): string {
  countNode(ctx, depth);
  const [type, body] = unwrap(node);
  const handler = HANDLERS[type];
  if (handler !== undefined) return handler(body, ctx, depth);
  if (type.startsWith('Json')) refuse('SQL/JSON constructs are not allowed');
  return refuse(DENIED[type] ?? `${type} is not allowed`);
}
