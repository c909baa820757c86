/**
 * Stepped evaluation on PGlite (src/segmentation/stepped.ts; issue 14 finding 3): an expression the
 * embedded limits accept but that is heavy over a big table (1,000 subscribers with 60 KB attributes)
 * is stopped at the deadline, between two steps, instead of holding the JavaScript thread until it is
 * done; timers keep firing while it runs; a light expression still finds exactly its matches; a
 * failing step is a 400 like any guarded statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileSubscriberQuery, embedQuery, limitsForStore, QueryRefusedError, steppedIds, type CompiledQuery,
} from '../../../src/segmentation/index.js';
import { openPgliteStore, type TestStore } from './fixture.js';

const ROWS = 1_000;
const BIG = `INSERT INTO subscribers (email, name, attribs)
  SELECT 'big' || g || '@example.com', 'Big ' || g, jsonb_build_object('blob', repeat('a', 60000))
  FROM generate_series(1, ${ROWS}) g;`;
/** Accepted on PGlite (a DFA pass, 201 atoms once expanded); about 20 s over 60 MB there. */
const HEAVY = "subscribers.attribs::text ~ '(?:a?){100}a{100}z'";

const RANGE = `SELECT subscribers.id FROM subscribers
WHERE subscribers.id > $1::int AND subscribers.id <= $2::int AND %query% ORDER BY subscribers.id`;

let store: TestStore;
beforeAll(async () => { store = await openPgliteStore(BIG); }, 120_000);
afterAll(async () => { await store?.close(); });

async function run(compiled: CompiledQuery | null, timeoutMs: number) {
  const sql = embedQuery(RANGE, compiled);
  const [top] = await store.exec<{ max: number }>('SELECT max(id)::int AS max FROM subscribers');
  return steppedIds(store.runner, {
    timeoutMs,
    afterId: 0,
    maxId: top?.max ?? 0,
    step: async (q, lo, hi) => (await q.query<{ id: number }>(sql, [lo, hi])).map((r) => r.id),
  });
}

describe('stepped evaluation on PGlite', () => {
  it('refuses the query of the issue at once, naming the construct', async () => {
    const started = performance.now();
    const err = await compileSubscriberQuery("attribs::text ~ '(?=.*x)(?=.*y)z'", { limits: limitsForStore('pglite') }).catch((e: unknown) => e);
    expect((err as QueryRefusedError).message).toMatch(/^query: lookahead and lookbehind constraints \("\(\?="\) are not allowed/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('stops a heavy accepted expression at the deadline, and timers run meanwhile', async () => {
    const compiled = await compileSubscriberQuery(HEAVY, { limits: limitsForStore('pglite') });
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 10);
    const started = performance.now();
    const err = await run(compiled, 2_000).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect((err as QueryRefusedError).message).toBe('query: the expression took longer than 2000 ms');
    expect((err as QueryRefusedError).reason).toBe('timeout');
    console.info(`PGlite stepped: heavy expression over ${ROWS} × 60 KB stopped after ${Math.round(elapsed)} ms; ${ticks} timer ticks, longest gap ${Math.round(longestGap)} ms`);
    // Run to completion, this takes 20–80 s (1,000 rows at 20–80 ms each, depending on the load).
    expect(elapsed).toBeLessThan(2_000 + 3_000);
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(longestGap).toBeLessThan(2_500);
  });

  it('finds exactly the matches of a light expression, in order', async () => {
    const compiled = await compileSubscriberQuery("subscribers.email LIKE 'big1%' OR subscribers.email LIKE '%@example.org'", { limits: limitsForStore('pglite') });
    const result = await run(compiled, 30_000);
    const expected = await store.exec<{ id: number }>(
      "SELECT id FROM subscribers WHERE email LIKE 'big1%' OR email LIKE '%@example.org' ORDER BY id",
    );
    expect(result.ids).toEqual(expected.map((r) => r.id));
    expect(result.steps).toBeGreaterThanOrEqual(1);
  });

  it('answers a failing step like a guarded statement: a 400 without stored values', async () => {
    const compiled = await compileSubscriberQuery("(subscribers.name)::int > 0");
    const err = await run(compiled, 30_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRefusedError);
    expect((err as QueryRefusedError).message).toBe('query: the expression failed: invalid input syntax for type integer: "…"');
  });
});
