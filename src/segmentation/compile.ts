/**
 * The guard's entry point: turns a user's `query` text into SQL that is safe to embed, or refuses it.
 * Pipeline: normalise like listmonk → size/NUL checks → token scan → parse in a fixed wrapper and
 * check its shape → walk the tree against the allow-lists, generating new SQL → re-parse the
 * generated SQL and require the same tree. Source: issue "SQL segmentation guard";
 * listmonk-behaviour §14.1 (normalisation) and §4.2/§4.8 (where `query` is accepted).
 */
import type { SegmentTable } from './allow-list.js';
import { refuse } from './errors.js';
import { emitWhereClause } from './emit.js';
import { checkCharacters, checkTokens, normalizeQueryText } from './lexical.js';
import { SERVER_LIMITS, type GuardLimits } from './limits.js';
import { parseExpression, verifyRoundTrip } from './wrapper.js';

/** Options for {@link compileSubscriberQuery}. */
export interface CompileOptions {
  /**
   * True when the embedding statement joins `subscriber_lists` (a `list_id` filter is given), which
   * makes `subscriber_lists.*` columns available. Default false.
   */
  readonly listFilter?: boolean;
  /** Size and pattern limits; use {@link limitsForStore}. Default SERVER_LIMITS. */
  readonly limits?: GuardLimits;
}

/** A validated expression. Only objects returned by {@link compileSubscriberQuery} can be embedded. */
export interface CompiledQuery {
  /** The normalised user text (trimmed, one trailing `;` removed), to echo back as `query`. */
  readonly text: string;
  /** Generated SQL for the expression; embed it with `embedQuery`, never concatenate the user's text. */
  readonly sql: string;
  /** Whether the expression references `subscriber_lists`. */
  readonly usesSubscriberLists: boolean;
}

const issued = new WeakSet<object>();

/** True when `value` came from {@link compileSubscriberQuery} (not a hand-made look-alike). */
export function isCompiledQuery(value: unknown): value is CompiledQuery {
  return typeof value === 'object' && value !== null && issued.has(value);
}

/**
 * Validates a subscriber `query` expression and returns the SQL to run, or `null` when the text is
 * empty after normalisation (no filter). Throws QueryRefusedError (400, field `query`) saying what
 * was refused, e.g. `query: table "users" is not allowed in a sub-select (…)`.
 */
export async function compileSubscriberQuery(
  raw: string,
  options: CompileOptions = {},
): Promise<CompiledQuery | null> {
  if (typeof raw !== 'string') refuse('the expression must be a string');
  const text = normalizeQueryText(raw);
  if (text === '') return null;
  const limits = options.limits ?? SERVER_LIMITS;
  checkCharacters(text, limits);
  const scanned = await checkTokens(text);
  const where = await parseExpression(text);
  if (!scanned) refuse('the expression could not be tokenised');
  const tables = new Set<SegmentTable>(options.listFilter === true ? ['subscribers', 'subscriber_lists'] : ['subscribers']);
  const emitted = emitWhereClause(where, tables, limits);
  await verifyRoundTrip(where, emitted.sql);
  const compiled: CompiledQuery = Object.freeze({
    text,
    sql: emitted.sql,
    usesSubscriberLists: emitted.tables.has('subscriber_lists'),
  });
  issued.add(compiled);
  return compiled;
}

/**
 * A guard-issued expression that selects exactly `ids` (`subscribers.id = ANY('{…}'::int4[])`, or
 * FALSE for none), for running the real statement after stepped evaluation (stepped.ts) has resolved
 * which subscribers match. `text` is '' (the caller echoes the user's own text). Throws RangeError
 * when an id is not a positive 32-bit integer (the ids come from the database; this is a wiring check).
 */
export function compileMatchedIds(ids: readonly number[]): CompiledQuery {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw new RangeError(`not a subscriber id: ${String(id)}`);
  }
  const sql = ids.length === 0 ? 'FALSE' : `"subscribers"."id" = ANY ('{${ids.join(',')}}'::pg_catalog.int4[])`;
  const compiled: CompiledQuery = Object.freeze({ text: '', sql, usesSubscriberLists: false });
  issued.add(compiled);
  return compiled;
}
