/**
 * Bounds on run time and reach. PostgreSQL: a runaway expression the guard accepts (an unanchored
 * regexp_match over a 100,003-character attribute, quadratic in it) is cut by the statement timeout;
 * every accepted expression runs under a role that can read only `subscribers` and
 * `subscriber_lists`. PGlite: the timeout never fires (documented finding), so the embedded limits
 * refuse that runaway up front (stepped.test.ts shows how the rest is bounded there).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, embedQuery, limitsForStore, QueryRefusedError, runGuarded,
} from '../../../src/segmentation/index.js';
import { ACCEPTED } from '../../unit/segmentation/corpus-accepted.js';
import { ADMIN_URL, openPgliteStore, openPostgresStore, SELECT_IDS, type TestStore } from './fixture.js';

const bigRow = (chars: number): string => `INSERT INTO subscribers (email, name, attribs)
  VALUES ('big@example.com', 'Big', jsonb_build_object('blob', repeat('a', ${chars})));`;
/**
 * Accepted on PostgreSQL: locating an unanchored match tries every start with a full scan, so this is
 * quadratic in the value (43 s for 60,000 characters on PGlite; PostgreSQL's regex engine checks for
 * cancellation, so the timeout cuts it). Refused on PGlite, which has no timeout to fall back on.
 */
const RUNAWAY = "regexp_match((subscribers.attribs->>'blob') || 'b', '(?:a.*c|b)') IS NULL";
const SLACK_MS = 1_500;

async function timed<T>(fn: () => Promise<T>): Promise<[T | unknown, number]> {
  const started = performance.now();
  const outcome = await fn().catch((e: unknown) => e);
  return [outcome, performance.now() - started];
}

describe('statement timeout on PostgreSQL', () => {
  let store: TestStore;
  beforeAll(async () => { store = await openPostgresStore(bigRow(100_003)); });
  afterAll(async () => { await store.close(); });

  it.each([500, 2_000])('cuts the runaway expression at %i ms', async (timeoutMs) => {
    const compiled = await compileSubscriberQuery(RUNAWAY);
    const sql = embedQuery(SELECT_IDS, compiled);
    const [err, elapsed] = await timed(() => runGuarded(store.runner, sql, [[]], { timeoutMs }));
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect((err as QueryRefusedError).message).toBe(`query: the expression took longer than ${timeoutMs} ms`);
    expect((err as QueryRefusedError).reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(elapsed).toBeLessThan(timeoutMs + SLACK_MS);
  });

  it('cuts a raw pg_sleep too (the timeout covers whatever runs in the step)', async () => {
    const [err, elapsed] = await timed(() => runGuarded(store.runner, 'SELECT pg_sleep(30)', [], { timeoutMs: 300 }));
    expect((err as QueryRefusedError).reason).toBe('timeout');
    expect(elapsed).toBeLessThan(300 + SLACK_MS);
  });

  it('leaves the pool usable and the session without the timeout afterwards', async () => {
    const ids = await runGuarded<{ id: number }>(store.runner, embedQuery(SELECT_IDS, null), [[]], { timeoutMs: 5_000 });
    expect(ids).toHaveLength(6);
    const [row] = await store.exec<{ st: string }>("SELECT current_setting('statement_timeout') AS st");
    expect(row?.st).toBe('0');
  });
});

describe('what the timeout cannot cut on PostgreSQL (documented residual)', () => {
  let store: TestStore;
  beforeAll(async () => { store = await openPostgresStore(bigRow(1_000_000)); });
  afterAll(async () => { await store.close(); });

  it('overshoots by one LIKE evaluation, bounded by the pattern budget', async () => {
    // The largest pattern the budget allows, over a 1 MB value: PostgreSQL 15 checks for the
    // timeout only between rows here, so the statement ends when this row's LIKE finishes.
    const compiled = await compileSubscriberQuery(`subscribers.attribs::text LIKE '%${'a'.repeat(997)}b%'`);
    const sql = embedQuery(SELECT_IDS, compiled);
    const [err, elapsed] = await timed(() => runGuarded(store.runner, sql, [[]], { timeoutMs: 200 }));
    expect((err as QueryRefusedError).reason).toBe('timeout');
    console.info(`PostgreSQL: 1,000-character LIKE over a 1 MB value, 200 ms timeout, ended after ${Math.round(elapsed)} ms`);
    expect(elapsed).toBeLessThan(200 + 10_000);
  });
});

describe('reach on PostgreSQL: a role that can read only the two tables', () => {
  const role = `sqlguard_reader_${process.pid}_${Date.now()}`;
  let store: TestStore;
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} NOLOGIN`);
    store = await openPostgresStore(`GRANT USAGE ON SCHEMA public TO ${role};
      GRANT SELECT ON subscribers, subscriber_lists TO ${role};`);
  });
  afterAll(async () => {
    await store.exec(`DROP OWNED BY ${role}`);
    await store.close();
    await admin.query(`DROP ROLE ${role}`);
    await admin.end();
  });

  it('cannot read users (so the next test means something)', async () => {
    await expect(runGuarded(store.runner, 'SELECT password FROM users', [], { timeoutMs: 5_000, role }))
      .rejects.toThrow(/permission denied/);
  });

  it('runs every accepted expression, so none reads another table', async () => {
    for (const c of ACCEPTED) {
      const compiled = await compileSubscriberQuery(c.q, { listFilter: c.lists !== undefined });
      const sql = embedQuery(SELECT_IDS, compiled);
      await expect(runGuarded(store.runner, sql, [c.lists ?? []], { timeoutMs: 5_000, role }), c.q).resolves.toBeDefined();
    }
  });
});

describe('PGlite (no working statement timeout)', () => {
  let store: TestStore;
  beforeAll(async () => { store = await openPgliteStore(bigRow(2_000_000)); });
  afterAll(async () => { await store.close(); });

  it('ignores statement_timeout: a 300 ms sleep outlives a 50 ms timeout (documented finding)', async () => {
    const [outcome, elapsed] = await timed(() => runGuarded(store.runner, 'SELECT pg_sleep(0.3)', [], { timeoutMs: 50 }));
    expect(outcome).toBeInstanceOf(Array);
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  it('refuses the runaway expression (and long patterns) under the embedded limits', async () => {
    const limits = limitsForStore('pglite');
    await expect(compileSubscriberQuery(RUNAWAY, { limits })).rejects.toThrow('need a pattern anchored at the start with ^');
    const long = `subscribers.attribs::text LIKE '%${'a'.repeat(150)}b%'`;
    await expect(compileSubscriberQuery(long, { limits })).rejects.toThrow('pattern is too long (153 characters; at most 100)');
  });

  it('runs the worst pattern the embedded limits allow over the 2 MB row to completion', async () => {
    const worst = `subscribers.attribs::text LIKE '%${'a'.repeat(97)}b%'`;
    const compiled = await compileSubscriberQuery(worst, { limits: limitsForStore('pglite') });
    const [rows, elapsed] = await timed(() => runGuarded(store.runner, embedQuery(SELECT_IDS, compiled), [[]], { timeoutMs: 5_000 }));
    expect(rows).toEqual([]);
    console.info(`PGlite: 100-character LIKE over a 2 MB attribute took ${Math.round(elapsed)} ms`);
  });
});
