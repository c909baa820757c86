/**
 * The guard on real databases (PostgreSQL 15 and PGlite): compiled expressions select the right
 * subscribers and exactly what the user's own text would select; errors caused by an expression are
 * 400s without stored data; nothing can write inside the guarded step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, embedQuery, GuardSetupError, guardedTx, QueryRefusedError, runGuarded,
  type CompiledQuery,
} from '../../../src/segmentation/index.js';
import { ACCEPTED, LISTMONK_CASES } from '../../unit/segmentation/corpus-accepted.js';
import { SELECT_IDS, STORES, type TestStore } from './fixture.js';

const OPTS = { timeoutMs: 5_000 };
/**
 * Where the raw text fails but the generated SQL works: numbers in syntax newer than PostgreSQL 15
 * (normalised to plain decimals), and unqualified columns that are ambiguous once the statement
 * joins subscriber_lists (the generator qualifies every column).
 */
const RAW_FAILS: ReadonlyMap<string, RegExp> = new Map([
  ['1_000 < subscribers.id + 2000', /syntax error|trailing junk/],
  ['0x10 > subscribers.id', /syntax error|trailing junk/],
  ["email LIKE '%@example.com' AND status = 'enabled'", /ambiguous/],
]);

describe.each(STORES)('guarded execution on %s', (_kind, open) => {
  let store: TestStore;
  beforeAll(async () => { store = await open(); });
  afterAll(async () => { await store.close(); });

  const ids = async (compiled: CompiledQuery | null, lists: readonly number[] = []): Promise<number[]> => {
    const rows = await runGuarded<{ id: number }>(store.runner, embedQuery(SELECT_IDS, compiled), [lists], OPTS);
    return rows.map((r) => r.id);
  };
  const rawIds = async (text: string, lists: readonly number[] = []): Promise<number[]> => {
    const sql = SELECT_IDS.split('%query%').join(`(\n${text}\n)`); // listmonk's own textual splice
    return (await store.exec<{ id: number }>(sql, [lists])).map((r) => r.id);
  };

  it.each(LISTMONK_CASES.filter((c) => c.ids !== undefined).map((c) => [c.q, c] as const))(
    'selects the right subscribers for %j',
    async (_q, c) => {
      const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
      expect(await ids(compiled, c.lists)).toEqual(c.ids);
    },
  );

  it('selects everyone when there is no expression', async () => {
    expect(await ids(await compileSubscriberQuery('  '))).toEqual([1, 2, 3, 4, 5]);
  });

  it('selects exactly what the raw text selects, for every accepted expression', async () => {
    for (const c of ACCEPTED) {
      const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
      const got = await ids(compiled, c.lists);
      const raw = await rawIds(compiled?.text ?? '', c.lists).catch((e: unknown) => e);
      if (raw instanceof Error) {
        const expected = RAW_FAILS.get(c.q);
        expect.soft(expected !== undefined && expected.test(raw.message), `${c.q}: ${raw.message}`).toBe(true);
      } else {
        expect.soft(got, c.q).toEqual(raw);
      }
    }
  });

  it('keeps its meaning when the server reads backslashes as escapes (standard_conforming_strings=off)', async () => {
    const tricky = await compileSubscriberQuery("subscribers.name = '\\'' OR 1=1 --'");
    const dave = await compileSubscriberQuery("subscribers.name = 'O''Brien \\ back'");
    const run = (c: CompiledQuery | null) => guardedTx(store.runner, OPTS, async (q) => {
      await q.query('SET LOCAL standard_conforming_strings = off');
      return (await q.query<{ id: number }>(embedQuery(SELECT_IDS, c), [[]])).map((r) => r.id);
    });
    expect(await run(tricky)).toEqual([]);
    expect(await run(dave)).toEqual([4]);
    // The same text spliced raw, as listmonk does, is an injection under that setting.
    const raw = await store.runner.tx(async (q) => {
      await q.query('SET LOCAL standard_conforming_strings = off');
      return q.query<{ id: number }>(SELECT_IDS.split('%query%').join(`(\n${tricky?.text ?? ''}\n)`), [[]]);
    });
    expect(raw.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each([
    ['(subscribers.email)::int > 0', 'query: the expression failed: invalid input syntax for type integer: "…"'],
    ["subscribers.name ~ 'a{3,1}'", 'query: the expression failed: invalid regular expression'],
    ['subscribers.id / 0 > 1', 'query: the expression failed: division by zero'],
    ['subscribers.name > 5', 'query: the expression failed: operator does not exist: text > integer'],
    ["subscribers.created_at > 'yesterday-ish'", 'query: the expression failed: invalid input syntax for type timestamp with time zone: "…"'],
    ["subscribers.status = 'gone'", 'query: the expression failed: invalid input value for enum subscriber_status: "…"'],
    ["to_date(subscribers.email, 'YYYY-MM') IS NULL", 'query: the expression failed:'],
  ])('answers %j with a 400 that carries no stored data', async (q, message) => {
    const err = await ids(await compileSubscriberQuery(q)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect((err as QueryRefusedError).message).toContain(message);
    expect((err as QueryRefusedError).message).not.toMatch(/@|example|alice/);
    expect((err as QueryRefusedError).reason).toBe('failed');
  });

  it.each([
    "INSERT INTO users (username, password) VALUES ('x', 'y')",
    "UPDATE subscribers SET name = 'pwned'",
    'DELETE FROM users',
    'CREATE TABLE pwned (x int)',
    "SELECT nextval('subscribers_id_seq')",
    'WITH d AS (DELETE FROM users RETURNING 1) SELECT count(*) FROM d',
  ])('cannot write inside the guarded step, even with raw SQL: %s', async (sql) => {
    const err = await runGuarded(store.runner, sql, [], OPTS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect((err as Error).message).toBe('query: the expression tried to write, which is not allowed');
    expect(await store.exec('SELECT username FROM users')).toEqual([{ username: 'admin' }]);
    expect(await store.exec("SELECT id FROM subscribers WHERE name = 'pwned'")).toEqual([]);
  });

  it('rolls back a write that READ ONLY lets through (lo_create on PostgreSQL 15)', async () => {
    const count = async (): Promise<unknown> => (await store.exec<{ n: string }>('SELECT count(*) AS n FROM pg_largeobject_metadata'))[0]?.n;
    const before = await count();
    const outcome = await runGuarded(store.runner, 'SELECT lo_create(0) AS oid', [], OPTS).catch((e: unknown) => e);
    if (outcome instanceof Error) expect(outcome.message).toContain('tried to write');
    expect(await count()).toBe(before);
  });

  it.each(["SELECT set_config('transaction_read_only', 'off', true)", 'SET TRANSACTION READ WRITE'])(
    'cannot switch the guarded step back to read-write: %s',
    async (sql) => {
      await expect(runGuarded(store.runner, sql, [], OPTS)).rejects.toThrow(/read-write/);
    },
  );

  it('refuses to run when the runner does not open a real transaction', async () => {
    await expect(runGuarded(store.autocommit, 'SELECT 1', [], OPTS)).rejects.toBeInstanceOf(GuardSetupError);
  });

  it('lets a bulk write use ids resolved in the guarded step (the write itself is ordinary SQL)', async () => {
    const blocked = await ids(await compileSubscriberQuery("subscribers.status = 'blocklisted'"));
    expect(blocked).toEqual([3]);
    await store.runner.tx(async (q) => q.query("UPDATE subscribers SET updated_at = NOW() WHERE id = ANY($1::int[])", [blocked]));
  });
});
