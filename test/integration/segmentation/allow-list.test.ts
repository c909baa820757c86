/**
 * The allow-list against the real, migrated schema of the store under test (issue 14 finding 9b: casts
 * to `subscriber_status` passed the guard and failed with a 500 because the type did not exist). Every
 * type the guard lets an expression cast to exists and every function it lets an expression call exists
 * in pg_catalog, returns one value and is not volatile; a cast to each of listmonk's status types works
 * with the columns it describes and refuses a value outside the set as a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOWED_FUNCTIONS, APP_TYPES, CATALOG_TYPES, SQL_SYNTAX_FUNCTIONS,
} from '../../../src/segmentation/allow-list.js';
import { mapExpressionError, QueryRefusedError } from '../../../src/segmentation/index.js';
import { openTestDb, storeKind, type TestDb } from '../../helpers/db.js';

let t: TestDb;
beforeAll(async () => { t = await openTestDb(); });
afterAll(async () => { await t?.destroy(); });

describe(`the allow-list on the migrated schema (${storeKind})`, () => {
  it('names only types that exist', async () => {
    const missing: string[] = [];
    for (const type of [...CATALOG_TYPES].map((x) => `pg_catalog.${x}`).concat([...APP_TYPES])) {
      await t.db.sql(`SELECT NULL::${type} AS v, NULL::${type}[] AS a`).catch(() => missing.push(type));
    }
    expect(missing).toEqual([]);
  });

  it('names only functions that exist in pg_catalog, return one value and are not volatile', async () => {
    const names = [...new Set([...ALLOWED_FUNCTIONS, ...SQL_SYNTAX_FUNCTIONS])];
    const rows = await t.db.sql<{ name: string; retset: boolean; volatile: boolean }>(
      `SELECT p.proname AS name, bool_or(p.proretset) AS retset, bool_or(p.provolatile = 'v') AS volatile
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'pg_catalog' AND p.proname = ANY($1::text[]) GROUP BY p.proname`,
      [names],
    );
    expect(names.filter((n) => !rows.some((r) => r.name === n))).toEqual([]);
    expect(rows.filter((r) => r.retset || r.volatile).map((r) => r.name)).toEqual([]);
  });

  it("casts to listmonk's status types compare with the text columns", async () => {
    const [row] = await t.db.sql<Record<string, boolean>>(`SELECT
      'enabled'::text = 'enabled'::subscriber_status AS a,
      'confirmed'::text = ANY('{confirmed,unconfirmed}'::subscription_status[]) AS b,
      'public'::list_type::text = 'public' AS c,
      'double'::list_optin = 'double' AS d,
      'archived'::list_status = 'archived' AS e,
      'complaint'::bounce_type = 'complaint' AS f`);
    expect(row).toEqual({ a: true, b: true, c: true, d: true, e: true, f: true });
  });

  it('refuses a value outside the set, and the guard answers that with a 400', async () => {
    const err = await t.db.sql("SELECT 'unsubscribed'::subscriber_status").catch((e: unknown) => e);
    const mapped = mapExpressionError(err, 5_000);
    expect(mapped).toBeInstanceOf(QueryRefusedError);
    expect(mapped?.message).toBe('query: the expression failed: value for domain subscriber_status violates check constraint "…"');
  });
});
