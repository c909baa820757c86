/**
 * A fresh, migrated database per test file: an in-memory PGlite instance by default, or — when
 * DATABASE_URL is set — a new PostgreSQL database created for the file and dropped afterwards. Every
 * suite therefore runs on both stores (CI runs it twice), and files never share state.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite-store.js';
import { openPostgres } from '../../src/db/pg-store.js';

/** A test database and how to get rid of it. */
export interface TestDb {
  db: Db;
  /** Connection string of the dedicated PostgreSQL database, or null on PGlite. */
  url: string | null;
  /** Closes the connection and drops the database (PostgreSQL). */
  destroy(): Promise<void>;
}

/** The store the suite runs on, from DATABASE_URL. */
export const storeKind = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/** Creates an empty PostgreSQL database on the DATABASE_URL server; returns its URL and a drop function. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL as string;
  const name = `mailroom_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens a fresh migrated database on the configured store. */
export async function openTestDb(): Promise<TestDb> {
  if (storeKind === 'pglite') {
    const db = await openPglite(null);
    await migrate(db);
    return { db, url: null, destroy: () => db.close() };
  }
  const { url, drop } = await createPgDatabase();
  const db = await openPostgres(url, { maxConnections: 10 });
  await migrate(db);
  return {
    db,
    url,
    destroy: async () => {
      await db.close();
      await drop();
    },
  };
}
