/**
 * Shared pieces of the checked emitter (emit.ts): the walk context, AST accessors that refuse
 * anything unexpected, and the two quoting functions. The AST is libpg-query's JSON (PostgreSQL's
 * raw parse tree): every node is `{ "<NodeType>": { …fields } }`; zero values are omitted, so
 * `{"ival": {}}` means 0 and `{"boolval": {}}` means false.
 */
import { refuse } from './errors.js';
import type { GuardLimits } from './limits.js';
import type { SegmentTable } from './allow-list.js';

/** A node's field object. */
export type Obj = Record<string, unknown>;

/**
 * The FROM items of the sub-select being emitted: name as written (alias, or the table name) → table.
 * `visible`, while the ON condition of a join is emitted, holds the names that condition may use.
 */
export interface SubSelectScope {
  readonly items: ReadonlyMap<string, string>;
  visible: ReadonlySet<string> | null;
}

/** State of one walk over an expression. */
export interface EmitContext {
  readonly limits: GuardLimits;
  /** Tables in scope: `subscribers`, plus `subscriber_lists` when filtering by list. */
  readonly tables: ReadonlySet<SegmentTable>;
  /** Validates `node` and returns its SQL; `depth` is the node's nesting level. */
  readonly emit: (node: unknown, depth: number) => string;
  /** Nodes seen so far (checked against `limits.maxNodes`). */
  nodes: number;
  /** Column references seen so far (checked against `limits.maxColumnRefs`). */
  columnRefs: number;
  /** Pattern matches seen so far (checked against `limits.maxPatternOps`). */
  patternOps: number;
  /** String-literal characters in patterns so far (checked against `limits.maxPatternChars`). */
  patternChars: number;
  /** Tables the expression actually references (outside sub-selects). */
  readonly usedTables: Set<SegmentTable>;
  /** The sub-select being emitted (sub-selects do not nest), or null at the top level. */
  scope: SubSelectScope | null;
  /** Sub-selects seen so far (checked against `limits.maxSubSelects`). */
  subSelects: number;
}

/** Validates one node type's fields and returns its SQL. Throws QueryRefusedError. */
export type Handler = (body: Obj, ctx: EmitContext, depth: number) => string;

/** True for a plain (non-array) object. */
export function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Splits `{ Type: body }` into `[Type, body]`; refuses any other shape. */
export function unwrap(node: unknown): [string, Obj] {
  if (!isObj(node)) refuse('the expression has an unexpected structure');
  const entries = Object.entries(node);
  const first = entries[0];
  if (entries.length !== 1 || first === undefined || !isObj(first[1])) {
    refuse('the expression has an unexpected structure');
  }
  return [first[0], first[1]];
}

/** Refuses when `body` has a field outside `allowed` (so new parser fields are denied by default). */
export function onlyKeys(body: Obj, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) refuse(`${what} with "${key}" is not allowed`);
  }
}

/** The array in `body[key]` (absent → `[]`); refuses a non-array. */
export function listOf(body: Obj, key: string): unknown[] {
  const v = body[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) refuse('the expression has an unexpected structure');
  return v;
}

/** The text of a `{ String: { sval } }` node; refuses other nodes. */
export function stringOf(node: unknown): string {
  const [type, body] = unwrap(node);
  if (type !== 'String') refuse('the expression has an unexpected structure');
  const s = body['sval'] ?? '';
  if (typeof s !== 'string') refuse('the expression has an unexpected structure');
  return s;
}

/** The names in a list of String nodes (function names, type names, operator names). */
export function namesOf(body: Obj, key: string): string[] {
  return listOf(body, key).map(stringOf);
}

/**
 * A double-quoted identifier. Quoting keeps keywords (`left`, `right`) usable and makes the
 * emitted name independent of case folding.
 */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * An escape-string literal `E'…'` with every backslash and quote doubled. Unlike `'…'`, its meaning
 * does not depend on the server's `standard_conforming_strings`, so the value the server sees is
 * the value that was validated. NUL cannot occur (refused before parsing).
 */
export function quoteLiteral(value: string): string {
  return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** Refuses when adding one node would pass the depth or size limits. */
export function countNode(ctx: EmitContext, depth: number): void {
  if (depth > ctx.limits.maxDepth) {
    refuse(`the expression is nested too deeply (more than ${ctx.limits.maxDepth} levels)`);
  }
  ctx.nodes += 1;
  if (ctx.nodes > ctx.limits.maxNodes) {
    refuse(`the expression is too large (more than ${ctx.limits.maxNodes} parts)`);
  }
}
