/**
 * API credential checks under concurrency: many requests with the same credentials share one scrypt
 * hash (a busy client's 100 connections must not each hash when the cached check expires: that queued
 * ~10 s of CPU on libuv's threads and timed requests out in bench/http), and wrong passwords stay wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Params } from '../../src/db/db.js';
import type { NamedQuery } from '../../src/db/queries.js';
import { UserService } from '../../src/modules/users/service.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await openTestDb();
});
afterAll(async () => {
  await t?.destroy();
});

/** The database, counting the user look-ups (one per password hash). */
function counting(db: Db): { db: Db; lookups: () => number } {
  let n = 0;
  const wrapped = Object.create(db) as Db;
  wrapped.run = <R>(query: NamedQuery, params?: Params) => {
    if (query.text.includes('WHERE u.username = ')) n += 1;
    return db.run<R>(query, params);
  };
  return { db: wrapped, lookups: () => n };
}

describe('UserService.verify', () => {
  it('shares one check among concurrent requests with the same credentials, and caches it', async () => {
    const c = counting(t.db);
    const users = new UserService(c.db);
    await users.ensureAdmin('admin', 'correct horse battery');
    const before = c.lookups();
    const results = await Promise.all(Array.from({ length: 50 }, () => users.verify('admin', 'correct horse battery')));
    expect(results.every(Boolean)).toBe(true);
    expect(c.lookups() - before).toBe(1);
    expect(await users.verify('admin', 'correct horse battery')).toBe(true);
    expect(c.lookups() - before).toBe(1);
  });

  it('answers false to every concurrent request with a wrong password or an unknown user', async () => {
    const users = new UserService(t.db);
    await users.ensureAdmin('admin', 'correct horse battery');
    const wrong = await Promise.all(Array.from({ length: 10 }, () => users.verify('admin', 'wrong horse battery')));
    expect(wrong).toEqual(Array(10).fill(false));
    expect(await users.verify('nobody', 'correct horse battery')).toBe(false);
    expect(await users.verify('admin', 'correct horse battery')).toBe(true);
  });
});
