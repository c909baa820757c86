/**
 * Named SQL queries kept in `.sql` files (conventions §2, after listmonk's `queries/*.sql`):
 *
 * ```sql
 * -- name: list-get
 * -- One list with its subscriber counts.
 * SELECT … FROM lists WHERE id = :id;
 * ```
 *
 * Parameters are written `:name` and bound positionally (`$1`, `$2`, …) when loaded, so a query is run
 * with an object of named values, never with a dozen positional ones. `::type` casts, string literals,
 * quoted identifiers, comments and dollar-quoted bodies are left alone. Each module loads its file once
 * at import time and names the queries it uses; a missing name throws, which stops start-up.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One loaded query: its name, the SQL with `$n` placeholders, and the parameter name of each `$n`. */
export interface NamedQuery {
  readonly name: string;
  readonly text: string;
  readonly params: readonly string[];
}

/** Thrown when a query file is malformed, a name is missing, or a run lacks a parameter. */
export class QueryDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryDefinitionError';
  }
}

const NAME_LINE = /^--\s*name:\s*([a-z0-9][a-z0-9-]*)\s*$/u;

/** Splits a `.sql` file into its named queries. Throws QueryDefinitionError on duplicates or empties. */
export function parseQueryFile(source: string, file: string): Map<string, NamedQuery> {
  const out = new Map<string, NamedQuery>();
  let current: { name: string; lines: string[] } | null = null;
  const flush = (): void => {
    if (current === null) return;
    const sql = current.lines.join('\n').trim().replace(/;\s*$/u, '');
    if (sql === '') throw new QueryDefinitionError(`${file}: query "${current.name}" is empty`);
    if (out.has(current.name)) throw new QueryDefinitionError(`${file}: query "${current.name}" is defined twice`);
    out.set(current.name, bindNamedParams(current.name, sql));
  };
  for (const line of source.split('\n')) {
    const m = NAME_LINE.exec(line.trim());
    if (m) {
      flush();
      current = { name: m[1] as string, lines: [] };
    } else if (current !== null) {
      current.lines.push(line);
    }
  }
  flush();
  return out;
}

/**
 * Rewrites `:name` placeholders to `$n` (the same name reuses its number), skipping literals, quoted
 * identifiers, comments, dollar quotes and `::` casts.
 */
export function bindNamedParams(name: string, sql: string): NamedQuery {
  const params: string[] = [];
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const skip = skipNonCode(sql, i);
    if (skip > i) {
      text += sql.slice(i, skip);
      i = skip;
      continue;
    }
    const ch = sql[i];
    if (ch === ':' && sql[i + 1] === ':') {
      text += '::';
      i += 2;
      continue;
    }
    const m = ch === ':' ? /^:([A-Za-z_][A-Za-z0-9_]*)/u.exec(sql.slice(i)) : null;
    if (m) {
      const param = m[1] as string;
      let index = params.indexOf(param);
      if (index === -1) index = params.push(param) - 1;
      text += `$${index + 1}`;
      i += m[0].length;
      continue;
    }
    text += ch;
    i += 1;
  }
  return { name, text, params };
}

/** Returns the index just past a string literal, quoted identifier, comment or dollar quote at `i`. */
function skipNonCode(sql: string, i: number): number {
  const ch = sql[i];
  const next = sql[i + 1];
  if (ch === "'" || ch === '"') {
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === ch) {
        if (sql[j + 1] === ch) j += 2;
        else return j + 1;
      } else j += 1;
    }
    return sql.length;
  }
  if (ch === '-' && next === '-') {
    const end = sql.indexOf('\n', i);
    return end === -1 ? sql.length : end;
  }
  if (ch === '/' && next === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end === -1 ? sql.length : end + 2;
  }
  if (ch === '$') {
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/u.exec(sql.slice(i));
    if (tag) {
      const end = sql.indexOf(tag[0], i + tag[0].length);
      return end === -1 ? sql.length : end + tag[0].length;
    }
  }
  return i;
}

/** Orders the named values of `params` as the query's `$n` placeholders expect. */
export function positionalParams(query: NamedQuery, params: object = {}): unknown[] {
  const values = params as Record<string, unknown>;
  return query.params.map((p) => {
    if (!(p in values)) throw new QueryDefinitionError(`query "${query.name}" needs parameter "${p}"`);
    const v = values[p];
    return v === undefined ? null : v;
  });
}

/**
 * Loads a `.sql` file and returns exactly the queries named in `names`, keyed by name. Throws
 * QueryDefinitionError when a name is missing (so start-up stops) or when the file defines a query
 * nobody asked for (dead SQL).
 */
export function loadQueries<const N extends string>(file: URL, names: readonly N[]): Record<N, NamedQuery> {
  const path = fileURLToPath(file);
  const all = parseQueryFile(readFileSync(path, 'utf8'), path);
  const out = {} as Record<N, NamedQuery>;
  for (const n of names) {
    const q = all.get(n);
    if (q === undefined) throw new QueryDefinitionError(`${path}: query "${n}" is not defined`);
    out[n] = q;
  }
  const unused = [...all.keys()].filter((k) => !(names as readonly string[]).includes(k));
  if (unused.length > 0) throw new QueryDefinitionError(`${path}: queries defined but not used: ${unused.join(', ')}`);
  return out;
}

/** Marker in a query's text that {@link withOrder} replaces with an ORDER BY expression. */
export const ORDER_MARKER = '%order%';

/**
 * Returns `query` with its `%order%` marker replaced by `expression` (e.g. `subscribers.name ASC`).
 * The expression must come from a caller's allow-list of column names, never from request input
 * (conventions §2). Throws QueryDefinitionError when the query has no marker.
 */
export function withOrder(query: NamedQuery, expression: string): NamedQuery {
  if (!query.text.includes(ORDER_MARKER)) {
    throw new QueryDefinitionError(`query "${query.name}" has no ${ORDER_MARKER} marker`);
  }
  return { ...query, text: query.text.split(ORDER_MARKER).join(expression) };
}
