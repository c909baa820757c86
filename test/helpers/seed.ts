/**
 * Fast fixtures for delivery tests: a list with `n` subscribers written in three statements, so tests
 * with thousands of recipients do not spend their time in the API.
 */
import type { Db } from '../../src/db/db.js';

/** Creates a single opt-in list with `n` enabled subscribers `<prefix><i>@example.org`; returns the list id. */
export async function seedList(db: Db, n: number, prefix: string): Promise<number> {
  const [list] = await db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ($1, 'private', 'single') RETURNING id", [`${prefix} list`]);
  await db.sql(
    `INSERT INTO subscribers (email, name, attribs)
     SELECT $1 || g || '@example.org', 'Reader ' || g, jsonb_build_object('n', g) FROM generate_series(1, $2::int) g`,
    [prefix, n],
  );
  await db.sql(
    `INSERT INTO subscriber_lists (subscriber_id, list_id, status)
     SELECT id, $1::int, 'confirmed' FROM subscribers WHERE email LIKE $2 || '%@example.org'`,
    [list!.id, prefix],
  );
  return list!.id;
}

/** Sorted arrival times and a count of those in [from, to). */
export function countIn(times: number[], from: number, to: number): number {
  let n = 0;
  for (const t of times) if (t >= from && t < to) n += 1;
  return n;
}
