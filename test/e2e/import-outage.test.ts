/**
 * Faults (issue "Trustworthy" §6): PostgreSQL restarts in the middle of a running import. The service
 * reports it (health 503 naming the database, a log line saying the import waits), recovers without a
 * restart when the database is back, and loses no row: the import finishes with every row of the file
 * imported exactly once, counters equal to what the database holds, and the outage in the import log.
 * Runs against a private PostgreSQL cluster (restarting the shared server would disturb other test
 * files), in the PostgreSQL pass of the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMPORTER_OPTIONS } from '../../src/workers/importer.js';
import { AUTH } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';
import { canRunPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { startServer, waitUntilUnhealthy, type ServerProcess } from '../helpers/server-process.js';

const ROWS = 150_000;
const BATCH = DEFAULT_IMPORTER_OPTIONS.batchRows;
const enabled = storeKind === 'postgres' && canRunPrivatePostgres();

let pg: PrivatePostgres;
let server: ServerProcess;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ImportStatus {
  status: string;
  imported: number;
  total: number;
}

describe.runIf(enabled)('PostgreSQL restarts mid-import', () => {
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    server = await startServer({ DATABASE_URL: pg.url, MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'info' }, 120_000);
  }, 180_000);

  afterAll(async () => {
    await server?.kill('SIGTERM');
    pg?.destroy();
  });

  it('waits for the database, goes on where it was, and imports every row once', async () => {
    const list = (await server.api('POST', '/api/lists', { name: 'Outage', type: 'private', optin: 'single' })).body.data.id as number;
    const lines = ['email,name,attributes'];
    for (let i = 0; i < ROWS; i++) lines.push(`o${i}@outage.test,Row ${i},"{""i"": ${i}}"`);
    const form = new FormData();
    form.append('params', JSON.stringify({ mode: 'subscribe', lists: [list], subscription_status: 'confirmed' }));
    form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' }), 'outage.csv');
    const res = await fetch(`http://127.0.0.1:${server.port}/api/import/subscribers`, { method: 'POST', headers: { authorization: AUTH }, body: form });
    expect(res.status).toBe(200);

    // Stop the database once some batches are committed and the import is still running.
    let status: ImportStatus = { status: 'importing', imported: 0, total: 0 };
    while (status.status === 'importing' && status.imported < 2 * BATCH) {
      await sleep(20);
      status = (await server.api('GET', '/api/import/subscribers')).body.data;
    }
    expect(status.status).toBe('importing');
    pg.stop();
    const health = await waitUntilUnhealthy(server);
    expect(health.status).toBe(503);
    // The public check says only that (issue 14 finding 6); the reason is in the server log.
    expect(health.message).toBe('unhealthy');
    const during = await server.api('GET', '/api/import/subscribers');
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ message: 'the database is unavailable; try again shortly' });
    await sleep(3000);
    pg.start();

    const until = Date.now() + 180_000;
    while (Date.now() < until) {
      const r = await server.api('GET', '/api/import/subscribers');
      if (r.status === 200) status = r.body.data;
      if (r.status === 200 && status.status !== 'importing') break;
      await sleep(250);
    }
    const log: string = (await server.api('GET', '/api/import/subscribers/logs')).body.data;
    expect(status, log).toMatchObject({ status: 'finished', imported: ROWS, total: ROWS });
    expect(server.child.exitCode).toBeNull(); // the same process recovered
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    expect(server.output()).toMatch(/"problems":\["database unavailable/);
    expect(server.output()).toMatch(/import paused: the database is unavailable/);
    expect(server.output()).toMatch(/import resumed: the database is back/);
    expect(log).toMatch(/The database was unavailable for \d+\.\d s after line \d+; the import waited and went on from there\./);
    expect(log).toMatch(new RegExp(`Finished in [\\d.]+ s: ${ROWS} rows imported, 0 skipped`));
    const outage = /unavailable for ([\d.]+) s after line (\d+)/u.exec(log)!;
    console.log(`postgres restart mid-import: ${ROWS} rows, database away ${outage[1]} s after line ${outage[2]}; finished with ${status.imported} imported`);

    // Every row exactly once: the subscriber and membership counts equal the file, and the first,
    // last and a middle row are there with their data.
    expect((await server.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(ROWS);
    expect((await server.api('GET', `/api/lists/${list}`)).body.data.subscriber_count).toBe(ROWS);
    for (const i of [0, Math.floor(ROWS / 2), ROWS - 1]) {
      const found = await server.api('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = 'o${i}@outage.test'`)}`);
      expect(found.body.data.results).toHaveLength(1);
      expect(found.body.data.results[0]).toMatchObject({ name: `Row ${i}`, attribs: { i }, lists: [{ id: list, subscription_status: 'confirmed' }] });
    }
  }, 400_000);
});
