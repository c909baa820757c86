/**
 * GET /api/logs (listmonk's Settings → Logs; issue 16), on both stores: two instances on one database
 * each write their log lines (info and above, without per-request lines, secrets redacted) through the
 * batched writer, and either instance answers the lines of both, oldest first; each instance keeps
 * only its newest lines; a database that cannot be written keeps the lines queued and counts what the
 * queue bound drops.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../src/modules/users/service.js';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildDeps, type Deps } from '../../src/deps.js';
import type { App } from '../../src/http/types.js';
import { openPglite } from '../../src/db/pglite-store.js';
import { openPostgres } from '../../src/db/pg-store.js';
import { createLogger } from '../../src/modules/logs/logger.js';
import { jsonbSafe, LogLineWriter } from '../../src/modules/logs/writer.js';
import { AUTH, ROOT_URL, TEST_PASSWORD, TEST_USER } from '../helpers/app.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

/** Where the test loggers print: nowhere. */
const quiet = new Writable({ write: (_c, _e, done) => done() });

interface Instance {
  app: App;
  deps: Deps;
  logger: Logger;
  writer: LogLineWriter;
}

let testDb: TestDb;
let a: Instance;
let b: Instance;

/** One Mailroom instance on the shared test database, its lines going to a writer (flushed by hand). */
async function instance(id: string, keep: number): Promise<Instance> {
  const config = loadConfig({
    MAILROOM_ADMIN_USER: TEST_USER, MAILROOM_ADMIN_PASSWORD: TEST_PASSWORD, MAILROOM_ROOT_URL: ROOT_URL, MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9',
    MAILROOM_FROM_EMAIL: 'Mailroom Test <news@mailroom.test>', MAILROOM_DATA_DIR: '/tmp/mailroom-test-unused', MAILROOM_INSTANCE_ID: id, MAILROOM_API_ONLY: 'true',
  });
  const writer = new LogLineWriter({ keep, flushMs: 3_600_000 });
  const logger = createLogger('debug', { instance: id }, writer, quiet);
  const deps = await buildDeps(config, logger, { db: testDb.db, logLines: writer });
  const app = await buildApp(deps);
  await app.ready();
  return { app, deps, logger, writer };
}

