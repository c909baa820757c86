/**
 * Static cost bounds on a `query` expression. On PostgreSQL the statement timeout bounds run time and
 * these limits only keep the guard itself cheap. On PGlite (single-threaded WASM) `statement_timeout`
 * never fires (its timer is a JS `setTimeout` that cannot run while the query blocks the event loop;
 * verified with PGlite 0.5.16), so the embedded store relies on these bounds alone: see README.md.
 */

/** Limits applied while validating one expression. */
export interface GuardLimits {
  /** Longest accepted expression, in UTF-16 code units after trimming. */
  readonly maxLength: number;
  /** Deepest accepted nesting of expression nodes. */
  readonly maxDepth: number;
  /** Most expression nodes accepted. */
  readonly maxNodes: number;
  /** Most pattern matches (LIKE, ILIKE, SIMILAR TO, regex operators and functions). */
  readonly maxPatternOps: number;
  /**
   * When set, every pattern must be a string literal of at most this many characters (so no pattern
   * can come from stored data); `null` accepts any pattern expression.
   */
  readonly maxPatternLength: number | null;
  /** Whether regex back-references (`\1`…`\9`), the source of exponential matching, are accepted. */
  readonly allowRegexBackrefs: boolean;
}

/** PostgreSQL: run time is bounded by `statement_timeout`, so only size is limited. */
export const SERVER_LIMITS: GuardLimits = Object.freeze({
  maxLength: 10_000,
  maxDepth: 100,
  maxNodes: 5_000,
  maxPatternOps: 100,
  maxPatternLength: null,
  allowRegexBackrefs: true,
});

/**
 * PGlite: no timeout exists, so patterns must be short literals without back-references and
 * expressions small. This bounds the work per row; it cannot bound the number of rows scanned.
 */
export const EMBEDDED_LIMITS: GuardLimits = Object.freeze({
  maxLength: 2_000,
  maxDepth: 32,
  maxNodes: 400,
  maxPatternOps: 4,
  maxPatternLength: 100,
  allowRegexBackrefs: false,
});

/** Which database backs Mailroom (matches the Db abstraction's `kind`). */
export type StoreKind = 'postgres' | 'pglite';

/** The limits for a store: SERVER_LIMITS on PostgreSQL, EMBEDDED_LIMITS on PGlite. */
export function limitsForStore(kind: StoreKind): GuardLimits {
  return kind === 'pglite' ? EMBEDDED_LIMITS : SERVER_LIMITS;
}
