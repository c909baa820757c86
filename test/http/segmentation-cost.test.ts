/**
 * Issue 14 finding 3 through HTTP, on both stores: `attribs::text ~ '(?=.*x)(?=.*y)z'` over 1,000
 * subscribers with 60 KB attributes held PGlite's event loop for hours. Now the exact query is
 * answered 400 at once, naming the construct, by every endpoint that takes a query; an expression
 * the guard accepts but that is heavy over this table stops at `app.subscriber_query_timeout` on
 * both stores (PostgreSQL's statement timeout; PGlite's stepped evaluation), and on PGlite other
 * requests are answered while it runs; light expressions over the same table still give exact
 * pages, totals, exports and bulk changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';

const ROWS = 1_000;
const ISSUE_QUERY = "attribs::text ~ '(?=.*x)(?=.*y)z'";
/** Accepted on both stores (one DFA pass; 201 atoms once expanded), but 20–80 ms per 60 KB row on PGlite. */
const HEAVY = "subscribers.attribs::text ~ '(?:a?){100}a{100}z'";

let t: TestApp;
let list: number;

beforeAll(async () => {
  t = await buildTestApp();
  list = (await t.api('POST', '/api/lists', { name: 'Big' })).body.data.id;
  await t.testDb.db.sql(`INSERT INTO subscribers (email, name, attribs)
    SELECT 'big' || g || '@example.com', 'Big ' || g, jsonb_build_object('blob', repeat('a', 60000), 'n', g)
    FROM generate_series(1, ${ROWS}) g`);
  await t.testDb.db.sql(`INSERT INTO subscriber_lists (subscriber_id, list_id, status)
    SELECT id, $1, 'confirmed' FROM subscribers WHERE (attribs->>'n')::int % 2 = 0`, [list]);
}, 120_000);
afterAll(async () => t?.close());

const q = (expr: string): string => encodeURIComponent(expr);

describe(`the query of issue 14 finding 3 (${storeKind})`, () => {
  it('is answered 400 at once by every endpoint, naming the lookahead', async () => {
    const message = 'query: lookahead and lookbehind constraints ("(?=") are not allowed in regular expressions: matching them takes time quadratic in the text';
    const started = performance.now();
    const answers = [
      await t.api('GET', `/api/subscribers?query=${q(ISSUE_QUERY)}`),
      await t.api('GET', `/api/subscribers/export?query=${q(ISSUE_QUERY)}`),
      await t.api('GET', `/api/subscribers/lists/${list}?query=${q(ISSUE_QUERY)}`),
      await t.api('POST', '/api/subscribers/query/delete', { query: ISSUE_QUERY }),
      await t.api('PUT', '/api/subscribers/query/blocklist', { query: ISSUE_QUERY }),
    ];
    for (const res of answers) expect([res.status, res.body.message]).toEqual([400, message]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe(`a heavy accepted expression (${storeKind})`, () => {
  it('stops at the statement timeout, and other requests are answered meanwhile', async () => {
    await t.deps.settings.update({ 'app.subscriber_query_timeout': '1s' });
    try {
      const order: string[] = [];
      const started = performance.now();
      const heavy = t.api('GET', `/api/subscribers?query=${q(HEAVY)}`).then((res) => {
        order.push('heavy');
        return res;
      });
      const light = t.api('GET', '/api/lists').then((res) => {
        order.push('light');
        return res;
      });
      const [res, other] = await Promise.all([heavy, light]);
      const elapsed = performance.now() - started;
      expect(other.status).toBe(200);
      expect([res.status, res.body.message]).toEqual([400, 'query: the expression took longer than 1000 ms']);
      console.info(`${storeKind}: heavy expression over ${ROWS} × 60 KB answered 400 after ${Math.round(elapsed)} ms`);
      expect(elapsed).toBeLessThan(1_000 + 4_000);
      // On PGlite the heavy statement used to hold the only thread; now the light request goes first.
      if (storeKind === 'pglite') expect(order).toEqual(['light', 'heavy']);
      const bulk = await t.api('POST', '/api/subscribers/query/delete', { query: HEAVY });
      expect([bulk.status, bulk.body.message]).toEqual([400, 'query: the expression took longer than 1000 ms']);
      expect((await t.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(ROWS);
    } finally {
      await t.deps.settings.update({ 'app.subscriber_query_timeout': '5s' });
    }
  });
});

describe(`light expressions over the same table (${storeKind})`, () => {
  const LIGHT = "subscribers.email LIKE 'big1%' AND (subscribers.attribs->>'n')::int > 100";
  // big1000, big100..big199 minus big100 itself: n in 101..199 and 1000.
  const expected = 100;

  it('give exact pages and totals', async () => {
    const page = await t.api('GET', `/api/subscribers?per_page=30&page=2&order_by=id&order=asc&query=${q(LIGHT)}`);
    expect(page.status).toBe(200);
    expect(page.body.data.total).toBe(expected);
    expect(page.body.data.results.map((s: { email: string }) => s.email)[0]).toBe('big131@example.com');
    const inList = await t.api('GET', `/api/subscribers/lists/${list}?per_page=all&query=${q(LIGHT)}`);
    expect(inList.body.data.total).toBe(50);
  });

  it('export every match across batches', async () => {
    await t.deps.settings.update({ 'app.batch_size': 7 });
    try {
      const csv = String((await t.api('GET', `/api/subscribers/export?query=${q(LIGHT)}`)).body);
      const emails = csv.trimEnd().split('\r\n').slice(1).map((line) => line.split(',')[1]);
      expect(emails).toHaveLength(expected);
      expect(new Set(emails).size).toBe(expected);
    } finally {
      await t.deps.settings.update({ 'app.batch_size': 1000 });
    }
  });

  it('change exactly the matches in bulk', async () => {
    const res = await t.api('PUT', '/api/subscribers/query/blocklist', { query: LIGHT });
    expect(res.status).toBe(200);
    const [row] = await t.testDb.db.sql<{ n: number }>("SELECT count(*)::int AS n FROM subscribers WHERE status = 'blocklisted'");
    expect(row?.n).toBe(expected);
  });
});
