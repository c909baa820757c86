/**
 * The embedded store's autovacuum (src/db/pglite-autovacuum.ts): PGlite has no autovacuum launcher, so
 * without it tables are never analyzed and the planner never learns how big they are. Runs in the
 * PGlite pass only (a PostgreSQL server runs its own autovacuum).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { PgliteAutovacuum } from '../../src/db/pglite-autovacuum.js';
import { openPglite } from '../../src/db/pglite-store.js';
import { PGlite } from '@electric-sql/pglite';
import { storeKind } from '../helpers/db.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

async function rowEstimate(db: Pick<Db, 'sql'>, table: string): Promise<number> {
  const [row] = await db.sql<{ n: number }>('SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass', [table]);
  return row!.n;
}

describe.skipIf(storeKind !== 'pglite')('embedded autovacuum', () => {
  it('analyzes a table after bulk inserts, on its own, without being asked', async () => {
    const db = await openPglite(null, { autovacuum: { intervalMs: 100 } });
    open.push(db);
    await migrate(db);
    await db.sql(`INSERT INTO subscribers (email, name) SELECT 'av' || g || '@example.org', 'Av ' || g FROM generate_series(1, 5000) g`);
    const deadline = Date.now() + 20_000;
    while ((await rowEstimate(db, 'subscribers')) !== 5000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await rowEstimate(db, 'subscribers')).toBe(5000);
    const stats = await db.sql("SELECT 1 FROM pg_stats WHERE tablename = 'subscribers' AND attname = 'status'");
    expect(stats).toHaveLength(1);
  });

  it("applies PostgreSQL's thresholds: vacuums after many deletes, analyzes after many updates, leaves quiet tables alone", async () => {
    const pg = await PGlite.create();
    open.push(pg);
    await pg.exec(`CREATE TABLE t (id int PRIMARY KEY, v text);
      CREATE TEMP TABLE staging (id int);
      INSERT INTO staging SELECT g FROM generate_series(1, 5000) g;
      INSERT INTO t SELECT g, 'x' FROM generate_series(1, 2000) g;`);
    const av = new PgliteAutovacuum(pg, { intervalMs: 60_000 });
    const first = await av.runOnce();
    expect(first).toContainEqual({ table: 'public.t', action: 'vacuum analyze' }); // 2,000 inserts > 1,000 + 0.2 × 0
    expect(first.some((a) => a.table.includes('staging'))).toBe(false); // temporary tables are skipped
    expect(await av.runOnce()).toEqual([]); // nothing changed since

    await pg.query('UPDATE t SET v = $1 WHERE id <= 300', ['y']); // 300 > 50 + 0.1 × 2,000: analyze
    expect(await av.runOnce()).toEqual([{ table: 'public.t', action: 'analyze' }]);

    await pg.query('UPDATE t SET v = $1 WHERE id <= 60', ['z']); // 60 < 250, 360 dead < 450: nothing to do
    expect(await av.runOnce()).toEqual([]);

    await pg.query('DELETE FROM t WHERE id > 1500'); // 360 + 500 dead rows > 50 + 0.2 × 2,000
    expect(await av.runOnce()).toEqual([{ table: 'public.t', action: 'vacuum analyze' }]);
    const [dead] = (await pg.query<{ n: number }>("SELECT n_dead_tup::int AS n FROM pg_stat_user_tables WHERE relname = 't'")).rows;
    expect(dead!.n).toBe(0);
  });

  it('close() waits for a check in progress and stops the timer', async () => {
    const db = await openPglite(null, { autovacuum: { intervalMs: 1 } });
    await migrate(db);
    await db.sql(`INSERT INTO subscribers (email, name) SELECT 'c' || g || '@example.org', 'C' FROM generate_series(1, 3000) g`);
    await new Promise((r) => setTimeout(r, 50));
    await db.close(); // would reject if a VACUUM were still running on the closed database
  });
});
