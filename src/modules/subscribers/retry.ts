/**
 * Transactions that are retried when PostgreSQL aborts them to break a deadlock (40P01) or a
 * serialization conflict (40001). Subscription writes update maintained counts (per list and status)
 * from statement-level triggers; two transactions that touch the same counts in different orders, e.g. a
 * full replacement (delete, then insert) and a create, can deadlock, and PostgreSQL then aborts one of
 * them. The aborted transaction changed nothing, so running it again is safe: the caller sees a success
 * instead of a 500.
 */
import { isDbError, SqlState, type Db, type Queryable } from '../../db/db.js';
import { sleep } from '../../util/sleep.js';

/** Attempts before the error is passed on. */
const ATTEMPTS = 4;

/** Runs `fn` in a transaction of `db`, retrying it (with a short random pause) after a deadlock or serialization failure. */
export async function txWithRetry<T>(db: Db, fn: (q: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.tx(fn);
    } catch (err) {
      const retryable = isDbError(err, SqlState.deadlockDetected) || isDbError(err, SqlState.serializationFailure);
      if (!retryable || attempt >= ATTEMPTS) throw err;
      await sleep(5 + Math.random() * 20 * attempt);
    }
  }
}
