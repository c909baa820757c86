/**
 * The one error the segmentation guard throws at API users. Source: issue "SQL segmentation guard"
 * (a refused or failed `query` is a 400 naming the field, never a 500) and listmonk-behaviour §14.2
 * (listmonk answers 400 `Error preparing subscriber query: …` at validation, 500 at execution).
 * It is a `FieldError('query', problem)`, so the one HTTP error handler answers it like any other 400.
 */
import { FieldError } from '../errors.js';

/** Why a `query` was turned away: refused by the guard, too slow, or failed while running. */
export type QueryRefusalReason = 'refused' | 'timeout' | 'failed';

/**
 * 400 for the `query` field. `message` is `query: <problem>` and says what was refused, e.g.
 * `query: function "pg_sleep" is not allowed`. Messages never carry stored data (see
 * run-guarded.ts, which strips quoted values from database errors).
 */
export class QueryRefusedError extends FieldError {
  /** Stable machine-readable code, for logs and tests. */
  override readonly code = 'QUERY_REFUSED';
  /** Whether the guard refused the text, the timeout cut it, or the database rejected it. */
  readonly reason: QueryRefusalReason;
  /** The text after `query: `, e.g. `function "pg_sleep" is not allowed`. */
  readonly problem: string;

  /** `problem` is the text after `query: `, e.g. `function "pg_sleep" is not allowed`. */
  constructor(problem: string, reason: QueryRefusalReason = 'refused') {
    super('query', problem);
    this.name = 'QueryRefusedError';
    this.reason = reason;
    this.problem = problem;
  }
}

/** Shorthand used by the guard's modules: throw a `refused` error with `problem`. */
export function refuse(problem: string): never {
  throw new QueryRefusedError(problem, 'refused');
}
