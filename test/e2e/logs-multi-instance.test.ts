/**
 * GET /api/logs across real processes (issue 16, Logs): two Mailroom instances on one PostgreSQL, each
 * logging through main.ts's logger, and either one answers the start-up lines of both. The lines still
 * go to stdout as before. PostgreSQL only: the embedded store (PGlite) serves a single process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../helpers/db.js';
import { type ProcessStore, prepareProcessStore } from '../helpers/process-store.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

describe.skipIf(storeKind !== 'postgres')('logs of two instances on one PostgreSQL (PGlite serves one process)', () => {
  let store: ProcessStore;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    store = await prepareProcessStore(async () => undefined);
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await store?.cleanup();
  });

  it('either instance answers the lines of both', async () => {
    const env = { ...store.env, MAILROOM_ROOT_URL: 'http://mailroom.test', MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9', MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'info' };
    for (const id of ['logs-one', 'logs-two']) servers.push(await startServer({ ...env, MAILROOM_INSTANCE_ID: id }));
    const started = (lines: string[]) => ['logs-one', 'logs-two'].filter((id) => lines.some((l) => l.includes(` ${id} INFO mailroom started`)));
    // The writer flushes every second: wait (at most 30 s) for both start-up lines to be written.
    let lines: string[] = [];
    for (let i = 0; i < 300 && started(lines).length < 2; i++) {
      lines = (await servers[0]!.api('GET', '/api/logs')).body.data;
      if (started(lines).length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(started(lines)).toEqual(['logs-one', 'logs-two']);
    expect(started((await servers[1]!.api('GET', '/api/logs')).body.data)).toEqual(['logs-one', 'logs-two']);
    expect(servers[1]!.output()).toContain('"msg":"mailroom started"');
    for (const s of servers) expect(await s.kill('SIGTERM')).toBe(0);
  });
});
