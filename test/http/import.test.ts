/**
 * Subscriber import, spec 4.6 (reference §6): CSV and ZIP, both modes, both `overwrite` values, bad
 * rows logged with their line numbers, malformed and hostile files, one import at a time, stopping,
 * and status counters that match the database. Batches are 50 rows here so small files span several.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { declareSize, renameEntry, zipOf } from '../helpers/zip.js';

const BATCH = 50;
let t: TestApp;
let dataDir: string;
/** The batch number the importer waits at (before writing it) until released; null: never. */
let holdAt: number | null = null;
let held: { reached: Promise<void>; release: () => void } | null = null;
let reachedResolve: () => void = () => undefined;

function arm(batch: number): void {
  holdAt = batch;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reachedResolve = r));
  held = { reached, release: () => release() };
  heldGate = gate;
}
let heldGate: Promise<void> = Promise.resolve();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-import-'));
  t = await buildTestApp({
    env: { MAILROOM_DATA_DIR: dataDir },
    importer: {
      batchRows: BATCH,
      // One writer, so batch boundaries (what a stop or a shutdown keeps) are exact here; two writers,
      // PostgreSQL's default, are covered by import-writers.test.ts.
      writers: 1,
      beforeFlush: async (n) => {
        if (n !== holdAt) return;
        reachedResolve();
        await heldGate;
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
  held = null;
  await waitDone();
  await t.api('DELETE', '/api/import/subscribers');
});

async function post(parts: Part[]) {
  const { payload, contentType } = multipart(parts);
  const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() };
}

const start = (file: string | Buffer, params: object, filename = 'subscribers.csv') =>
  post([{ name: 'params', value: JSON.stringify(params) }, { name: 'file', filename, content: file, type: 'text/csv' }]);

/** Polls the status until the import is no longer running. */
async function waitDone(): Promise<{ name: string; total: number; imported: number; skipped: number; status: string }> {
  for (let i = 0; i < 600; i++) {
    const s = (await t.api('GET', '/api/import/subscribers')).body.data;
    if (s.status !== 'importing' && s.status !== 'stopping') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('import did not end');
}

const logs = async (): Promise<string> => (await t.api('GET', '/api/import/subscribers/logs')).body.data;
const sql = <R = any>(text: string, params: unknown[] = []) => t.deps.db.sql<R>(text, params);
const countWhere = async (domain: string): Promise<number> => (await sql<{ n: number }>('SELECT count(*)::int AS n FROM subscribers WHERE email LIKE $1', [`%@${domain}`]))[0]!.n;
const newList = async (name: string): Promise<number> => (await t.api('POST', '/api/lists', { name, type: 'private', optin: 'single' })).body.data.id;
/** `n` CSV rows `email,name,attributes` (plus `extra` columns) with addresses at `domain`. */
const rows = (domain: string, n: number, from = 0, extra = '') =>
  Array.from({ length: n }, (_, i) => `user${from + i}@${domain},User ${from + i},"{""n"": ${from + i}}"${extra}`).join('\n');
const subscriber = async (email: string) => (await sql('SELECT name, attribs, status FROM subscribers WHERE email = $1', [email]))[0];
const membership = async (email: string, list: number) =>
  (await sql<{ status: string }>('SELECT sl.status FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email = $1 AND sl.list_id = $2', [email, list]))[0]?.status ?? null;

describe('GET /api/import/subscribers when idle', () => {
  it('answers the empty status, an empty log, and DELETE keeps it empty', async () => {
    const empty = { name: '', total: 0, imported: 0, skipped: 0, status: 'none' };
    expect((await t.api('GET', '/api/import/subscribers')).body).toEqual({ data: empty });
    expect(await logs()).toBe('');
    expect((await t.api('DELETE', '/api/import/subscribers')).body).toEqual({ data: empty });
  });
});

describe('CSV import, subscribe mode', () => {
  it('imports rows with names, attributes and memberships, and skips bad rows with their line numbers', async () => {
    const a = await newList('Import A');
    const b = await newList('Import B');
    const csv = [
      'email,name,attributes,source', // 1
      'ann@t1.test,Ann,"{""city"":""Leeds"",""vip"":true}",web', // 2
      'bad-address,Bob,,web', // 3: invalid e-mail
      '"carl@t1.test","Carl ""CJ"" Jones","{""tags"":[""a"",""b""]}",shop', // 4
      'dora@t1.test,,,web', // 5: name derived from the address
      'eve@t1.test,Eve,{not json},web', // 6: bad JSON
      'fay@t1.test,Fay,"[1,2]",web', // 7: not an object
      'gus@t1.test,Gus', // 8: wrong column count
      '', // 9: blank, ignored
      '"hal@t1.test","Hal', // 10: a record over two lines
      'Two Lines","{}",web', // 11
      'IVY@T1.TEST,Ivy,,web', // 12: lower-cased
      'ann@t1.test,Ann Again,"{""city"":""York""}",web', // 13: repeated: the first occurrence wins
      rows('t1.test', 120, 0, ',gen'), // 14-133: spans several batches
    ].join('\n');
    const res = await start(csv, { mode: 'subscribe', lists: [a, b], subscription_status: 'confirmed', overwrite: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'subscribers.csv', status: 'importing', imported: 0 });
    const done = await waitDone();
    // 130 records (the blank line is not one): 126 written, 4 skipped.
    expect(done).toEqual({ name: 'subscribers.csv', total: 130, imported: 126, skipped: 4, status: 'finished' });

    const log = await logs();
    expect(log).toContain('Skipped line 3: email: is not a valid e-mail address\n');
    expect(log).toContain('Skipped line 6: attributes: is not valid JSON\n');
    expect(log).toContain('Skipped line 7: attributes: must be a JSON object\n');
    expect(log).toContain('Skipped line 8: expected 4 columns, found 2\n');
    expect(log.match(/Skipped line/g)).toHaveLength(4);
    expect(log).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z Importing "subscribers\.csv"/);
    expect(log).toMatch(/Finished in [\d.]+ s: 126 rows imported, 4 skipped/);

    // 126 valid rows, one e-mail twice: 125 subscribers, each in both lists as confirmed.
    expect(await countWhere('t1.test')).toBe(125);
    const members = await sql<{ list_id: number; status: string; n: number }>(
      "SELECT sl.list_id, sl.status, count(*)::int AS n FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email LIKE '%@t1.test' GROUP BY 1, 2 ORDER BY 1",
    );
    expect(members).toEqual([{ list_id: a, status: 'confirmed', n: 125 }, { list_id: b, status: 'confirmed', n: 125 }]);
    expect((await t.api('GET', `/api/lists/${a}`)).body.data.subscriber_count).toBe(125);
    expect(await subscriber('ann@t1.test')).toEqual({ name: 'Ann', attribs: { city: 'Leeds', vip: true }, status: 'enabled' });
    expect(await subscriber('carl@t1.test')).toMatchObject({ name: 'Carl "CJ" Jones', attribs: { tags: ['a', 'b'] } });
    expect(await subscriber('dora@t1.test')).toMatchObject({ name: 'Dora', attribs: {} });
    expect(await subscriber('hal@t1.test')).toMatchObject({ name: 'Hal\nTwo Lines' });
    expect(await subscriber('ivy@t1.test')).toMatchObject({ name: 'Ivy' });
    expect(await subscriber('user119@t1.test')).toMatchObject({ name: 'User 119', attribs: { n: 119 } });
    for (const missing of ['eve@t1.test', 'fay@t1.test', 'gus@t1.test']) expect(await subscriber(missing)).toBeUndefined();
  });

  it('reads other delimiters, a BOM, CRLF line breaks and header names in any case', async () => {
    const csv = '\ufeffEmail;NAME\r\ntab1@t7.test;Semi Colon\r\ntab2@t7.test;Other\r\n';
    expect((await start(csv, { mode: 'subscribe', delim: ';' })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 2, skipped: 0, status: 'finished' });
    expect(await subscriber('tab1@t7.test')).toMatchObject({ name: 'Semi Colon' });
  });

  it('skips rows the database refuses that the checks let through, and writes the rest of their batch', async () => {
    await sql("ALTER TABLE subscribers ADD CONSTRAINT test_no_poison CHECK (name <> 'Poison') NOT VALID");
    try {
      const csv = ['email,name,attributes', rows('t8.test', 30), 'p1@t8.test,Poison,', rows('t8.test', 30, 30), 'p2@t8.test,Poison,'].join('\n');
      expect((await start(csv, { mode: 'subscribe' })).status).toBe(200);
      expect(await waitDone()).toMatchObject({ total: 62, imported: 60, skipped: 2, status: 'finished' });
      expect(await countWhere('t8.test')).toBe(60);
      expect(await logs()).toMatch(/Skipped line 32: refused by the database \(.*test_no_poison/);
      expect(await logs()).toMatch(/Skipped line 63: refused by the database/);
    } finally {
      await sql('ALTER TABLE subscribers DROP CONSTRAINT test_no_poison');
    }
  });
});

describe('overwrite', () => {
  let a: number;
  let b: number;
  beforeAll(async () => {
    a = await newList('Overwrite A');
    b = await newList('Overwrite B');
    const res = await t.api('POST', '/api/subscribers', { email: 'old@t2.test', name: 'Old Name', status: 'enabled', attribs: { a: 1 }, lists: [a] });
    expect(res.status).toBe(200);
  });
  const csv = 'email,name,attributes\nold@t2.test,New Name,"{""b"": 2}"\nnew@t2.test,Newcomer,\n';

  it('false: leaves existing subscribers and memberships, adds missing memberships', async () => {
    expect((await start(csv, { mode: 'subscribe', lists: [a, b], subscription_status: 'confirmed', overwrite: false })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 2, status: 'finished' });
    expect(await subscriber('old@t2.test')).toEqual({ name: 'Old Name', attribs: { a: 1 }, status: 'enabled' });
    expect(await membership('old@t2.test', a)).toBe('unconfirmed');
    expect(await membership('old@t2.test', b)).toBe('confirmed');
    expect(await membership('new@t2.test', a)).toBe('confirmed');
  });

  it('true: updates name, attributes and membership status', async () => {
    expect((await start(csv, { mode: 'subscribe', lists: [a, b], subscription_status: 'confirmed', overwrite: true })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 2, status: 'finished' });
    expect(await subscriber('old@t2.test')).toEqual({ name: 'New Name', attribs: { b: 2 }, status: 'enabled' });
    expect(await membership('old@t2.test', a)).toBe('confirmed');
    expect(await countWhere('t2.test')).toBe(2);
  });
});

describe('blocklist mode', () => {
  let a: number;
  let other: number;
  beforeAll(async () => {
    a = await newList('Blocklist A');
    other = await newList('Blocklist other');
    await t.api('POST', '/api/subscribers', { email: 'keep@t3.test', name: 'Keep Me', status: 'enabled', lists: [a, other], preconfirm_subscriptions: true });
  });
  const csv = 'email,name\nkeep@t3.test,Keep Renamed\nspam@t3.test,Spammer\n';

  it('overwrite false: blocklists new addresses only, with unsubscribed memberships', async () => {
    expect((await start(csv, { mode: 'blocklist', lists: [a], overwrite: false })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 2, status: 'finished' });
    expect(await subscriber('keep@t3.test')).toMatchObject({ name: 'Keep Me', status: 'enabled' });
    expect(await membership('keep@t3.test', a)).toBe('confirmed');
    expect(await subscriber('spam@t3.test')).toMatchObject({ name: 'Spammer', status: 'blocklisted' });
    expect(await membership('spam@t3.test', a)).toBe('unsubscribed');
  });

  it('overwrite true: blocklists existing subscribers and unsubscribes all their memberships', async () => {
    expect((await start(csv, { mode: 'blocklist', lists: [a], overwrite: true })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 2, status: 'finished' });
    expect(await subscriber('keep@t3.test')).toMatchObject({ name: 'Keep Renamed', status: 'blocklisted' });
    expect(await membership('keep@t3.test', a)).toBe('unsubscribed');
    expect(await membership('keep@t3.test', other)).toBe('unsubscribed');
  });

  it('refuses a subscription status other than unsubscribed', async () => {
    const res = await start(csv, { mode: 'blocklist', subscription_status: 'confirmed' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('params.subscription_status: must be unsubscribed in blocklist mode (blocklisted subscribers are never subscribed)');
  });
});

describe('ZIP import', () => {
  it('imports the CSV inside a ZIP, ignoring other entries', async () => {
    const zip = await zipOf([['readme.txt', 'not this'], ['__MACOSX/._list.csv', 'junk'], ['export/list.csv', `email,name,attributes\n${rows('t4.test', 70)}\n`]]);
    const res = await start(zip, { mode: 'subscribe' }, 'export.zip');
    expect(res.status).toBe(200);
    expect(await waitDone()).toMatchObject({ name: 'export.zip', total: 70, imported: 70, status: 'finished' });
    expect(await countWhere('t4.test')).toBe(70);
    expect(await logs()).toContain('Importing export/list.csv from the ZIP file "export.zip"');
  });

  it('fails cleanly on a ZIP bomb that lies about its size, keeping nothing', async () => {
    const real = `email,name,attributes\n${rows('t5.test', 3000)}\n`;
    const zip = declareSize(await zipOf([['bomb.csv', real]]), 20_000);
    const res = await start(zip, { mode: 'subscribe' }, 'bomb.zip');
    expect(res.status).toBe(200);
    expect(await waitDone()).toMatchObject({ imported: 0, status: 'failed' });
    expect(await logs()).toMatch(/Failed after line 0: the CSV inflates beyond its declared size \(a ZIP bomb or a damaged ZIP file\)/);
    expect(await countWhere('t5.test')).toBe(0);
  });

  const refused: Array<[string, () => Promise<Buffer>, number, string | RegExp]> = [
    ['a ZIP without a CSV', () => zipOf([['notes.txt', 'x'], ['data/', '']]), 400, 'file: the ZIP file holds no .csv file'],
    ['a ZIP with a ../ entry', async () => renameEntry(await zipOf([['xx/evil.csv', 'email\na@b.test\n']]), 'xx/evil.csv', '../evil.csv'), 400, /^file: the ZIP file has an unsafe entry name \(invalid relative path: \.\.\/evil\.csv\)$/],
    ['a ZIP with an absolute entry path', async () => renameEntry(await zipOf([['xetc/a.csv', 'email\na@b.test\n']]), 'xetc/a.csv', '/etc/a.csv'), 400, /^file: the ZIP file has an unsafe entry name \(absolute path/],
    ['a damaged ZIP', async () => (await zipOf([['a.csv', 'email\n']])).subarray(0, 30), 400, /^file: is not a readable ZIP file/],
  ];
  for (const [what, make, status, message] of refused) {
    it(`refuses ${what}`, async () => {
      const res = await start(await make(), { mode: 'subscribe' }, 'upload.zip');
      expect(res.status).toBe(status);
      expect(res.body.message).toMatch(message);
      expect((await t.api('GET', '/api/import/subscribers')).body.data.status).toBe('none');
    });
  }

  it('answers 413 for a ZIP whose CSV inflates past import.max_file_size', async () => {
    await t.api('PUT', '/api/settings', { 'import.max_file_size': 64 * 1024 });
    try {
      const zip = await zipOf([['big.csv', `email\n${'x'.repeat(200_000)}\n`]]);
      expect(zip.length).toBeLessThan(64 * 1024);
      const res = await start(zip, { mode: 'subscribe' }, 'big.zip');
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('file: big.csv inflates to 200007 bytes, over the 64 KiB import limit (setting import.max_file_size)');
    } finally {
      await t.api('PUT', '/api/settings', { 'import.max_file_size': 1024 ** 3 });
    }
  });
});

describe('malformed files and bad requests', () => {
  it('fails cleanly on a CSV that breaks in the middle, keeping the batches before', async () => {
    // Far enough into the file that whole batches are written before the parser meets the bad quote.
    const csv = ['email,name,attributes', rows('t6.test', 12_000), 'broken@t6.test,"never closed,', rows('t6.test', 10, 12_000)].join('\n');
    expect((await start(csv, { mode: 'subscribe' })).status).toBe(200);
    const done = await waitDone();
    expect(done.status).toBe('failed');
    expect(done.imported).toBeGreaterThan(0);
    expect(done.imported).toBeLessThan(12_000);
    expect(done.imported % BATCH).toBe(0);
    expect(await countWhere('t6.test')).toBe(done.imported);
    // The unclosed quote on line 12002 runs into the next line, where the parser gives up.
    expect(await logs()).toMatch(new RegExp(`Failed after line ${done.imported + 1}: malformed CSV at line 1200[23]: `));
  });

  it('refuses a file whose first line is not CSV-readable', async () => {
    const res = await start('"email,name\na@b.test,A\n', { mode: 'subscribe' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('file: has no readable header row');
  });

  const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string | RegExp]> = [
    ['a header without an email column', () => start('mail,name\na@b.test,A\n', { mode: 'subscribe' }), 400, 'file: the header row has no "email" column (found: mail, name)'],
    ['a binary file', () => start(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), { mode: 'subscribe' }, 'a.csv'), 400, /^file: the header row has no "email" column/],
    ['an empty file', () => start('', { mode: 'subscribe' }), 400, 'file: is empty'],
    ['a .zip that is not a ZIP', () => start('email\na@b.test\n', { mode: 'subscribe' }, 'list.zip'), 400, 'file: is named .zip but is not a ZIP file'],
    ['a header with two email columns', () => start('email,Email\na@b.test,b@b.test\n', { mode: 'subscribe' }), 400, 'file: the header has two "email" columns'],
    ['missing params', () => post([{ name: 'file', filename: 'a.csv', content: 'email\na@b.test\n' }]), 400, 'params: is required: a JSON object such as {"mode": "subscribe"}'],
    ['malformed params', () => post([{ name: 'params', value: '{mode:' }, { name: 'file', filename: 'a.csv', content: 'email\n' }]), 400, /^params: malformed JSON/],
    ['params without mode', () => start('email\na@b.test\n', {}), 400, 'params.mode: is required'],
    ['an unknown mode', () => start('email\na@b.test\n', { mode: 'merge' }), 400, 'params.mode: must be one of subscribe, blocklist'],
    ['a two-character delimiter', () => start('email\na@b.test\n', { mode: 'subscribe', delim: ';;' }), 400, /^params\.delim: must NOT have more than 1 characters/],
    ['a quote as delimiter', () => start('email\na@b.test\n', { mode: 'subscribe', delim: '"' }), 400, 'params.delim: must be one character other than a double quote or a line break'],
    ['unknown lists', () => start('email\na@b.test\n', { mode: 'subscribe', lists: [999999] }), 400, 'params.lists: unknown list id(s): 999999'],
    ['list ids as strings', () => start('email\na@b.test\n', { mode: 'subscribe', lists: ['1'] }), 400, 'params.lists.0: must be integer'],
    ['no file', () => post([{ name: 'params', value: '{"mode":"subscribe"}' }]), 400, 'file: is required'],
    ['two files', () => post([{ name: 'params', value: '{"mode":"subscribe"}' }, { name: 'file', filename: 'a.csv', content: 'email\n' }, { name: 'file', filename: 'b.csv', content: 'email\n' }]), 400, 'file: send one file per import'],
  ];
  for (const [what, send, status, message] of cases) {
    it(`refuses ${what} and starts nothing`, async () => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.body.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
      expect((await t.api('GET', '/api/import/subscribers')).body.data.status).toBe('none');
      expect(await countWhere('b.test')).toBe(0);
      expect(readdirSync(join(dataDir, 'imports'))).toEqual([]);
    });
  }

  it('refuses a truncated upload with 400 and starts nothing', async () => {
    const { payload, contentType } = multipart([{ name: 'params', value: '{"mode":"subscribe"}' }, { name: 'file', filename: 'a.csv', content: `email,name,attributes\n${rows('b.test', 100)}\n` }]);
    const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload: payload.subarray(0, payload.length - 500), headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^body: malformed multipart\/form-data/);
    expect((await t.api('GET', '/api/import/subscribers')).body.data.status).toBe('none');
    expect(readdirSync(join(dataDir, 'imports'))).toEqual([]);
  });

  it('answers 413 past import.max_file_size, 415 for JSON and 401 without credentials', async () => {
    await t.api('PUT', '/api/settings', { 'import.max_file_size': 2048 });
    try {
      const res = await start(`email\n${rows('b.test', 200)}\n`, { mode: 'subscribe' });
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('file: larger than the 2 KiB import limit (setting import.max_file_size)');
    } finally {
      await t.api('PUT', '/api/settings', { 'import.max_file_size': 1024 ** 3 });
    }
    expect((await t.api('POST', '/api/import/subscribers', { mode: 'subscribe' })).status).toBe(415);
    const { payload, contentType } = multipart([{ name: 'params', value: '{"mode":"subscribe"}' }, { name: 'file', filename: 'a.csv', content: 'email\na@b.test\n' }]);
    expect((await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { 'content-type': contentType } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/import/subscribers' })).statusCode).toBe(401);
    expect(await countWhere('b.test')).toBe(0);
  });
});

describe('one import at a time, stopping, clearing', () => {
  it('answers 409 while an import runs, stops it on DELETE, and keeps exactly the committed batches', async () => {
    arm(2);
    expect((await start(`email,name,attributes\n${rows('t9.test', 6 * BATCH)}\n`, { mode: 'subscribe' })).status).toBe(200);
    await held!.reached; // batch 1 is written, batch 2 waits
    const second = await start('email\nother@t9.test\n', { mode: 'subscribe' });
    expect(second.status).toBe(409);
    expect(second.body.message).toBe('An import is already running. Wait for it to finish or stop it before trying again.');
    expect((await t.api('DELETE', '/api/import/subscribers')).body.data).toMatchObject({ status: 'stopping' });
    expect((await t.api('DELETE', '/api/import/subscribers')).body.data).toMatchObject({ status: 'stopping' });
    held!.release();
    const done = await waitDone();
    // The batch released after the stop request is the last one written.
    expect(done).toEqual({ name: 'subscribers.csv', total: 6 * BATCH, imported: 2 * BATCH, skipped: 0, status: 'finished' });
    expect(await countWhere('t9.test')).toBe(2 * BATCH);
    expect(await logs()).toContain(`Stopped on request after line ${2 * BATCH + 1}: ${2 * BATCH} rows imported, 0 skipped. The rest of the file was not imported.`);
    expect(await subscriber('other@t9.test')).toBeUndefined();
  });

  it('fails an import whose instance stopped sending heartbeats (another instance died)', async () => {
    await sql(`UPDATE imports SET run_id = '11111111-1111-1111-1111-111111111111', name = 'orphan.csv', status = 'importing', owner = 'dead-instance',
      imported = 20000, line = 20001, heartbeat_at = now() - interval '5 minutes' WHERE id = 1`);
    expect((await t.api('GET', '/api/import/subscribers')).body.data).toMatchObject({ name: 'orphan.csv', imported: 20000, status: 'failed' });
    expect(await logs()).toMatch(/Interrupted at line 20001: the server stopped \(restart or crash\) while it was importing\. 20000 rows imported/);
    // A live import's heartbeat is fresh, so it is left alone.
    await sql("UPDATE imports SET status = 'importing', owner = 'live-instance', heartbeat_at = now() WHERE id = 1");
    expect((await t.api('GET', '/api/import/subscribers')).body.data.status).toBe('importing');
    expect((await start('email\nx@t11.test\n', { mode: 'subscribe' })).status).toBe(409);
    await sql("UPDATE imports SET status = 'failed' WHERE id = 1");
  });

  it('a graceful shutdown ends a running import as failed after its last whole batch', async () => {
    let release: () => void = () => undefined;
    let reached: () => void = () => undefined;
    const atBatch2 = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (release = r));
    const other = await buildTestApp({
      env: { MAILROOM_DATA_DIR: dataDir },
      importer: { batchRows: BATCH, writers: 1, beforeFlush: async (n) => (n === 2 ? (reached(), gate) : undefined) },
    });
    try {
      const { payload, contentType } = multipart([{ name: 'params', value: '{"mode":"subscribe"}' }, { name: 'file', filename: 'shutdown.csv', content: `email,name,attributes\n${rows('t12.test', 4 * BATCH)}\n` }]);
      const res = await other.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
      expect(res.statusCode).toBe(200);
      await atBatch2;
      const closing = other.deps.close();
      release();
      await closing;
      const [state] = await other.testDb.db.sql<{ status: string; imported: number; line: number }>('SELECT status, imported, line FROM imports');
      expect(state).toEqual({ status: 'failed', imported: BATCH, line: BATCH + 1 });
      const [count] = await other.testDb.db.sql<{ n: number }>("SELECT count(*)::int AS n FROM subscribers WHERE email LIKE '%@t12.test'");
      expect(count?.n).toBe(BATCH);
      const log = await other.testDb.db.sql<{ message: string }>('SELECT message FROM import_logs ORDER BY id');
      expect(log.at(-1)?.message).toBe(`Interrupted after line ${BATCH + 1}: the server shut down. ${BATCH} rows imported, 0 skipped; they stay. Import the rest of the file again.`);
    } finally {
      await other.app.close();
      await other.testDb.destroy();
    }
  });

  it('DELETE clears a finished import and its log', async () => {
    expect((await start('email\nclear@t10.test\n', { mode: 'subscribe' })).status).toBe(200);
    expect(await waitDone()).toMatchObject({ status: 'finished', imported: 1 });
    expect(await logs()).not.toBe('');
    expect((await t.api('DELETE', '/api/import/subscribers')).body).toEqual({ data: { name: '', total: 0, imported: 0, skipped: 0, status: 'none' } });
    expect(await logs()).toBe('');
    expect(await subscriber('clear@t10.test')).toMatchObject({ status: 'enabled' });
  });
});
