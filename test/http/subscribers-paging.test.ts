/**
 * Large subscriber pages over a real socket (issue 15 item 4, issue 14 finding 9): any positive
 * `per_page` is honoured (listmonk has no cap), `per_page=all` returns everything, and both are
 * streamed in batches from the database, byte for byte what smaller pages give. `query`, list filters
 * and order keep working; bad values are a 400 naming `per_page`. A failure once the answer has begun
 * aborts the connection (never a complete-looking 200), and a client that leaves releases the read.
 * 260 subscribers, read in batches of 100 (`app.batch_size`): three streamed batches.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';
import { seedList } from '../helpers/seed.js';

const N = 260;
const BATCH = 100;
let t: TestApp;
let base: string;
let listA: number;
let listB: number;

beforeAll(async () => {
  t = await buildTestApp({ settings: { 'app.message_rate': 0, 'app.batch_size': BATCH } });
  listA = await seedList(t.deps.db, N, 'page');
  // Every third subscriber is also an unsubscribed member of list B: memberships in the answers.
  [{ id: listB }] = (await t.deps.db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ('Paging B', 'public', 'double') RETURNING id")) as [{ id: number }];
  await t.deps.db.sql(`INSERT INTO subscriber_lists (subscriber_id, list_id, status) SELECT id, $1::int, 'unsubscribed' FROM subscribers WHERE (attribs->>'n')::int % 3 = 0`, [listB]);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await t.close();
});

/** GET `path` as a client sends it; the status, the raw body and the parsed one. */
async function get(path: string): Promise<{ status: number; text: string; body: any; type: string | null }> {
  const res = await fetch(base + path, { headers: { authorization: AUTH } });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text), type: res.headers.get('content-type') };
}

/** The raw JSON text of each result of an answer, in order (to compare answers byte for byte). */
const rawResults = (text: string): string[] => (JSON.parse(text).data.results as unknown[]).map((r) => JSON.stringify(r));

describe('large pages', () => {
  it('per_page=1000000 answers every subscriber, in the usual envelope', async () => {
    const res = await get('/api/subscribers?per_page=1000000');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json; charset=utf-8');
    expect(res.text.startsWith('{"data":{"results":[{')).toBe(true);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data)).toEqual(['results', 'query', 'search', 'total', 'per_page', 'page']);
    expect(res.body.data).toMatchObject({ query: '', search: '', total: N, per_page: 1_000_000, page: 1 });
    const ids = res.body.data.results.map((s: { id: number }) => s.id);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids); // id DESC, the default order
    const third = res.body.data.results.find((s: { attribs: { n: number } }) => s.attribs.n === 3);
    expect(third.lists.map((l: { id: number; subscription_status: string }) => [l.id, l.subscription_status]).sort()).toEqual([[listA, 'confirmed'], [listB, 'unsubscribed']].sort());
  });

  it('is byte for byte the concatenation of smaller pages, and per_page=all the same with per_page 0', async () => {
    const big = await get('/api/subscribers?per_page=1000000');
    const small = [];
    for (let page = 1; page <= 3; page++) small.push(...rawResults((await get(`/api/subscribers?per_page=${BATCH}&page=${page}`)).text));
    expect(rawResults(big.text)).toEqual(small);
    const all = await get('/api/subscribers?per_page=all');
    expect(all.body.data).toMatchObject({ total: N, per_page: 0, page: 1 });
    expect(rawResults(all.text)).toEqual(small);
    // The envelope after the results is exactly the small page's (same fields, same order).
    const twenty = await get('/api/subscribers?per_page=20');
    expect(rawResults(twenty.text)).toEqual(small.slice(0, 20));
    expect(twenty.text.slice(twenty.text.lastIndexOf(']'))).toBe(`],"query":"","search":"","total":${N},"per_page":20,"page":1}}`);
    expect(all.text.slice(all.text.lastIndexOf(']'))).toBe(`],"query":"","search":"","total":${N},"per_page":0,"page":1}}`);
  });

  it('keeps query, list and status filters, order and later pages', async () => {
    const even = await get(`/api/subscribers?per_page=all&query=${encodeURIComponent("(subscribers.attribs->>'n')::int % 2 = 0")}`);
    expect(even.body.data).toMatchObject({ total: N / 2, per_page: 0, query: "(subscribers.attribs->>'n')::int % 2 = 0" });
    expect(even.body.data.results).toHaveLength(N / 2);
    expect(even.body.data.results.every((s: { attribs: { n: number } }) => s.attribs.n % 2 === 0)).toBe(true);

    const inB = await get(`/api/subscribers?per_page=500&list_id=${listB}&subscription_status=unsubscribed&order_by=name&order=asc`);
    const expected = Math.floor(N / 3);
    expect(inB.body.data).toMatchObject({ total: expected, per_page: 500 });
    const names = inB.body.data.results.map((s: { name: string }) => s.name);
    expect(names).toHaveLength(expected);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));

    const ofList = await get(`/api/subscribers/lists/${listB}?per_page=all`);
    expect(ofList.body.data).toMatchObject({ total: expected, per_page: 0 });
    expect(ofList.body.data.results).toHaveLength(expected);

    const second = await get('/api/subscribers?per_page=150&page=2');
    expect(second.body.data).toMatchObject({ total: N, per_page: 150, page: 2 });
    expect(second.body.data.results).toHaveLength(N - 150);
    const far = await get('/api/subscribers?per_page=9007199254740991&page=1000000');
    expect(far.status).toBe(200);
    expect(far.body.data).toMatchObject({ results: [], total: N, per_page: 9007199254740991, page: 1000000 });
    expect((await get('/api/subscribers/lists/999999?per_page=all')).status).toBe(404);
  });

  it('refuses per_page 0, negative, fractional, non-numeric, empty or too large with 400 naming per_page', async () => {
    for (const value of ['0', '-1', '-5000', '1.5', 'abc', 'ALL', '', '1e3x', '9007199254740992']) {
      const res = await get(`/api/subscribers?per_page=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(res.body.message, value).toMatch(/^per_page: /);
    }
  });

  it('answers a refused query with a 400 before any row', async () => {
    const res = await get(`/api/subscribers?per_page=all&query=${encodeURIComponent('(SELECT password FROM users) IS NOT NULL')}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^query: /);
  });

  it('eight concurrent per_page=all answers are all complete', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => get('/api/subscribers?per_page=all')));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.data.results).toHaveLength(N);
    }
  });
});