async function logs(i: Instance, query = ''): Promise<{ status: number; body: any }> {
  const res = await i.app.inject({ method: 'GET', url: `/api/logs${query}`, headers: { authorization: AUTH } });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

beforeAll(async () => {
  testDb = await openTestDb();
  a = await instance('node-a', 50);
  b = await instance('node-b', 1000);
}, 120_000);
afterAll(async () => {
  for (const i of [a, b]) {
    await i?.app.close();
    await i?.deps.close();
  }
  await testDb?.destroy();
});

describe('logs', () => {
  it('answer the lines of every instance, oldest first, with time, instance, level, component and fields', async () => {
    a.logger.child({ component: 'campaign-runner' }).info({ campaign_id: 3 }, 'hello from A');
    await new Promise((r) => setTimeout(r, 5)); // distinct timestamps: pino times are in ms
    b.logger.warn('hello from B');
    b.logger.debug('a debug line is not stored');
    await Promise.all([a.writer.flush(), b.writer.flush()]);
    for (const i of [a, b]) {
      const res = await logs(i);
      expect(res.status).toBe(200);
      const lines: string[] = res.body.data;
      const fromA = lines.findIndex((l) => l.includes('hello from A'));
      const fromB = lines.findIndex((l) => l.includes('hello from B'));
      expect(fromA).toBeGreaterThanOrEqual(0);
      expect(fromB).toBeGreaterThan(fromA);
      expect(lines[fromA]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z node-a INFO campaign-runner: hello from A \{"campaign_id":3\}$/);
      expect(lines[fromB]).toMatch(/^\S+ node-b WARN hello from B$/);
      expect(lines.some((l) => l.includes('debug line'))).toBe(false);
    }
  });

  it('leave out per-request lines and redact secrets', async () => {
    expect((await logs(a)).status).toBe(200);
    a.logger.info({ password: 'hunter2', smtp: [{ host: 'x', password: 'hunter3' }], headers: { authorization: 'Basic c2VjcmV0' } }, 'settings changed');
    a.logger.info('text with a NUL \u0000 and a lone \uD800 surrogate');
    await a.writer.flush();
    const lines: string[] = (await logs(a)).body.data;
    const text = lines.join('\n');
    expect(text).not.toMatch(/incoming request|request completed/);
    expect(text).not.toMatch(/hunter|c2VjcmV0/);
    expect(lines.find((l) => l.includes('settings changed'))).toContain('"password":"[redacted]"');
    expect(lines.find((l) => l.includes('text with a NUL'))).toContain('NUL \uFFFD and');
  });

  it('keep each instance\'s newest lines only, and answer `limit` lines', async () => {
    for (let n = 0; n < 80; n++) a.logger.info(`line ${n}`);
    await a.writer.flush();
    const counts = await testDb.db.sql<{ instance: string; n: number }>('SELECT instance, count(*)::int AS n FROM log_lines GROUP BY instance ORDER BY instance');
    expect(counts[0]).toEqual({ instance: 'node-a', n: 50 });
    expect(counts[1]!.n).toBeGreaterThan(0);
    const last = (await logs(b, '?limit=2')).body.data as string[];
    expect(last).toHaveLength(2);
    expect(last[1]).toMatch(/ node-a INFO line 79$/);
    for (const bad of ['?limit=0', '?limit=10001', '?limit=x', '?limit=']) expect((await logs(a, bad)).status, bad).toBe(400);
  });

  it('keep lines queued while the database cannot be written, and count the ones the bound drops', async () => {
    // A database that no longer answers: a closed pool (PostgreSQL) or a closed embedded instance.
    const gone = testDb.url !== null ? await openPostgres(testDb.url, { maxConnections: 1 }) : await openPglite(null);
    await gone.close();
    const troubles: unknown[] = [];
    const writer = new LogLineWriter({ maxPending: 10, batchSize: 4, flushMs: 3_600_000 });
    for (let n = 0; n < 25; n++) writer.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: `queued ${n}` })}\n`);
    expect(writer.dropped).toBe(15);
    writer.attach(gone, 'node-c', { onTrouble: (err) => troubles.push(err) });
    await writer.flush();
    await writer.flush();
    expect(troubles).toHaveLength(1);
    expect(writer).toMatchObject({ dropped: 15, written: 0 });
    // The same queue goes out once a database answers.
    writer.attach(testDb.db, 'node-c', {});
    await writer.flush();
    expect(writer).toMatchObject({ dropped: 15, written: 10 });
    await writer.close();
    const lines: string[] = (await logs(a)).body.data;
    expect(lines.filter((l) => l.includes(' node-c ')).map((l) => l.replace(/^.* INFO /, ''))).toEqual(Array.from({ length: 10 }, (_, n) => `queued ${n + 15}`));
    const metrics = await a.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: AUTH } });
    expect(metrics.body).toMatch(/^mailroom_log_lines_dropped_total 0$/m);
    expect(metrics.body).toMatch(/^mailroom_log_lines_written_total [1-9]\d*$/m);
  });
});

describe('jsonbSafe', () => {
  it('replaces NUL and unpaired surrogate escapes, and leaves pairs and escaped backslashes alone', () => {
    expect(jsonbSafe('"a\\u0000b"')).toBe('"a\\ufffdb"');
    expect(jsonbSafe('"a\\\\u0000b"')).toBe('"a\\\\u0000b"');
    expect(jsonbSafe('"\\ud83d\\ude00"')).toBe('"\\ud83d\\ude00"');
    expect(jsonbSafe('"\\ud800x\\udc00"')).toBe('"\\ufffdx\\ufffd"');
  });
});

let seq = 0;
/** An API user whose role holds `permissions`; answers its Authorization header (`token user:token`). */
async function apiUser(permissions: string[]): Promise<string> {
  seq += 1;
  const token = randomBytes(24).toString('hex');
  const [role] = await testDb.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`ops role ${seq}`, permissions]);
  await testDb.db.sql(`INSERT INTO users (username, password_hash, type, user_role_id, status, email) VALUES ($1, $2, 'api', $3, 'enabled', $4)`, [`ops-${seq}`, hashToken(token), role!.id, `ops-${seq}@api`]);
  return `token ops-${seq}:${token}`;
}

describe('logs: permissions', () => {
  it('answer 403 without settings:get, and work with it', async () => {
    const get = async (authorization: string) => a.app.inject({ method: 'GET', url: '/api/logs', headers: { authorization } });
    const denied = await get(await apiUser(['settings:maintain', 'campaigns:get']));
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('permission denied: settings:get');
    expect((await get(await apiUser(['settings:get']))).statusCode).toBe(200);
  });
});
