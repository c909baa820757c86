/**
 * The database seen by the rest of Mailroom: one SQL dialect (PostgreSQL) behind two stores, a `pg`
 * connection pool or an embedded PGlite instance (issue "Foundation" §3). Services never import a
 * driver; they get a {@link Db} from the composition root (src/deps.ts).
 */
import type { NamedQuery } from './queries.js';

/** A result row as returned by the drivers: column name → parsed value. */
export type Row = Record<string, unknown>;

/** Named parameters for a {@link NamedQuery}: `:name` in the SQL text → `params.name`. Any object. */
export type Params = object;

/** Something that can run statements: the database itself, or an open transaction. */
export interface Queryable {
  /** Runs a named query with named parameters and returns its rows. Throws the driver's error. */
  run<R = Row>(query: NamedQuery, params?: Params): Promise<R[]>;
  /** Runs literal SQL with positional `$n` parameters (migrations, guarded expressions). */
  sql<R = Row>(text: string, params?: unknown[]): Promise<R[]>;
}

/** Options for {@link Db.tx}. */
export interface TxOptions {
  /** Start the transaction READ ONLY (segmentation queries run this way). */
  readOnly?: boolean;
}

/** Which store backs a {@link Db}. */
export type StoreKind = 'postgres' | 'pglite';

/** A transaction on a {@link BulkSession}'s connection: statements plus bulk loading with COPY. */
export interface BulkQueryable extends Queryable {
  /**
   * Loads `data` (PostgreSQL COPY text format: tab-separated columns, `\N` for NULL, one row per line,
   * backslash escapes) into `target`, e.g. `import_staging (line, email)`. `target` must be a constant
   * from the caller's code, never request input. Runs `COPY … FROM STDIN` on PostgreSQL and PGlite's
   * `COPY … FROM '/dev/blob'`. Throws the driver's error (the transaction is then rolled back).
   */
  copyFrom(target: string, data: string): Promise<void>;
}

/**
 * One dedicated connection for bulk work (the subscriber import): session state such as temporary
 * tables lives as long as the session. On PGlite, the single connection is shared with everything else.
 */
export interface BulkSession {
  /** Runs literal SQL outside a transaction (e.g. CREATE TEMP TABLE). */
  sql<R = Row>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs `fn` in one transaction on this connection: committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (q: BulkQueryable) => Promise<T>): Promise<T>;
}

/** A database connection (pool) with transactions. */
export interface Db extends Queryable {
  readonly kind: StoreKind;
  /**
   * Runs `fn` inside one transaction: committed when `fn` resolves, rolled back when it throws (the
   * error is re-thrown). On PGlite, other statements wait while the transaction is open.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T>;
  /**
   * Runs `fn` with a {@link BulkSession}: a connection of its own taken from the pool for as long as
   * `fn` runs (PostgreSQL), or the one PGlite connection. Used by the importer.
   */
  bulk<T>(fn: (session: BulkSession) => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /** Checks the database answers; throws when it does not. */
  ping(): Promise<void>;
  /** Closes every connection. The Db must not be used afterwards. */
  close(): Promise<void>;
}

/** A PostgreSQL error as both drivers report it (SQLSTATE `code`, violated `constraint`). */
export interface DbError extends Error {
  code: string;
  constraint?: string;
  detail?: string;
}

/** True when `err` is a database error, optionally with the given SQLSTATE code. */
export function isDbError(err: unknown, code?: string): err is DbError {
  if (typeof err !== 'object' || err === null) return false;
  const c = (err as { code?: unknown }).code;
  if (typeof c !== 'string' || !/^[0-9A-Z]{5}$/u.test(c)) return false;
  return code === undefined || c === code;
}

/** True when `err` violates the named unique/foreign-key/check constraint. */
export function violates(err: unknown, constraint: string): boolean {
  return isDbError(err) && err.constraint === constraint;
}

/** SQLSTATE codes Mailroom reacts to. */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  queryCanceled: '57014',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  /** The server could not extend a file: its disk (or the embedded store's) is full. */
  diskFull: '53100',
} as const;

/**
 * Messages node-postgres (`pg`) raises without a SQLSTATE or errno when the server goes away under a
 * connection: the socket closed mid-query, or a client that already saw such an error is used again.
 */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/u;

/**
 * True for errors that mean "the database is unreachable or restarting" rather than a bad statement:
 * connection refused/reset, admin shutdown (57P01..57P03), connection exceptions (08xxx), and pg's
 * code-less "Connection terminated …" errors. Workers use it to back off and retry instead of failing work.
 */
export function isConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return err instanceof Error && CONNECTION_LOST.test(err.message);
  return (
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)
  );
}
