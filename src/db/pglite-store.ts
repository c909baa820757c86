/**
 * The embedded store: PGlite (PostgreSQL compiled to WebAssembly) persisted under
 * `MAILROOM_DATA_DIR/pgdata`, or in memory for tests. One process owns the directory at a time; a
 * lock file with the owner's pid refuses a second process (two writers would corrupt the files).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { BulkQueryable, BulkSession, Db, Params, Queryable, Row, TxOptions } from './db.js';
import { DEFAULT_AUTOVACUUM_OPTIONS, PgliteAutovacuum, type PgliteAutovacuumOptions } from './pglite-autovacuum.js';
import { positionalParams, type NamedQuery } from './queries.js';

type PGliteLike = Pick<PGlite, 'query'> | Transaction;

function queryable(conn: PGliteLike): Queryable {
  return {
    async run<R = Row>(query: NamedQuery, params?: Params): Promise<R[]> {
      const res = await conn.query<R>(query.text, positionalParams(query, params));
      return res.rows;
    },
    async sql<R = Row>(text: string, params: unknown[] = []): Promise<R[]> {
      const res = await conn.query<R>(text, params);
      return res.rows;
    },
  };
}

/** Thrown when another live process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`${dir} is in use by process ${pid}; the embedded database allows one Mailroom process`);
    this.name = 'DataDirLockedError';
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory lock, replacing a stale one left by a dead process. Returns the release function. */
function lockDataDir(dir: string): () => void {
  const lockFile = join(dir, 'mailroom.lock');
  try {
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) {
      throw new DataDirLockedError(dir, pid);
    }
  } catch (err) {
    if (err instanceof DataDirLockedError) throw err;
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /**
   * The embedded autovacuum (src/db/pglite-autovacuum.ts): its options, or false to run none.
   * Default: on, checking every 10 s.
   */
  autovacuum?: Partial<PgliteAutovacuumOptions> | false;
}

/**
 * Opens PGlite: persisted in `<dir>/pgdata` when `dir` is given, in memory when it is null (tests),
 * with the embedded autovacuum running until close(). Throws DataDirLockedError when another process
 * owns `dir`.
 */
export async function openPglite(dir: string | null, opts: PgliteOptions = {}): Promise<Db> {
  let release = (): void => undefined;
  let dataDir: string | undefined;
  if (dir !== null) {
    mkdirSync(dir, { recursive: true });
    release = lockDataDir(dir);
    dataDir = join(dir, 'pgdata');
  }
  const pg = await PGlite.create(dataDir, {
    parsers: { [types.INT8]: (v: string) => Number(v), [types.NUMERIC]: (v: string) => Number(v) },
  });
  const base = queryable(pg);
  const autovacuum = opts.autovacuum === false ? null : new PgliteAutovacuum(pg, { ...DEFAULT_AUTOVACUUM_OPTIONS, ...opts.autovacuum });
  autovacuum?.start();
  return {
    kind: 'pglite',
    run: base.run,
    sql: base.sql,
    async tx<T>(fn: (q: Queryable) => Promise<T>, opts: TxOptions = {}): Promise<T> {
      return pg.transaction(async (tx) => {
        if (opts.readOnly) await tx.query('SET TRANSACTION READ ONLY');
        return fn(queryable(tx));
      });
    },
    async bulk<T>(fn: (session: BulkSession) => Promise<T>): Promise<T> {
      // One connection: the session is PGlite itself; COPY reads its data from the /dev/blob device.
      return fn({
        sql: base.sql,
        tx: (body) =>
          pg.transaction(async (tx) => {
            const q: BulkQueryable = {
              ...queryable(tx),
              async copyFrom(target: string, data: string): Promise<void> {
                await tx.query(`COPY ${target} FROM '/dev/blob'`, [], { blob: new Blob([data]) });
              },
            };
            return body(q);
          }),
      });
    },
    async exec(script: string): Promise<void> {
      await pg.exec(script);
    },
    async ping(): Promise<void> {
      await pg.query('SELECT 1');
    },
    async close(): Promise<void> {
      await autovacuum?.stop();
      await pg.close();
      release();
    },
  };
}