/** Starts a GET and pauses after the first chunk; resolves with the paused response and its first bytes. */
function startPaused(path: string): Promise<{ res: import('node:http').IncomingMessage; first: string }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { authorization: AUTH } }, (res) => {
      res.once('data', (chunk: Buffer) => {
        res.pause();
        resolve({ res, first: chunk.toString() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads the rest of a response: its text, or the error that ended it. */
function finish(res: import('node:http').IncomingMessage): Promise<{ text: string; error: Error | null; complete: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => resolve({ text, error: null, complete: res.complete }));
    res.on('error', (error) => resolve({ text, error, complete: res.complete }));
    res.on('aborted', () => resolve({ text, error: new Error('aborted'), complete: false }));
    res.resume();
  });
}

describe('failures once the answer has begun', () => {
  const FAT = 10_000;
  const fatQuery = `query=${encodeURIComponent("subscribers.email LIKE 'fat%'")}`;
  beforeAll(async () => {
    // Rows of about 1 KB: the answer (about 12 MB) cannot all sit in socket buffers, so the reader
    // waits for a paused client with its cursor open.
    await t.deps.db.sql(
      `INSERT INTO subscribers (email, name, attribs) SELECT 'fat' || g || '@example.org', 'Fat ' || g, jsonb_build_object('pad', repeat('x', 1000)) FROM generate_series(1, $1::int) g`,
      [FAT],
    );
  });

  /** PostgreSQL: the backend of the streamed read, once it waits for the client with its cursor open. */
  async function waitingReader(): Promise<number> {
    for (let i = 0; i < 400; i++) {
      const rows = await t.deps.db.sql<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction' AND query LIKE 'FETCH FORWARD%'",
      );
      if (rows.length === 1) return rows[0]!.pid;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no streamed read waits for the client');
  }

  it('a client that leaves mid-answer releases the read at once: the next requests are answered', async () => {
    for (let i = 0; i < 3; i++) {
      const { res, first } = await startPaused(`/api/subscribers?per_page=all&${fatQuery}`);
      expect(res.statusCode).toBe(200);
      expect(first.startsWith('{"data":{"results":[')).toBe(true);
      if (storeKind === 'postgres') await waitingReader();
      res.destroy();
    }
    // On the embedded store a read still open would hold the only connection until the stall limit
    // (30 s): the next answer must come long before.
    const since = Date.now();
    expect((await get(`/api/subscribers?per_page=1&${fatQuery}`)).body.data.total).toBe(FAT);
    expect(Date.now() - since).toBeLessThan(15_000);
    expect((await get(`/api/subscribers?per_page=all&list_id=${listA}`)).body.data.results).toHaveLength(N);
  });

  it.runIf(storeKind === 'postgres')('a database failure mid-answer aborts the connection instead of ending a 200 early', async () => {
    const { res, first } = await startPaused(`/api/subscribers?per_page=all&${fatQuery}`);
    expect(res.statusCode).toBe(200);
    expect(first.startsWith('{"data":{"results":[')).toBe(true);
    await t.deps.db.sql('SELECT pg_terminate_backend($1)', [await waitingReader()]);
    const rest = await finish(res);
    expect(rest.complete).toBe(false);
    expect(rest.error).not.toBeNull();
    expect(() => JSON.parse(first + rest.text)).toThrow();
    // The server goes on answering (the pool replaces the lost connection).
    expect((await get(`/api/subscribers?per_page=1&${fatQuery}`)).body.data.total).toBe(FAT);
  });
});
