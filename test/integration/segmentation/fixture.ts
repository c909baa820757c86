/**
 * Throwaway databases for the segmentation integration tests: a fresh PostgreSQL database (dropped
 * afterwards) or an in-memory PGlite, each with minimal `subscribers`, `lists`, `subscriber_lists`
 * and `users` tables (columns as listmonk-behaviour §19) and five known subscribers. Also the
 * TxRunner adapters the guard is written against, and the listmonk-style query template.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Queryable, TxRunner } from '../../../src/segmentation/index.js';

/** The throwaway tables (enum names as listmonk's, so casts to them can be tested). */
export const SCHEMA = `
CREATE TYPE subscriber_status AS ENUM ('enabled', 'disabled', 'blocklisted');
CREATE TYPE subscription_status AS ENUM ('unconfirmed', 'confirmed', 'unsubscribed');
CREATE TABLE subscribers (
  id SERIAL PRIMARY KEY, uuid UUID NOT NULL DEFAULT gen_random_uuid(), email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL, attribs JSONB NOT NULL DEFAULT '{}', status subscriber_status NOT NULL DEFAULT 'enabled',
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW());
CREATE TABLE lists (id SERIAL PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE subscriber_lists (
  subscriber_id INT NOT NULL REFERENCES subscribers ON DELETE CASCADE,
  list_id INT NOT NULL REFERENCES lists ON DELETE CASCADE, meta JSONB NOT NULL DEFAULT '{}',
  status subscription_status NOT NULL DEFAULT 'unconfirmed',
  created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(), updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
  PRIMARY KEY (subscriber_id, list_id));
CREATE TABLE users (id SERIAL PRIMARY KEY, username TEXT NOT NULL, password TEXT NOT NULL);
`;

/** Five subscribers; the `ids` in corpus-accepted.ts refer to these rows. */
export const DATA = String.raw`
INSERT INTO subscribers (email, name, attribs, status, created_at) VALUES
 ('alice@example.com', 'Alice Anon', '{"city":"Berlin","age":31,"tags":["vip","beta"],"plan":"pro"}', 'enabled', NOW() - INTERVAL '1 day'),
 ('bob@example.org', 'Bob Builder', '{"city":"Paris","age":25,"tags":[],"plan":"free"}', 'disabled', NOW() - INTERVAL '30 days'),
 ('carol@example.com', 'Carol anonymous', '{"city":"Berlin","plan":"pro"}', 'blocklisted', '2024-03-01 12:00+00'),
 ('dave@test.net', 'O''Brien \ back', '{}', 'enabled', '2023-06-15 08:00+00'),
 ('erin@EXAMPLE.com', 'erin', '{"city":"berlin","age":42,"tags":["vip"],"score":7.5}', 'enabled', NOW() - INTERVAL '3 days');
INSERT INTO lists (name) VALUES ('news'), ('vip');
INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES
 (1, 1, 'confirmed'), (2, 1, 'unconfirmed'), (3, 2, 'confirmed'), (5, 1, 'unsubscribed'), (5, 2, 'confirmed');
INSERT INTO users (username, password) VALUES ('admin', 'secret-hash');
`;

/** listmonk's subscriber filter shape (§14.1): optional list join, then the expression. $1 = list ids. */
export const SELECT_IDS = `SELECT subscribers.id FROM subscribers
LEFT JOIN subscriber_lists ON subscriber_lists.subscriber_id = subscribers.id
  AND subscriber_lists.list_id = ANY($1::int[])
WHERE (cardinality($1::int[]) = 0 OR subscriber_lists.list_id IS NOT NULL) AND %query%
ORDER BY subscribers.id`;

/** A database for one test file. */
export interface TestStore {
  readonly kind: 'postgres' | 'pglite';
  /** Transactions as Mailroom's Db abstraction provides them. */
  readonly runner: TxRunner;
  /** Runs a statement outside the guard (setup and checks). */
  exec<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /** A runner that does NOT open a transaction (to prove the guard notices). */
  readonly autocommit: TxRunner;
  close(): Promise<void>;
}

/** PostgreSQL server used by the tests (trust auth in the sandbox). */
export const ADMIN_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Creates a fresh PostgreSQL database with the schema and data; `close` drops it. */
export async function openPostgresStore(extra = ''): Promise<TestStore & { readonly database: string }> {
  const database = `sqlguard_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  await pool.query(SCHEMA + DATA + extra);
  const exec = async <R>(sql: string, params?: unknown[]): Promise<R[]> => (await pool.query(sql, params)).rows as R[];
  const runner: TxRunner = {
    async tx(fn, opts) {
      const client = await pool.connect();
      try {
        await client.query(opts?.readOnly === true ? 'BEGIN READ ONLY' : 'BEGIN');
        const result = await fn(pgQueryable(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
  const autocommit: TxRunner = { tx: (fn) => fn({ query: exec }) };
  const close = async (): Promise<void> => {
    await pool.end();
    await waitForDisconnect(admin, database);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  };
  return { kind: 'postgres', database, runner, exec, autocommit, close };
}

/** Waits (up to 5 s) until no backend is connected to `database`, so dropping it kills no one. */
async function waitForDisconnect(admin: pg.Client, database: string): Promise<void> {
  for (let i = 0; i < 50; i += 1) {
    const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
    if ((rows[0] as { n: number }).n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function pgQueryable(client: pg.PoolClient): Queryable {
  return { query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[] };
}

/** Creates an in-memory PGlite with the schema and data. */
export async function openPgliteStore(extra = ''): Promise<TestStore> {
  const db = await PGlite.create();
  await db.exec(SCHEMA + DATA + extra);
  const exec = async <R>(sql: string, params?: unknown[]): Promise<R[]> => (await db.query<R>(sql, params)).rows;
  const runner: TxRunner = {
    tx: (fn, opts) => db.transaction(async (tx) => {
      if (opts?.readOnly === true) await tx.query('SET TRANSACTION READ ONLY');
      return fn({ query: async <R>(text: string, params?: unknown[]) => (await tx.query<R>(text, params)).rows });
    }),
  };
  const autocommit: TxRunner = { tx: (fn) => fn({ query: exec }) };
  return { kind: 'pglite', runner, exec, autocommit, close: () => db.close() };
}

/** Both stores, for `describe.each`. */
export const STORES = [
  ['postgres', openPostgresStore],
  ['pglite', openPgliteStore],
] as const;
