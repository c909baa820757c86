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
  /** Most column references (each can bring a whole stored value into one row's evaluation). */
  readonly maxColumnRefs: number;
  /** Most pattern matches (LIKE, ILIKE, SIMILAR TO, regex, strpos/position/split_part). */
  readonly maxPatternOps: number;
  /** Most string-literal characters across all patterns (one scan costs text length × pattern length). */
  readonly maxPatternChars: number;
  /** Most column references in the text one pattern is matched against (bounds that text's length). */
  readonly maxSubjectColumns: number;
  /**
   * When set, every pattern must be a single string literal of at most this many characters;
   * `null` accepts any constant pattern expression.
   */
  readonly maxPatternLength: number | null;
  /**
   * Largest regular expression accepted, counted in atoms once bounded repetitions are expanded
   * (`a{3}` counts 3, `(ab){2,5}` counts 10); `null` for no limit. The automaton, and so the cost of
   * each character matched, grows with it (regex.ts).
   */
  readonly maxRegexSize: number | null;
  /**
   * Whether `regexp_match` and `substring(x from 'regex')` / `substring(x similar …)`, which make the
   * engine locate the match, need an anchored (`^…`) greedy pattern: unanchored, or with non-greedy
   * captures, one evaluation takes time quadratic in the text (regex.ts).
   */
  readonly locatingNeedsAnchor: boolean;
  /** Most sub-selects (EXISTS / IN) in one expression. */
  readonly maxSubSelects: number;
}

/**
 * PostgreSQL: run time is bounded by `statement_timeout` between rows, but one row's evaluation is
 * not always interruptible (LIKE, substring search), so patterns are budgeted here too.
 */
export const SERVER_LIMITS: GuardLimits = Object.freeze({
  maxLength: 10_000,
  maxDepth: 100,
  maxNodes: 5_000,
  maxColumnRefs: 64,
  maxPatternOps: 100,
  maxPatternChars: 1_000,
  maxSubjectColumns: 4,
  maxPatternLength: null,
  maxRegexSize: null,
  locatingNeedsAnchor: false,
  maxSubSelects: 8,
});

/**
 * PGlite: no timeout exists inside a statement, so patterns must be short literals, regular
 * expressions small and, where the match is located, anchored; expressions small. This bounds the
 * work per row; the number of rows between two chances to stop is bounded by stepped execution
 * (stepped.ts).
 */
export const EMBEDDED_LIMITS: GuardLimits = Object.freeze({
  maxLength: 2_000,
  maxDepth: 32,
  maxNodes: 400,
  maxColumnRefs: 16,
  maxPatternOps: 4,
  maxPatternChars: 400,
  maxSubjectColumns: 2,
  maxPatternLength: 100,
  maxRegexSize: 256,
  locatingNeedsAnchor: true,
  maxSubSelects: 4,
});

/** Which database backs Mailroom (matches the Db abstraction's `kind`). */
export type StoreKind = 'postgres' | 'pglite';

/** The limits for a store: SERVER_LIMITS on PostgreSQL, EMBEDDED_LIMITS on PGlite. */
export function limitsForStore(kind: StoreKind): GuardLimits {
  return kind === 'pglite' ? EMBEDDED_LIMITS : SERVER_LIMITS;
}
