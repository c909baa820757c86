/**
 * Stepped evaluation: how a guarded expression is bounded in time on a store without a working
 * statement timeout (PGlite, see limits.ts). Source: issue 14 finding 3 ("guarded queries on PGlite
 * must be bounded in time like on PostgreSQL, and shutdown must still work").
 *
 * PGlite runs each statement to completion on the JavaScript thread: no timer, signal handler or
 * other request can run until it returns. So the expression is not run over the whole table at once
 * but over consecutive ranges of subscriber ids, one short read-only guarded statement per range,
 * yielding to the event loop between ranges. Between two ranges the deadline (the statement timeout
 * setting) is checked, SIGTERM and other requests are served, and other statements get the database.
 * The static limits (limits.ts, patterns.ts, regex.ts) bound what one row costs; the range size adapts
 * so that one step takes about {@link STEP_TARGET_MS}. The caller then runs its real statement over
 * the matched ids ({@link compileMatchedIds}).
 */
import { QueryRefusedError } from './errors.js';
import { guardedTx, type Queryable, type TxRunner } from './run-guarded.js';

/** Aimed duration of one step, in milliseconds (the longest the event loop waits, in the usual case). */
export const STEP_TARGET_MS = 50;
/** Ids covered by the first step (one row: its cost is what the static limits bound); later steps adapt. */
export const FIRST_STEP_SPAN = 1;
/** Most ids one step may cover. */
export const MAX_STEP_SPAN = 65_536;

/** Options for {@link steppedIds}. */
export interface SteppedOptions {
  /** The time allowed for all steps together, in milliseconds (the statement timeout setting). */
  readonly timeoutMs: number;
  /** Only ids above this one are scanned (0 for all). */
  readonly afterId: number;
  /** The highest id to scan (e.g. `max(subscribers.id)` read before the first step). */
  readonly maxId: number;
  /** Stop after the step in which this many matches were found (ids come in ascending order). */
  readonly stopAfter?: number;
  /**
   * Runs one step inside a guarded (read-only, rolled back) transaction: returns the matching ids in
   * (lo, hi], ascending. Errors are mapped as by guardedTx.
   */
  readonly step: (q: Queryable, lo: number, hi: number) => Promise<number[]>;
}

/** What one {@link steppedIds} run did (for tests and logs). */
export interface SteppedRun {
  /** Matching ids, ascending. */
  readonly ids: number[];
  /** Number of steps run. */
  readonly steps: number;
  /** Longest single step, in milliseconds. */
  readonly longestStepMs: number;
}

/**
 * Scans ids (afterId, maxId] in steps as described above and returns the matches. Throws
 * QueryRefusedError (reason `timeout`, `query: the expression took longer than N ms`) when the
 * deadline passes with ids left to scan, and whatever guardedTx throws for a failing step.
 */
export async function steppedIds(db: TxRunner, opts: SteppedOptions): Promise<SteppedRun> {
  const deadline = performance.now() + opts.timeoutMs;
  const ids: number[] = [];
  let lo = opts.afterId;
  let span = FIRST_STEP_SPAN;
  let steps = 0;
  let longest = 0;
  let shortest = Number.POSITIVE_INFINITY;
  while (lo < opts.maxId) {
    const hi = Math.min(opts.maxId, lo + span);
    const started = performance.now();
    const found = await guardedTx(db, { timeoutMs: opts.timeoutMs }, (q) => opts.step(q, lo, hi));
    const took = performance.now() - started;
    for (const id of found) ids.push(id);
    steps += 1;
    longest = Math.max(longest, took);
    shortest = Math.min(shortest, took);
    lo = hi;
    if (opts.stopAfter !== undefined && ids.length >= opts.stopAfter) break;
    if (lo < opts.maxId && performance.now() >= deadline) {
      throw new QueryRefusedError(`the expression took longer than ${opts.timeoutMs} ms`, 'timeout');
    }
    span = nextSpan(span, took, shortest);
    // Let timers, signals and other requests run before the next step.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { ids, steps, longestStepMs: longest };
}

/**
 * The next step's span. A step costs a fixed part (starting the transaction; a sub-select that is not
 * correlated and is computed once per statement), estimated by the shortest step so far, plus a part
 * per id. The span aims at {@link STEP_TARGET_MS}, or twice the fixed part when that is larger (so
 * fixed costs never dominate), growing at most ×2 and shrinking at most ÷4 per step: rows of unknown
 * cost come in small doses.
 */
function nextSpan(span: number, tookMs: number, shortestMs: number): number {
  const target = Math.max(STEP_TARGET_MS, 2 * shortestMs);
  const perId = Math.max(0, tookMs - shortestMs) / span;
  const ideal = perId > 0 ? (target - shortestMs) / perId : span * 2;
  const bounded = Math.min(span * 2, Math.max(span / 4, ideal));
  return Math.max(1, Math.min(MAX_STEP_SPAN, Math.round(bounded)));
}
