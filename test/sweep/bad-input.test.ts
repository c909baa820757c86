/**
 * Bad input, everywhere (issue "Trustworthy" §2): a property-based sweep over every route of the real
 * route table with generated hostile input — at least 10,000 requests per run. Pass: no 5xx; every
 * error of an `/api` route is exactly `{"message": "…"}`; and the database is unchanged by every
 * rejected request (a checksum of every table's contents before and after).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { badRequest, type BadRequest } from '../helpers/bad-input.js';

const MIN_REQUESTS = 10_000;
const SEED = Number(process.env.SWEEP_SEED ?? 20261121);

let t: TestApp;
let checksumSql: string;

/**
 * One statement hashing every table's rows (sorted), so any write shows up. The audit log is left out:
 * it records refused requests too, by design (issue 16 "Identity" item 5).
 */
async function buildChecksumSql(db: Db): Promise<string> {
  const tables = await db.sql<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'audit_log' ORDER BY 1`);
  const parts = tables.map((x) => `md5(coalesce((SELECT string_agg(r::text, '|' ORDER BY r::text) FROM "${x.name}" r), ''))`);
  return `SELECT md5(${parts.join(' || ')}) AS sum`;
}

async function checksum(): Promise<string> {
  const [row] = await t.testDb.db.sql<{ sum: string }>(checksumSql);
  return row!.sum;
}

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  const list = (await t.api('POST', '/api/lists', { name: 'Sweep', type: 'public', optin: 'double' })).body.data;
  await t.api('POST', '/api/subscribers', { email: 'sweep@example.org', name: 'Sweep', lists: [list.id] });
  await t.api('POST', '/api/campaigns', { name: 'Sweep', subject: 'Sweep', lists: [list.id], body: '<p>x</p>' });
  checksumSql = await buildChecksumSql(t.testDb.db);
});
afterAll(async () => t?.close());

describe('generated bad input on every route', () => {
  it(`never answers 5xx, answers {"message"} and changes nothing when it refuses (>= ${MIN_REQUESTS} requests)`, async () => {
    const routes = t.app.routeTable.filter((r) => !r.hidden);
    const runsPerRoute = Math.ceil(MIN_REQUESTS / routes.length);
    let before = await checksum();
    let requests = 0;
    const byStatus = new Map<number, number>();
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(badRequest(route, AUTH), async (req: BadRequest) => {
          const res = await t.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });
          requests += 1;
          byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
          const where = `${req.kind}: ${req.method} ${req.url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          // The health routes answer 503 by design once sends to the test's unreachable SMTP server failed.
          const healthReport = res.statusCode === 503 && (route.url === '/health' || route.url === '/api/health');
          if (!healthReport) expect(res.statusCode, where).toBeLessThan(500);
          if (res.statusCode >= 400 && route.url.startsWith('/api')) {
            const body = JSON.parse(res.body) as Record<string, unknown>;
            expect(Object.keys(body), where).toEqual(['message']);
            expect(typeof body.message, where).toBe('string');
          }
          const after = await checksum();
          if (res.statusCode >= 400) expect(after, `database changed by a refused request: ${where}`).toBe(before);
          before = after;
        }),
        { numRuns: runsPerRoute, seed: SEED, endOnFailure: true },
      );
    }
    const summary = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`bad-input sweep: ${routes.length} routes, ${requests} requests (${summary}), seed ${SEED}`);
    expect(requests).toBeGreaterThanOrEqual(MIN_REQUESTS);
  }, 900_000);
});
