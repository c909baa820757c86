/**
 * Shared by the benchmarks that need a large PostgreSQL database (bench/subscribers, bench/http):
 * creates a fresh database, migrates it, and seeds subscribers, two lists and their memberships with
 * set-based SQL (`INSERT … SELECT … FROM generate_series`), then `VACUUM ANALYZE`.
 *
 * Data, for subscriber i = 1..n (its id is i):
 * - email `user<i>@example<i % 97>.com`, name `User<i> Family<i % 1000>`;
 * - attribs `{"city": one of 20 cities (i % 20), "plan": "pro" when i % 3 = 0 else "free", "n": i}`;
 * - status `blocklisted` when i % 100 = 0, else `disabled` when i % 50 = 0, else `enabled`;
 * - created_at = updated_at = 2023-01-01T00:00:00Z + i minutes;
 * - list `bench big` (public, single opt-in) holds every second subscriber (i % 2 = 0), list `bench small`
 *   every hundredth (i % 100 = 7); the membership is `confirmed` when i % 3 = 0, else `unconfirmed`.
 *
 * Not a benchmark (the leading underscore keeps bench/run.ts from running it).
 */
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/pg-store.js';

/** The 20 cities of `attribs.city`, indexed by i % 20. */
export const CITIES = ['Berlin', 'Paris', 'Lagos', 'Lima', 'Osaka', 'Quebec', 'Oslo', 'Pune', 'Perth', 'Cusco',
  'Dakar', 'Hanoi', 'Kyiv', 'Lyon', 'Malmo', 'Nairobi', 'Porto', 'Riga', 'Seoul', 'Turin'] as const;

/** The seeded lists by key, with the membership rule of each (subscriber number i → member?). */
export const LISTS = { big: (i: number) => i % 2 === 0, small: (i: number) => i % 100 === 7 } as const;
export type ListKey = keyof typeof LISTS;

/** SQL conditions on `g` (the subscriber number) equivalent to {@link LISTS}. */
const LIST_SQL: Record<ListKey, string> = { big: 'g % 2 = 0', small: 'g % 100 = 7' };

/** A seeded database. */
export interface SeededDatabase {
  /** Connection string of the new database. */
  url: string;
  /** Its name. */
  name: string;
  /** Ids of the seeded lists. */
  lists: Record<ListKey, number>;
  /** Subscribers seeded. */
  n: number;
  /** Wall-clock seconds spent seeding rows, memberships and `VACUUM ANALYZE` (migrations excluded). */
  seconds: number;
}

/** The e-mail address seeded for subscriber number (and id) `i`. */
export function seededEmail(i: number): string {
  return `user${i}@example${i % 97}.com`;
}

/** The ids of the seeded lists subscriber number (and id) `i` belongs to, ascending. */
export function seededListIds(i: number, lists: Record<ListKey, number>): number[] {
  return (Object.keys(LISTS) as ListKey[]).filter((k) => LISTS[k](i)).map((k) => lists[k]).sort((a, b) => a - b);
}

/** Connection string `adminUrl` with its database name replaced by `name`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one statement on a short-lived connection to `url`. */
async function once(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function checkName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/u.test(name)) throw new Error(`unsafe database name: ${name}`);
  return name;
}

/** Drops database `name` (if it exists), disconnecting its sessions, through the server of `adminUrl`. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await once(adminUrl, `DROP DATABASE IF EXISTS ${checkName(name)} WITH (FORCE)`);
}

/**
 * Creates database `name` on the server of `adminUrl` (dropping an existing one of that name first),
 * applies Mailroom's migrations and seeds `n` subscribers as described at the top of this file.
 * Takes about a minute per million subscribers on a 2-core machine.
 */
export async function seedDatabase(adminUrl: string, name: string, n: number): Promise<SeededDatabase> {
  await dropDatabase(adminUrl, name);
  await once(adminUrl, `CREATE DATABASE ${checkName(name)}`);
  const url = databaseUrl(adminUrl, name);
  const db = await openPostgres(url, { maxConnections: 1 });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }

  const t0 = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const lists = {} as Record<ListKey, number>;
    for (const key of Object.keys(LISTS) as ListKey[]) {
      const { rows } = await client.query<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ($1, 'public', 'single') RETURNING id", [`bench ${key}`]);
      lists[key] = rows[0]!.id;
    }
    // Ids are given explicitly (= i) so memberships can be derived from them; the sequence follows.
    await client.query(
      `INSERT INTO subscribers (id, email, name, attribs, status, created_at, updated_at)
       SELECT g,
              'user' || g || '@example' || (g % 97) || '.com',
              'User' || g || ' Family' || (g % 1000),
              jsonb_build_object('city', ($2::text[])[g % 20 + 1], 'plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END, 'n', g),
              CASE WHEN g % 100 = 0 THEN 'blocklisted' WHEN g % 50 = 0 THEN 'disabled' ELSE 'enabled' END,
              timestamptz '2023-01-01 00:00:00+00' + g * interval '1 minute',
              timestamptz '2023-01-01 00:00:00+00' + g * interval '1 minute'
       FROM generate_series(1, $1::int) g`,
      [n, CITIES],
    );
    await client.query("SELECT setval(pg_get_serial_sequence('subscribers', 'id'), GREATEST($1::int, 1))", [n]);
    for (const key of Object.keys(LISTS) as ListKey[]) {
      await client.query(
        `INSERT INTO subscriber_lists (subscriber_id, list_id, status)
         SELECT g, $2::int, CASE WHEN g % 3 = 0 THEN 'confirmed' ELSE 'unconfirmed' END
         FROM generate_series(1, $1::int) g WHERE ${LIST_SQL[key]}`,
        [n, lists[key]],
      );
    }
    await client.query('VACUUM ANALYZE');
    return { url, name, lists, n, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await client.end();
  }
}
