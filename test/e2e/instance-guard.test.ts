/**
 * One live instance per MAILROOM_INSTANCE_ID on PostgreSQL (src/db/instance-guard.ts): a second live
 * holder of an id is refused with a message naming it; a stopped, killed, or silent (dead host) holder
 * gives the id up; a holder whose connection is cut takes it again. The embedded store has one process
 * and no guard.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { InstanceGuard, InstanceIdInUseError } from '../../src/db/instance-guard.js';
import { openPostgres } from '../../src/db/pg-store.js';
import { storeKind } from '../helpers/db.js';
import { prepareProcessStore, type ProcessStore } from '../helpers/process-store.js';
import { startServer } from '../helpers/server-process.js';

const logger = pino({ level: 'silent' });
const FAST = { heartbeatMs: 100, staleMs: 1000, waitMs: 300 };

let store: ProcessStore;
let url: string;
let db: Db;

beforeAll(async () => {
  if (storeKind !== 'postgres') return;
  store = await prepareProcessStore(async () => {});
  url = store.env.DATABASE_URL!;
  db = await openPostgres(url, { maxConnections: 5 });
});
afterAll(async () => {
  if (storeKind !== 'postgres') return;
  await db.close();
  await store.cleanup();
});

/** Backends of the database holding the lock of `id`. */
async function holders(id: string): Promise<number[]> {
  const rows = await db.sql<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 19794 AND objid = hashtext($1)::oid AND objsubid = 2",
    [id],
  );
  return rows.map((r) => r.pid);
}

describe.skipIf(storeKind !== 'postgres')('the instance-id guard', () => {
  it('refuses a second live holder of an id, naming it, and lets other ids and the next holder in', async () => {
    const first = await InstanceGuard.acquire(db, 'node-a', logger, FAST);
    const err = await InstanceGuard.acquire(db, 'node-a', logger, FAST).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InstanceIdInUseError);
    expect((err as Error).message).toMatch(/MAILROOM_INSTANCE_ID "node-a" is in use by another running instance \(database backend \d+, "mailroom node-a"/);
    const other = await InstanceGuard.acquire(db, 'node-b', logger, FAST);
    expect(await holders('node-a')).toHaveLength(1);
    await first.close();
    expect(await holders('node-a')).toEqual([]);
    const next = await InstanceGuard.acquire(db, 'node-a', logger, FAST);
    await Promise.all([next.close(), other.close()]);
  });

  it('disconnects a holder that went silent (its host died) and takes the id', async () => {
    const dead = new pg.Client({ connectionString: url });
    await dead.connect();
    dead.on('error', () => {});
    await dead.query('SELECT pg_try_advisory_lock(19794, hashtext($1))', ['node-c']);
    const [{ pid }] = (await dead.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
    // Still answering: refused.
    await expect(InstanceGuard.acquire(db, 'node-c', logger, FAST)).rejects.toBeInstanceOf(InstanceIdInUseError);
    // Silent for longer than staleMs: its connection is cut and the id taken.
    await new Promise((r) => setTimeout(r, FAST.staleMs + 200));
    const guard = await InstanceGuard.acquire(db, 'node-c', logger, FAST);
    const [mine] = await holders('node-c');
    expect(mine).not.toBe(pid);
    expect((await db.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length).toBe(0);
    await guard.close();
    await dead.end().catch(() => {});
  });

  it('takes the id again after its connection is cut, while nobody else holds it', async () => {
    const guard = await InstanceGuard.acquire(db, 'node-d', logger, FAST);
    const [before] = await holders('node-d');
    await db.sql('SELECT pg_terminate_backend($1)', [before]);
    let after: number[] = [];
    for (let i = 0; i < 100 && (after.length === 0 || after[0] === before); i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await holders('node-d');
    }
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    await guard.close();
    expect(await holders('node-d')).toEqual([]);
  });

  it('gives way when another instance took the id while its connection was cut: onTaken is called', async () => {
    let taken: Error | null = null;
    const a = await InstanceGuard.acquire(db, 'node-e', logger, { ...FAST, onTaken: (err) => (taken = err) });
    const [aPid] = await holders('node-e');
    await db.sql('SELECT pg_terminate_backend($1)', [aPid]);
    const b = await InstanceGuard.acquire(db, 'node-e', logger, { ...FAST, waitMs: 2000 });
    for (let i = 0; i < 50 && taken === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(taken).toBeInstanceOf(InstanceIdInUseError);
    const [bPid] = await holders('node-e');
    expect(bPid).not.toBe(aPid);
    await a.close();
    expect(await holders('node-e')).toEqual([bPid]);
    await b.close();
  });

  it('a Mailroom process whose id was taken while its connection was cut stops with status 1', async () => {
    const server = await startServer({ ...store.env, MAILROOM_INSTANCE_ID: 'web-2', MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9' });
    const rival = new pg.Client({ connectionString: url });
    await rival.connect();
    rival.on('error', () => {});
    const beat = setInterval(() => void rival.query('SELECT 1').catch(() => {}), 100);
    try {
      const [guardPid] = await holders('web-2');
      expect(guardPid).toBeDefined();
      await db.sql('SELECT pg_terminate_backend($1)', [guardPid]);
      // The rival takes the id as soon as the cut backend is gone, and stays alive (a statement every 100 ms).
      let got = false;
      for (let i = 0; i < 50 && !got; i++) {
        got = (await rival.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(19794, hashtext($1)) AS ok', ['web-2'])).rows[0]!.ok;
        if (!got) await new Promise((r) => setTimeout(r, 20));
      }
      expect(got).toBe(true);
      const code = await Promise.race([
        new Promise<number | null>((resolve) => server.child.once('exit', (c) => resolve(c))),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000)),
      ]);
      expect(code).toBe(1);
      expect(server.output()).toMatch(/another instance took this instance id/);
    } finally {
      clearInterval(beat);
      await server.kill('SIGKILL');
      await rival.end().catch(() => {});
    }
  });

  it('a second Mailroom process with the same id exits with the reason; after a SIGKILL the id is free at once', async () => {
    const env = { ...store.env, MAILROOM_INSTANCE_ID: 'web-1', MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9' };
    const first = await startServer(env);
    try {
      const second = await startServer(env, 20_000).then(
        async (s) => {
          await s.kill('SIGTERM');
          return null;
        },
        (err: unknown) => err as Error,
      );
      expect(second?.message).toMatch(/MAILROOM_INSTANCE_ID "web-1" is in use by another running instance/);
      expect(await first.api('GET', '/api/lists')).toMatchObject({ status: 200 });
      await first.kill('SIGKILL');
      const restarted = await startServer(env, 30_000);
      expect((await restarted.api('GET', '/api/lists')).status).toBe(200);
      await restarted.kill('SIGTERM');
    } finally {
      await first.kill('SIGKILL');
    }
  });
});
