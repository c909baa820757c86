/**
 * Import crash safety (spec 4.6 "the import survives a server restart"): a real Mailroom process is
 * killed with SIGKILL in the middle of a 100,000-row import and started again. The import is then
 * `failed` with the line it reached (every row up to it is in the database), the counters match what
 * the database holds (whole batches only: nothing half-written), the upload is gone, and a new import
 * can start.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMPORTER_OPTIONS } from '../../src/workers/importer.js';
import { AUTH } from '../helpers/app.js';
import { createPgDatabase, storeKind } from '../helpers/db.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const ROWS = 100_000;
const BATCH = DEFAULT_IMPORTER_OPTIONS.batchRows;

let dir: string;
let env: Record<string, string>;
let dropDb: () => Promise<void> = async () => undefined;
let server: ServerProcess | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailroom-import-restart-'));
  env = { MAILROOM_DATA_DIR: dir, MAILROOM_INSTANCE_ID: 'import-restart-test', MAILROOM_API_ONLY: 'true' };
  if (storeKind === 'postgres') {
    const pgdb = await createPgDatabase();
    env.DATABASE_URL = pgdb.url;
    dropDb = pgdb.drop;
  }
}, 60_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  await dropDb();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function upload(s: ServerProcess, csv: string, params: object): Promise<number> {
  const form = new FormData();
  form.append('params', JSON.stringify(params));
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'big.csv');
  const res = await fetch(`http://127.0.0.1:${s.port}/api/import/subscribers`, { method: 'POST', headers: { authorization: AUTH }, body: form });
  await res.text();
  return res.status;
}

describe('an import interrupted by SIGKILL', () => {
  it('is failed after the restart with the line it reached, and the counts match the database', async () => {
    server = await startServer(env, 120_000);
    const list = (await server.api('POST', '/api/lists', { name: 'Restart', type: 'private', optin: 'single' })).body.data.id;
    const lines = ['email,name,attributes'];
    for (let i = 0; i < ROWS; i++) lines.push(`r${i}@restart.test,Row ${i},"{""i"": ${i}}"`);
    expect(await upload(server, `${lines.join('\n')}\n`, { mode: 'subscribe', lists: [list] })).toBe(200);

    // Kill once at least one batch is committed and the import is still running.
    let status: { imported: number; status: string } = { imported: 0, status: 'importing' };
    while (status.status === 'importing' && status.imported < BATCH) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await server.api('GET', '/api/import/subscribers')).body.data;
    }
    expect(status.status).toBe('importing');
    expect(await server.kill('SIGKILL')).toBe(null);

    server = await startServer(env, 120_000);
    const after = (await server.api('GET', '/api/import/subscribers')).body.data;
    expect(after.status).toBe('failed');
    expect(after.imported).toBeGreaterThanOrEqual(status.imported);
    expect(after.imported).toBeLessThan(ROWS);
    expect(after.imported % BATCH).toBe(0); // whole batches only
    const subscribers = (await server.api('GET', '/api/subscribers?per_page=1')).body.data.total;
    expect(subscribers).toBe(after.imported);
    expect((await server.api('GET', `/api/lists/${list}`)).body.data.subscriber_count).toBe(after.imported);
    const log: string = (await server.api('GET', '/api/import/subscribers/logs')).body.data;
    // One writer (the embedded store): the line is right after the last whole batch. Two writers
    // (PostgreSQL): the line is the lesser writer's mark; every row up to it is in either way.
    const interrupted = /Interrupted at line (\d+): the server stopped \(restart or crash\) while it was importing\. (\d+) rows imported and 0 skipped before that stay/u.exec(log);
    expect(interrupted, log).not.toBeNull();
    const line = Number(interrupted![1]);
    expect(Number(interrupted![2])).toBe(after.imported);
    if (storeKind === 'pglite') expect(line).toBe(after.imported + 1);
    // Row i is on line i + 2 (0 when the other writer had committed nothing yet: then the log says how
    // far the one that had got).
    const upToLine = `(subscribers.attribs->>'i')::int <= ${line - 2}`;
    expect((await server.api('GET', `/api/subscribers?per_page=1&query=${encodeURIComponent(upToLine)}`)).body.data.total).toBe(Math.max(0, line - 1));
    if (line < after.imported + 1) expect(log).toMatch(new RegExp(`Some rows after line ${line}, up to line \\d+, were imported too`));
    expect(readdirSync(join(dir, 'imports'))).toEqual([]);

    // A new import can start, and the rest of the file is imported by running it again.
    const beyond = `(subscribers.attribs->>'i')::int > ${2 * BATCH + 4}`;
    const alreadyBeyond: number = (await server.api('GET', `/api/subscribers?per_page=1&query=${encodeURIComponent(beyond)}`)).body.data.total;
    expect(await upload(server, `${lines.slice(0, 1 + 2 * BATCH + 5).join('\n')}\n`, { mode: 'subscribe', lists: [list] })).toBe(200);
    let again = status;
    while (again.status === 'importing') {
      await new Promise((r) => setTimeout(r, 50));
      again = (await server.api('GET', '/api/import/subscribers')).body.data;
    }
    expect(again).toMatchObject({ status: 'finished', imported: 2 * BATCH + 5 });
    expect((await server.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(2 * BATCH + 5 + alreadyBeyond);
  }, 240_000);
});
