/**
 * Running statements that contain a compiled `query` expression: inside a READ ONLY transaction with
 * `statement_timeout` set (default 5 s, a setting), database errors caused by the expression mapped
 * to 400s naming `query`, never 500s. Bulk writes (delete/blocklist by query, listmonk-behaviour
 * §4.8) first resolve matching ids here, then write with ordinary statements, so the expression never
 * runs in a read-write transaction. listmonk has neither timeout nor read-only bulk step (§14.2).
 *
 * PGlite ignores `statement_timeout` (see limits.ts); there, the static limits are the only bound.
 */
import { QueryRefusedError } from './errors.js';
import { quoteIdent } from './emit-support.js';

/** Something that runs one statement with `$n` parameters and returns its rows. */
export interface Queryable {
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
}

/** Runs `fn` inside one transaction (committed when it resolves, rolled back when it throws). */
export interface TxRunner {
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: { readOnly?: boolean }): Promise<T>;
}

/** Options for {@link guardedTx} and {@link runGuarded}. */
export interface GuardedOptions {
  /** Statement timeout in milliseconds, an integer from 1 to 3,600,000. */
  readonly timeoutMs: number;
  /**
   * Optional database role to `SET LOCAL ROLE` to (defence in depth: a role granted SELECT on
   * `subscribers` and `subscriber_lists` only). Comes from configuration, never from a request.
   */
  readonly role?: string;
}

/** Default `statement_timeout` for guarded statements (issue "SQL segmentation guard"). */
export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;

/** The guarded transaction could not be set up as required (a wiring bug: 500, not the user's fault). */
export class GuardSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GuardSetupError';
  }
}

/**
 * Runs `fn` in a read-only transaction with `statement_timeout = opts.timeoutMs` (both set with
 * `SET LOCAL` semantics and verified before `fn` runs), then rolls the transaction back whatever
 * happened and returns `fn`'s result. Errors caused by the expression become QueryRefusedError
 * (400); others are re-thrown. Throws RangeError on a bad timeout and GuardSetupError when the
 * runner does not provide a real transaction. The runner must roll back and re-throw when its
 * callback throws (as Mailroom's Db.tx does).
 */
export async function guardedTx<T>(db: TxRunner, opts: GuardedOptions, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const ms = opts.timeoutMs;
  if (!Number.isInteger(ms) || ms < 1 || ms > 3_600_000) {
    throw new RangeError(`timeoutMs must be an integer from 1 to 3600000, got ${String(ms)}`);
  }
  try {
    await db.tx(async (q) => {
      await enterGuard(q, ms, opts.role);
      // Never commit: READ ONLY does not stop every write (PostgreSQL 15 allows lo_create in a
      // read-only transaction), so the transaction is always rolled back by throwing the result.
      throw new RollbackWith(await fn(q));
    }, { readOnly: true });
  } catch (err) {
    if (err instanceof RollbackWith) return err.value as T;
    throw mapExpressionError(err, ms) ?? err;
  }
  throw new GuardSetupError('the transaction runner swallowed the rollback signal');
}

/** Carries a guarded step's result out of the transaction while forcing a rollback. */
class RollbackWith {
  constructor(readonly value: unknown) {}
}

/** Runs one statement with {@link guardedTx} and returns its rows. Same errors. */
export function runGuarded<R>(db: TxRunner, sql: string, params: unknown[], opts: GuardedOptions): Promise<R[]> {
  return guardedTx(db, opts, (q) => q.query<R>(sql, params));
}

async function enterGuard(q: Queryable, ms: number, role: string | undefined): Promise<void> {
  const [set] = await q.query<{ ro: string; st: string }>(
    "SELECT pg_catalog.set_config('transaction_read_only', 'on', true) AS ro, pg_catalog.set_config('statement_timeout', $1, true) AS st",
    [String(ms)],
  );
  if (role !== undefined) await q.query(`SET LOCAL ROLE ${quoteIdent(role)}`);
  // current_setting() formats the value as set_config() answered it ('150ms'); reading pg_settings for
  // the raw number would cost ~1.5 ms of server time per guarded statement (it builds every setting).
  const [row] = await q.query<{ ro: string; st: string }>(
    "SELECT pg_catalog.current_setting('transaction_read_only') AS ro, pg_catalog.current_setting('statement_timeout') AS st",
  );
  // Outside a transaction block SET LOCAL lasts one statement, so these would read 'off' / the default.
  if (row?.ro !== 'on' || set === undefined || row.st !== set.st) {
    throw new GuardSetupError('guarded statements need a real transaction (read-only and timeout not in effect)');
  }
}

/**
 * SQLSTATEs outside class 22 (data exceptions) that an expression can cause. 23514 (check violation)
 * can only come from a cast to one of listmonk's status domains in a read-only statement
 * (`'foo'::subscriber_status`), where listmonk's enum answers 22P02.
 */
const EXPRESSION_STATES = new Set([
  '23514', '42601', '42702', '42725', '42804', '42809', '42846', '42883', '42P08', '42P18', '42P21', '42P22',
  '0A000', '54000', '54001',
]);

/**
 * Maps a database error raised while a guarded statement ran to a QueryRefusedError, or returns
 * undefined when the error is not the expression's fault (connection loss, setup bugs…).
 * 57014 (statement timeout) → `query: the expression took longer than N ms`; 25006 (write in a
 * read-only transaction) and 53200 (out of memory) get their own messages; class 22 and the codes
 * above → `query: the expression failed: <message>` with quoted values replaced by `"…"`, because
 * such messages can carry stored data of rows the caller may not be allowed to see.
 */
export function mapExpressionError(err: unknown, timeoutMs: number): QueryRefusedError | undefined {
  if (err instanceof QueryRefusedError) return err;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return undefined;
  if (code === '57014') return new QueryRefusedError(`the expression took longer than ${timeoutMs} ms`, 'timeout');
  if (code === '25006') return new QueryRefusedError('the expression tried to write, which is not allowed', 'failed');
  if (code === '53200') return new QueryRefusedError('the expression needs too much memory', 'failed');
  if (!code.startsWith('22') && !EXPRESSION_STATES.has(code)) return undefined;
  const message = err instanceof Error ? err.message : 'error';
  return new QueryRefusedError(`the expression failed: ${redactValues(message)}`, 'failed');
}

/** Replaces every double-quoted segment of a database message with `"…"`. */
export function redactValues(message: string): string {
  return message.replace(/"(?:[^"]|"")*"/g, '"…"');
}
