/**
 * txWithRetry (src/modules/subscribers/retry.ts) on a real database. On PostgreSQL a real deadlock is
 * built: the transaction under txWithRetry waits first, so PostgreSQL picks it as the victim; it is
 * run again after the other transaction commits, and its write lands. PGlite has one connection and
 * cannot deadlock; there the file checks that ordinary errors are not retried.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { txWithRetry } from '../../src/modules/subscribers/retry.js';
import { openTestDb, storeKind, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await openTestDb();
  await t.db.exec("CREATE TABLE retry_probe (id int PRIMARY KEY, v text NOT NULL); INSERT INTO retry_probe VALUES (1, 'a'), (2, 'b')");
});
afterAll(async () => t?.destroy());

describe('txWithRetry', () => {
  it('passes other errors on at once, running the transaction once', async () => {
    let runs = 0;
    const err = await txWithRetry(t.db, async (q) => {
      runs += 1;
      await q.sql("INSERT INTO retry_probe VALUES (1, 'dup')");
    }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('23505');
    expect(runs).toBe(1);
  });

  it.runIf(storeKind === 'postgres')('runs a transaction again after PostgreSQL aborted it to break a deadlock', async () => {
    const other = new pg.Client({ connectionString: t.url! });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query("UPDATE retry_probe SET v = 'other' WHERE id = 1");
      let runs = 0;
      const retried = txWithRetry(t.db, async (q) => {
        runs += 1;
        await q.sql("UPDATE retry_probe SET v = 'retried' WHERE id = 2");
        await q.sql("UPDATE retry_probe SET v = 'retried' WHERE id = 1"); // waits for `other` (first waiter)
      });
      await new Promise((r) => setTimeout(r, 200));
      const otherDone = other.query("UPDATE retry_probe SET v = 'other' WHERE id = 2").then(() => other.query('COMMIT'));
      await Promise.all([retried, otherDone]);
      expect(runs).toBe(2);
      const rows = await t.db.sql<{ id: number; v: string }>('SELECT id, v FROM retry_probe ORDER BY id');
      expect(rows).toEqual([{ id: 1, v: 'retried' }, { id: 2, v: 'retried' }]);
    } finally {
      await other.end();
    }
  });
});
