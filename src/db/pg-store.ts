/**
 * The PostgreSQL store: a `pg` connection pool (used when DATABASE_URL is set). Several Mailroom
 * instances may share one database; nothing here assumes a single process.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import type { BulkQueryable, BulkSession, Db, Params, Queryable, Row, TxOptions } from './db.js';
import { positionalParams, type NamedQuery } from './queries.js';

/** Options for {@link openPostgres}. */
export interface PostgresOptions {
  /** Most connections held open at once (default 20). */
  maxConnections?: number;
  /** Called when a connection fails outside a query (idle in the pool, or held between two statements), e.g. the server restarts; the connection is replaced. */
  onIdleError?: (err: Error) => void;
}

// Counts and bigint ids fit in a JS number for any realistic mailing list (< 2^53); numeric stays a
// string only where precision matters, which Mailroom does not use.
const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => Number(v));

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async run<R = Row>(query: NamedQuery, params?: Params): Promise<R[]> {
      const res = await client.query({ text: query.text, values: positionalParams(query, params) });
      return res.rows as R[];
    },
    async sql<R = Row>(text: string, params: unknown[] = []): Promise<R[]> {
      const res = await client.query({ text, values: params });
      return res.rows as R[];
    },
  };
}

/** A {@link BulkSession} on one pooled client; `broken` is set when the connection must be discarded. */
function bulkSession(client: pg.PoolClient, state: { broken: boolean }): BulkSession {
  const bulk: BulkQueryable = {
    ...queryable(client),
    async copyFrom(target: string, data: string): Promise<void> {
      await pipeline(Readable.from([data]), client.query(copyFromStdin(`COPY ${target} FROM STDIN`)));
    },
  };
  return {
    sql: bulk.sql,
    async tx<T>(fn: (q: BulkQueryable) => Promise<T>): Promise<T> {
      await client.query('BEGIN');
      try {
        const result = await fn(bulk);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          state.broken = true;
        }
        throw err;
      }
    },
  };
}

/** Opens a pool to `url` and checks it answers. Throws the driver's error when it cannot connect. */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.maxConnections ?? 20,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // Without a listener, an idle client's error (server restart) would crash the process.
  pool.on('error', (err) => opts.onIdleError?.(err));
  const base = queryable(pool);
  const db: Db = {
    kind: 'postgres',
    run: base.run,
    sql: base.sql,
    async tx<T>(fn: (q: Queryable) => Promise<T>, txOpts: TxOptions = {}): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      // Between two statements a checked-out client has no query to fail: a server restart then arrives
      // as an 'error' event, which would crash the process without a listener.
      const onError = (err: Error): void => {
        broken = true;
        opts.onIdleError?.(err);
      };
      client.on('error', onError);
      try {
        await client.query(txOpts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
        const result = await fn(queryable(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // connection is gone; do not return it to the pool
        }
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    async bulk<T>(fn: (session: BulkSession) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const state = { broken: false };
      const onError = (err: Error): void => {
        state.broken = true; // the server went away between statements (see tx)
        opts.onIdleError?.(err);
      };
      client.on('error', onError);
      try {
        return await fn(bulkSession(client, state));
      } catch (err) {
        // A failed COPY can leave the protocol mid-stream; never hand such a connection to someone else.
        state.broken = true;
        throw err;
      } finally {
        client.off('error', onError);
        client.release(state.broken);
      }
    },
    async exec(script: string): Promise<void> {
      await pool.query(script);
    },
    async ping(): Promise<void> {
      await pool.query('SELECT 1');
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
  await db.ping();
  return db;
}
