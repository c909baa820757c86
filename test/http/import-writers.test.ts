/**
 * The importer's writers (src/workers/importer.ts): rows are shared out by e-mail between two writers,
 * each on its own connection (PostgreSQL's default; on the embedded store the two take turns on its one
 * connection, which exercises the same bookkeeping). What a user sees must not change: every address
 * written in file order (the last occurrence wins with overwrite), the skipped lines logged in order,
 * counters equal to the database, and after a stop, a row is in the database whenever the run's
 * `line` says so. Batches are 40 rows so a small file spans many.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { writerOf } from '../../src/workers/importer.js';
import { storeKind } from '../helpers/db.js';

const BATCH = 40;
let t: TestApp;
let dataDir: string;
let holdAt: number | null = null;
let release: () => void = () => undefined;
let reached: () => void = () => undefined;
let atHold: Promise<void> = Promise.resolve();
let gate: Promise<void> = Promise.resolve();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-import-writers-'));
  t = await buildTestApp({
    env: { MAILROOM_DATA_DIR: dataDir },
    importer: {
      batchRows: BATCH,
      writers: 2,
      beforeFlush: async (n) => {
        if (n !== holdAt) return;
        reached();
        await gate;
      },
    },
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  holdAt = null;
  await t.api('DELETE', '/api/import/subscribers');
});

function hold(batch: number): void {
  holdAt = batch;
  atHold = new Promise((r) => (reached = r));
  gate = new Promise((r) => (release = r));
}

async function start(csv: string, params: object): Promise<number> {
  const { payload, contentType } = multipart([
    { name: 'params', value: JSON.stringify(params) },
    { name: 'file', filename: 'writers.csv', content: csv, type: 'text/csv' },
  ]);
  const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return res.statusCode;
}

async function waitDone(): Promise<{ total: number; imported: number; skipped: number; status: string }> {
  for (let i = 0; i < 600; i++) {
    const s = (await t.api('GET', '/api/import/subscribers')).body.data;
    if (s.status !== 'importing' && s.status !== 'stopping') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not end');
}

const sql = <R = any>(text: string, params: unknown[] = []) => t.deps.db.sql<R>(text, params);
const logs = async (): Promise<string> => (await t.api('GET', '/api/import/subscribers/logs')).body.data;
const state = async () => (await sql<{ line: number; stream_lines: number[]; imported: number; skipped: number }>('SELECT line, stream_lines, imported, skipped FROM imports'))[0]!;

describe('writerOf', () => {
  it('sends an address always to the same writer and shares addresses out evenly', () => {
    const counts = [0, 0];
    for (let i = 0; i < 10_000; i++) {
      const w = writerOf(`user${i}@example.org`, 2);
      expect(writerOf(`user${i}@example.org`, 2)).toBe(w);
      counts[w]! += 1;
    }
    expect(counts[0]).toBeGreaterThan(4_700);
    expect(counts[1]).toBeGreaterThan(4_700);
    expect(writerOf('anyone@example.org', 1)).toBe(0);
  });
});

describe('an import on two writers', () => {
  it('writes every address in file order, logs the skipped lines in order, and counts what the database holds', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Writers', type: 'private', optin: 'single' })).body.data.id;
    const lines = ['email,name,attributes'];
    for (let i = 0; i < 400; i++) lines.push(`w${i}@writers.test,First ${i},"{""i"": ${i}}"`);
    lines.push('not-an-address,Bad,{}'); // line 402
    // Every tenth address again, later in the file, with a new name: with overwrite the last one wins.
    for (let i = 0; i < 400; i += 10) lines.push(`w${i}@writers.test,Second ${i},"{""i"": ${i}, ""again"": true}"`);
    lines.push('w1@writers.test,Bad JSON,{oops'); // line 443
    expect(await start(`${lines.join('\n')}\n`, { mode: 'subscribe', lists: [list], overwrite: true })).toBe(200);
    const done = await waitDone();
    expect(done).toMatchObject({ status: 'finished', imported: 440, skipped: 2 });

    const n = (await sql<{ n: number }>("SELECT count(*)::int AS n FROM subscribers WHERE email LIKE '%@writers.test'"))[0]!.n;
    expect(n).toBe(400);
    const names = await sql<{ email: string; name: string }>("SELECT email, name FROM subscribers WHERE email LIKE '%@writers.test'");
    for (const { email, name } of names) {
      const i = Number(/^w(\d+)@/u.exec(email)![1]);
      expect(name).toBe(i % 10 === 0 ? `Second ${i}` : `First ${i}`);
    }
    expect((await t.api('GET', `/api/lists/${list}`)).body.data.subscriber_count).toBe(400);
    // Both writers had rows, and both marks reached the last line.
    expect(new Set(names.map((r) => writerOf(r.email, 2))).size).toBe(2);
    expect(await state()).toMatchObject({ line: 443, stream_lines: [443, 443], imported: 440, skipped: 2 });
    const log = await logs();
    expect(log.indexOf('Skipped line 402: email:')).toBeGreaterThan(-1);
    expect(log.indexOf('Skipped line 443: attributes:')).toBeGreaterThan(log.indexOf('Skipped line 402'));
  });

  it('blocklists in blocklist mode and unsubscribes the blocklisted from their lists', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Blocklist writers', type: 'private', optin: 'single' })).body.data.id;
    const subscribe = ['email,name'];
    for (let i = 0; i < 200; i++) subscribe.push(`b${i}@block.writers.test,Reader ${i}`);
    expect(await start(`${subscribe.join('\n')}\n`, { mode: 'subscribe', lists: [list] })).toBe(200);
    expect(await waitDone()).toMatchObject({ status: 'finished', imported: 200 });
    const block = ['email,name'];
    for (let i = 0; i < 200; i += 2) block.push(`b${i}@block.writers.test,Reader ${i}`);
    expect(await start(`${block.join('\n')}\n`, { mode: 'blocklist', overwrite: true })).toBe(200);
    expect(await waitDone()).toMatchObject({ status: 'finished', imported: 100 });
    const rows = await sql<{ email: string; status: string; sub: string }>(
      `SELECT s.email, s.status, sl.status AS sub FROM subscribers s JOIN subscriber_lists sl ON sl.subscriber_id = s.id
       WHERE sl.list_id = $1`, [list]);
    expect(rows).toHaveLength(200);
    for (const r of rows) {
      const even = Number(/^b(\d+)@/u.exec(r.email)![1]) % 2 === 0;
      expect([r.status, r.sub]).toEqual(even ? ['blocklisted', 'unsubscribed'] : ['enabled', 'unconfirmed']); // listmonk's default subscription_status
    }
  });

  it('stopped in the middle: the counters match the database, and every row up to the run\'s line is in', async () => {
    const rows = 20 * BATCH;
    const lines = ['email,name,attributes'];
    for (let i = 0; i < rows; i++) lines.push(`s${i}@stop.writers.test,Row ${i},{}`);
    hold(4);
    expect(await start(`${lines.join('\n')}\n`, { mode: 'subscribe' })).toBe(200);
    await atHold; // three batches were handed to the writers; the fourth waits
    expect((await t.api('DELETE', '/api/import/subscribers')).body.data.status).toBe('stopping');
    release();
    const done = await waitDone();
    expect(done.status).toBe('finished');
    expect(done.imported).toBeGreaterThanOrEqual(2 * BATCH);
    expect(done.imported).toBeLessThan(rows);

    const written = await sql<{ email: string }>("SELECT email FROM subscribers WHERE email LIKE '%@stop.writers.test'");
    expect(written).toHaveLength(done.imported);
    const { line, stream_lines } = await state();
    expect(stream_lines).toHaveLength(2);
    expect(line).toBe(Math.min(...stream_lines));
    // Row i is on line i + 2: every row up to `line` is in, and no row of a writer past its own mark.
    const have = new Set(written.map((r) => Number(/^s(\d+)@/u.exec(r.email)![1])));
    for (let i = 0; i + 2 <= line; i++) expect(have.has(i)).toBe(true);
    for (const i of have) expect(i + 2).toBeLessThanOrEqual(stream_lines[writerOf(`s${i}@stop.writers.test`, 2)]!);
    const log = await logs();
    expect(log).toContain(`Stopped on request after line ${line}: ${done.imported} rows imported, 0 skipped.`);
    if (Math.max(...stream_lines) > line) expect(log).toContain(`Some rows after line ${line}, up to line ${Math.max(...stream_lines)}, were imported too`);
  });
});

describe.runIf(storeKind === 'postgres')('an import on two writers whose connections are cut mid-batch', () => {
  it('writes every batch again on new connections, skipping what had committed: every row once, counters exact', async () => {
    const rows = 12 * BATCH;
    const lines = ['email,name,attributes'];
    for (let i = 0; i < rows; i++) lines.push(`c${i}@cut.writers.test,Row ${i},"{""i"": ${i}}"`);
    const list = (await t.api('POST', '/api/lists', { name: 'Cut', type: 'private', optin: 'single' })).body.data.id;
    hold(6);
    expect(await start(`${lines.join('\n')}\n`, { mode: 'subscribe', lists: [list] })).toBe(200);
    await atHold;
    // Every other connection of this database goes: both writers' sessions (one of them may be in the
    // middle of its batch, or have committed it unseen) and the pool's idle ones.
    await sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    release();
    const done = await waitDone();
    expect(done, await logs()).toMatchObject({ status: 'finished', imported: rows, skipped: 0 });
    const n = (await sql<{ n: number }>("SELECT count(*)::int AS n FROM subscribers WHERE email LIKE '%@cut.writers.test'"))[0]!.n;
    expect(n).toBe(rows);
    expect((await t.api('GET', `/api/lists/${list}`)).body.data.subscriber_count).toBe(rows);
    expect(await state()).toMatchObject({ line: rows + 1, stream_lines: [rows + 1, rows + 1], imported: rows });
    expect(await logs()).toMatch(/The database was unavailable for [\d.]+ s after line \d+; the import waited and went on from there\./);
  });
});
