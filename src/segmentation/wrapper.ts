/**
 * Parsing an expression with the real PostgreSQL parser (libpg-query) inside a fixed wrapper
 * statement, checking the parse is exactly that one statement, and the round-trip check that the
 * generated SQL parses back to the same tree. Source: issue "SQL segmentation guard" (parse with
 * libpg-query; what is executed must be exactly what was validated).
 */
import { hasSqlDetails, parse, type ParseResult } from 'libpg-query';
import { refuse } from './errors.js';
import { isObj, type Obj } from './emit-support.js';
import { WRAPPER_PREFIX, WRAPPER_SUFFIX } from './lexical.js';

/** Fields that record only where text was, or how a call was spelled; ignored when comparing trees. */
const SPELLING_FIELDS = new Set([
  'location', 'funcformat', 'rexpr_list_start', 'rexpr_list_end', 'list_start', 'list_end',
  'stmt_len', 'stmt_location',
]);
const MAX_CANONICAL_DEPTH = 2_000;

/**
 * Parses `WRAPPER_PREFIX + expr + WRAPPER_SUFFIX` and returns the WHERE expression node. Refuses a
 * syntax error (with its position inside `expr`) and any parse that is not exactly the wrapper
 * statement with a WHERE clause, e.g. a second statement or a UNION.
 */
export async function parseExpression(expr: string): Promise<unknown> {
  let result: ParseResult;
  try {
    result = await parse(WRAPPER_PREFIX + expr + WRAPPER_SUFFIX);
  } catch (err) {
    return refuse(syntaxProblem(err, expr));
  }
  const select = singleSelect(result);
  const { whereClause, ...rest } = select;
  if (whereClause === undefined || canonicalJson(rest) !== (await expectedShape())) {
    refuse('only a single boolean expression is allowed');
  }
  return whereClause;
}

function singleSelect(result: ParseResult): Obj {
  const stmts = result.stmts ?? [];
  const [only] = stmts;
  if (stmts.length !== 1 || only === undefined) {
    refuse('only one expression is allowed (found more than one statement)');
  }
  const node: unknown = only.stmt;
  const stmt = isObj(node) ? node['SelectStmt'] : undefined;
  if (!isObj(stmt)) refuse('only a single boolean expression is allowed');
  return stmt;
}

let shape: Promise<string> | undefined;

/** Canonical JSON of the wrapper statement without its WHERE clause. */
function expectedShape(): Promise<string> {
  shape ??= parse(`${WRAPPER_PREFIX}true${WRAPPER_SUFFIX}`).then((r) => {
    const { whereClause: _ignored, ...rest } = singleSelect(r);
    return canonicalJson(rest);
  });
  return shape;
}

/** A user-facing description of a parse failure, positions counted from 1 inside `expr`. */
export function syntaxProblem(err: unknown, expr: string): string {
  if (!hasSqlDetails(err) || err.sqlDetails === undefined) {
    return 'the expression could not be parsed (it may be nested too deeply)';
  }
  const { message, cursorPosition } = err.sqlDetails;
  const match = /^(.*?) at or near "(.*)"$/s.exec(message);
  const base = match?.[1] ?? message;
  const position = cursorPosition - WRAPPER_PREFIX.length + 1;
  if (position < 1 || position > expr.length) return `${base} at the end of the expression`;
  const near = match?.[2];
  const quoted = near !== undefined && expr.startsWith(near, position - 1) ? ` at or near "${near}"` : '';
  return `${base}${quoted} (position ${position})`;
}

/**
 * Parses the generated SQL back in the same wrapper and refuses unless its tree equals the
 * validated one, ignoring positions, call spelling and the `pg_catalog.` qualification the
 * generator adds. This proves the emitted text means what was validated; a mismatch is a guard bug
 * and fails closed.
 */
export async function verifyRoundTrip(validated: unknown, generatedSql: string): Promise<void> {
  let reparsed: unknown;
  try {
    reparsed = await parseExpression(generatedSql);
  } catch {
    return refuse('the expression could not be normalised safely');
  }
  if (canonicalJson(reparsed) !== canonicalJson(validated)) {
    refuse('the expression could not be normalised safely');
  }
}

/**
 * Deterministic JSON of a parse tree without spelling fields, with sorted keys and a leading
 * `pg_catalog` dropped from function and type names.
 */
export function canonicalJson(node: unknown): string {
  return JSON.stringify(canonical(node, 0));
}

function canonical(node: unknown, depth: number): unknown {
  if (depth > MAX_CANONICAL_DEPTH) refuse('the expression is nested too deeply');
  if (Array.isArray(node)) return node.map((n) => canonical(n, depth + 1));
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const key of Object.keys(node).sort()) {
    if (SPELLING_FIELDS.has(key)) continue;
    const value = key === 'funcname' || key === 'names' ? dropCatalog(node[key]) : node[key];
    out[key] = canonical(value, depth + 1);
  }
  return out;
}

function dropCatalog(names: unknown): unknown {
  if (!Array.isArray(names) || names.length < 2) return names;
  const [first] = names;
  const isCatalog = isObj(first) && isObj(first['String']) && first['String']['sval'] === 'pg_catalog';
  return isCatalog ? names.slice(1) : names;
}
