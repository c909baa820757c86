/**
 * A database for tests that run Mailroom as real processes (kill, restart, several instances): a
 * PGlite data directory or a fresh PostgreSQL database, seeded while no server runs, plus the
 * environment that points a server at it and a way to open it again between runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite-store.js';
import { openPostgres } from '../../src/db/pg-store.js';
import { createPgDatabase, storeKind } from './db.js';

/** A seeded store for server processes. */
export interface ProcessStore {
  /** DATABASE_URL or MAILROOM_DATA_DIR. */
  env: Record<string, string>;
  /** Opens the store (only while no PGlite server runs). */
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

/** Creates, migrates and seeds a store with `seed` (the connection is closed afterwards). */
export async function prepareProcessStore(seed: (db: Db) => Promise<void>): Promise<ProcessStore> {
  let store: ProcessStore;
  if (storeKind === 'postgres') {
    const pg = await createPgDatabase();
    store = { env: { DATABASE_URL: pg.url }, open: () => openPostgres(pg.url, { maxConnections: 2 }), cleanup: pg.drop };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-proc-'));
    store = { env: { MAILROOM_DATA_DIR: dir }, open: () => openPglite(join(dir, 'db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const db = await store.open();
  try {
    await migrate(db);
    await seed(db);
  } finally {
    await db.close();
  }
  return store;
}
