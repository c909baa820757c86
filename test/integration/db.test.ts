import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations, splitStatements } from '../../src/db/migrate.js';
import { bindNamedParams } from '../../src/db/queries.js';
import { isDbError, SqlState } from '../../src/db/db.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await openTestDb();
});
afterAll(async () => {
  await t.destroy();
});

describe('migrations', () => {
  it('are recorded and not applied twice', async () => {
    const rows = await t.db.sql<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.version));
    expect(await migrate(t.db)).toEqual([]);
  });
});

describe('named queries on the real store', () => {
  it('bind :name parameters, reuse repeated names and leave casts alone', async () => {
    const q = bindNamedParams('t', "SELECT :a::int + :b::int AS sum, :a::text AS a, ':x' AS lit");
    expect(q.params).toEqual(['a', 'b']);
    const rows = await t.db.run<{ sum: number; a: string; lit: string }>(q, { a: 2, b: 3 });
    expect(rows).toEqual([{ sum: 5, a: '2', lit: ':x' }]);
  });
});

describe('transactions', () => {
  it('roll back when the callback throws', async () => {
    await expect(
      t.db.tx(async (q) => {
        await q.sql("INSERT INTO settings (key, value) VALUES ('tx.test', '1')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await t.db.sql("SELECT 1 FROM settings WHERE key = 'tx.test'")).toEqual([]);
  });

  it('refuse writes when read-only', async () => {
    const err = await t.db
      .tx(async (q) => q.sql("INSERT INTO settings (key, value) VALUES ('ro', '1')"), { readOnly: true })
      .catch((e: unknown) => e);
    expect(isDbError(err, '25006')).toBe(true);
  });
});

describe('list subscription counts', () => {
  it('follow inserts, updates and deletes of subscriptions, statement by statement', async () => {
    const [l1, l2] = await t.db.sql<{ id: number }>("INSERT INTO lists (name) VALUES ('a'), ('b') RETURNING id");
    await t.db.sql(
      `INSERT INTO subscribers (email, name) SELECT 's' || g || '@x.org', 's' FROM generate_series(1, 50) g`,
    );
    await t.db.sql(
      `INSERT INTO subscriber_lists (subscriber_id, list_id) SELECT id, $1::int FROM subscribers
       UNION ALL SELECT id, $2::int FROM subscribers WHERE id % 2 = 0`,
      [l1!.id, l2!.id],
    );
    await t.db.sql(`UPDATE subscriber_lists SET status = 'confirmed' WHERE subscriber_id <= 10`);
    await t.db.sql(`DELETE FROM subscribers WHERE id > 45`);
    const counts = await t.db.sql<{ list_id: number; status: string; count: number }>(
      'SELECT list_id, status, count FROM list_subscriber_counts WHERE count <> 0 ORDER BY 1, 2',
    );
    const truth = await t.db.sql<{ list_id: number; status: string; count: number }>(
      'SELECT list_id, status, count(*)::int AS count FROM subscriber_lists GROUP BY 1, 2 ORDER BY 1, 2',
    );
    expect(counts).toEqual(truth);
    expect(truth.find((r) => r.list_id === l1!.id && r.status === 'confirmed')?.count).toBe(10);
    await t.db.sql('DELETE FROM lists WHERE id = $1', [l2!.id]);
    expect(await t.db.sql('SELECT 1 FROM list_subscriber_counts WHERE list_id = $1', [l2!.id])).toEqual([]);
  });

  it('reports unique violations with the constraint name', async () => {
    await t.db.sql("INSERT INTO subscribers (email, name) VALUES ('dup@x.org', 'd')");
    const err = await t.db.sql("INSERT INTO subscribers (email, name) VALUES ('dup@x.org', 'd')").catch((e: unknown) => e);
    expect(isDbError(err, SqlState.uniqueViolation)).toBe(true);
    expect((err as { constraint: string }).constraint).toBe('subscribers_email_key');
  });
});

describe('splitStatements', () => {
  it('keeps dollar-quoted bodies and ignores comment-only tails', () => {
    const parts = splitStatements("CREATE TABLE a (x int); -- c\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n-- end\n");
    expect(parts).toHaveLength(2);
    expect(parts[1]).toContain('SELECT 1;');
  });
});
