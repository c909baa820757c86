/**
 * Lists API, spec 4.2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|[+-]\d{2}:\d{2})$/;

describe('POST /api/lists', () => {
  it('creates a list and answers it in the envelope', async () => {
    const res = await t.api('POST', '/api/lists', { name: '  Weekly news ', type: 'public', optin: 'double', tags: ['news letter', 'news letter', ' x '] });
    expect(res.status).toBe(200);
    const list = res.body.data;
    expect(list).toMatchObject({ name: 'Weekly news', type: 'public', optin: 'double', status: 'active', tags: ['news-letter', 'x'], subscriber_count: 0, subscriber_statuses: {}, description: '' });
    expect(list.id).toBeGreaterThan(0);
    expect(list.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(list.created_at).toMatch(ISO);
    expect(list.updated_at).toMatch(ISO);
  });

  it("defaults type and optin like listmonk", async () => {
    const res = await t.api('POST', '/api/lists', { name: 'Defaults' });
    expect(res.body.data).toMatchObject({ type: 'private', optin: 'single' });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['missing name', { type: 'public', optin: 'single' }, /^name: is required/],
    ['empty name', { name: '' }, /^name: /],
    ['blank name', { name: '   ' }, /^name: must not be blank/],
    ['long name', { name: 'x'.repeat(2001) }, /^name: /],
    ['wrong type for name', { name: 12 }, /^name: must be string/],
    ['unknown type', { name: 'a', type: 'secret' }, /^type: must be one of public, private, temporary/],
    ['unknown optin', { name: 'a', optin: 'triple' }, /^optin: must be one of single, double/],
    ['tags not an array', { name: 'a', tags: 'x' }, /^tags: must be array/],
    ['body not an object', [1, 2], /^body: must be object/],
    ['a NUL character in the name', { name: 'a\u0000' }, /^name: must not contain NUL characters/],
    ['a NUL character in a tag', { name: 'a', tags: ['x\u0000'] }, /^tags\.0: must not contain NUL characters/],
    ['a NUL character in the description', { name: 'a', description: 'x\u0000' }, /^description: must not contain NUL characters/],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what} with 400`, async () => {
      const res = await t.api('POST', '/api/lists', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });
  }
});

describe('GET, PUT, DELETE /api/lists/:id', () => {
  it('gets, updates only the given fields, and deletes', async () => {
    const { body } = await t.api('POST', '/api/lists', { name: 'Edit me', type: 'private', optin: 'single', tags: ['a'] });
    const id = body.data.id;
    expect((await t.api('GET', `/api/lists/${id}`)).body.data.name).toBe('Edit me');
    const upd = await t.api('PUT', `/api/lists/${id}`, { optin: 'double' });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ name: 'Edit me', optin: 'double', type: 'private', tags: ['a'] });
    expect(Date.parse(upd.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(body.data.updated_at));
    expect((await t.api('DELETE', `/api/lists/${id}`)).body).toEqual({ data: true });
    const gone = await t.api('GET', `/api/lists/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: `list ${id} not found` });
  });

  it('accepts a multipart form update (listmonk admin UI)', async () => {
    const { body } = await t.api('POST', '/api/lists', { name: 'Form list' });
    const boundary = '----mailroom';
    const payload = [`--${boundary}`, 'Content-Disposition: form-data; name="name"', '', 'Renamed by form', `--${boundary}`, 'Content-Disposition: form-data; name="tags"', '', 'one', `--${boundary}--`, ''].join('\r\n');
    const res = await t.api('PUT', `/api/lists/${body.data.id}`, payload, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed by form', tags: ['one'] });
  });

  it('answers 404 for unknown ids on every verb', async () => {
    expect((await t.api('GET', '/api/lists/999999')).status).toBe(404);
    expect((await t.api('PUT', '/api/lists/999999', { name: 'x' })).status).toBe(404);
    expect((await t.api('DELETE', '/api/lists/999999')).status).toBe(404);
  });

  it('refuses bad update values', async () => {
    const { body } = await t.api('POST', '/api/lists', { name: 'Keep' });
    const res = await t.api('PUT', `/api/lists/${body.data.id}`, { type: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^type: must be one of/);
    expect((await t.api('GET', `/api/lists/${body.data.id}`)).body.data.type).toBe('private');
  });
});

describe('GET /api/lists', () => {
  it('searches by name case-insensitively, literally, and filters', async () => {
    await t.api('POST', '/api/lists', { name: 'Alpha 100%', type: 'public', optin: 'single', tags: ['t1'] });
    await t.api('POST', '/api/lists', { name: 'alphabet', type: 'private', optin: 'double', tags: ['t1', 't2'] });
    const names = async (qs: string) => (await t.api('GET', `/api/lists?per_page=all&${qs}`)).body.data.results.map((l: { name: string }) => l.name).sort();
    expect(await names('query=ALPHA')).toEqual(['Alpha 100%', 'alphabet']);
    expect(await names('query=100%25')).toEqual(['Alpha 100%']);
    expect(await names('query=_')).toEqual([]);
    expect(await names('query=alpha&type=private')).toEqual(['alphabet']);
    expect(await names('query=alpha&optin=single')).toEqual(['Alpha 100%']);
    expect(await names('tag=t1&tag=t2')).toEqual(['alphabet']);
  });

  it('counts subscriptions per status', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Counted' })).body.data;
    for (let i = 0; i < 3; i++) await t.api('POST', '/api/subscribers', { email: `c${i}@x.org`, name: 'c', lists: [list.id], preconfirm_subscriptions: i === 0 });
    const got = (await t.api('GET', `/api/lists/${list.id}`)).body.data;
    expect(got.subscriber_count).toBe(3);
    expect(got.subscriber_statuses).toEqual({ confirmed: 1, unconfirmed: 2 });
    const sorted = (await t.api('GET', '/api/lists?order_by=subscriber_count&order=desc&per_page=1')).body.data.results;
    expect(sorted[0].id).toBe(list.id);
  });
});

describe('lists: paging, ordering, bulk delete and maintained counts', () => {
  it('pages with total, honours per_page=all and minimal, and orders by every allowed column', async () => {
    for (let i = 0; i < 5; i++) await t.api('POST', '/api/lists', { name: `Paged ${i}`, tags: ['paged'] });
    const first = (await t.api('GET', '/api/lists?tag=paged&per_page=2&order_by=name&order=asc')).body.data;
    expect(first).toMatchObject({ total: 5, per_page: 2, page: 1 });
    expect(first.results.map((l: { name: string }) => l.name)).toEqual(['Paged 0', 'Paged 1']);
    const third = (await t.api('GET', '/api/lists?tag=paged&per_page=2&page=3&order_by=name&order=asc')).body.data;
    expect(third.results.map((l: { name: string }) => l.name)).toEqual(['Paged 4']);
    const past = (await t.api('GET', '/api/lists?tag=paged&per_page=2&page=9')).body.data;
    expect(past).toMatchObject({ results: [], total: 5 });
    const all = (await t.api('GET', '/api/lists?tag=paged&per_page=all')).body.data;
    expect(all).toMatchObject({ total: 5, per_page: 0 });
    expect(all.results).toHaveLength(5);
    const minimal = (await t.api('GET', '/api/lists?tag=paged&minimal=true')).body.data;
    expect(minimal).toMatchObject({ total: 5, per_page: 5, page: 1 });
    for (const column of ['id', 'name', 'type', 'optin', 'status', 'created_at', 'updated_at', 'subscriber_count']) {
      const asc = (await t.api('GET', `/api/lists?tag=paged&order_by=${column}&order=asc`)).body.data.results.map((l: { id: number }) => l.id);
      const desc = (await t.api('GET', `/api/lists?tag=paged&order_by=${column}&order=desc`)).body.data.results.map((l: { id: number }) => l.id);
      expect(desc, column).toEqual([...asc].reverse());
    }
  });

  it('refuses bad paging and ordering with 400 naming the parameter', async () => {
    expect((await t.api('GET', '/api/lists?order_by=secret')).body.message).toMatch(/^order_by: must be one of id, name, type, optin, status, created_at, updated_at, subscriber_count/);
    expect((await t.api('GET', '/api/lists?per_page=0')).body.message).toMatch(/^per_page: /);
    expect((await t.api('GET', '/api/lists?page=0')).body.message).toMatch(/^page: /);
    expect((await t.api('GET', '/api/lists?type=secret')).body.message).toMatch(/^type: must be one of public, private, temporary/);
    expect((await t.api('GET', '/api/lists?query=a%00')).body.message).toBe('query: must not contain NUL characters');
    expect((await t.api('GET', '/api/lists?tag=a%00')).body.message).toBe('tag.0: must not contain NUL characters');
  });

  it('accepts a name of exactly 2,000 characters and refuses 2,001', async () => {
    expect((await t.api('POST', '/api/lists', { name: 'ñ'.repeat(2000) })).status).toBe(200);
    expect((await t.api('POST', '/api/lists', { name: 'ñ'.repeat(2001) })).status).toBe(400);
  });

  it('deletes several lists by ?id=, keeping their subscribers', async () => {
    const ids = [];
    for (const name of ['Del 1', 'Del 2']) ids.push((await t.api('POST', '/api/lists', { name })).body.data.id);
    const sub = (await t.api('POST', '/api/subscribers', { email: 'kept@lists.test', lists: ids })).body.data.id;
    expect((await t.api('DELETE', `/api/lists?id=${ids[0]}&id=${ids[1]}&id=999999`)).body).toEqual({ data: true });
    for (const id of ids) expect((await t.api('GET', `/api/lists/${id}`)).status).toBe(404);
    expect((await t.api('GET', `/api/subscribers/${sub}`)).body.data.lists).toEqual([]);
    expect((await t.api('DELETE', '/api/lists')).body.message).toMatch(/^id: is required/);
  });

  it('keeps subscriber_count and subscriber_statuses exact through every subscriber change', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Exact', optin: 'double' })).body.data.id;
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await t.api('POST', '/api/subscribers', { email: `exact${i}@lists.test`, lists: [list] })).body.data.id);
    const counts = async () => (await t.api('GET', `/api/lists/${list}`)).body.data;
    expect(await counts()).toMatchObject({ subscriber_count: 4, subscriber_statuses: { unconfirmed: 4 } });
    await t.api('PUT', '/api/subscribers/lists', { ids: [ids[0]], action: 'add', target_list_ids: [list], status: 'confirmed' });
    await t.api('PUT', `/api/subscribers/${ids[1]}/blocklist`);
    await t.api('DELETE', `/api/subscribers/${ids[2]}`);
    expect(await counts()).toMatchObject({ subscriber_count: 3, subscriber_statuses: { confirmed: 1, unsubscribed: 1, unconfirmed: 1 } });
    await t.api('PUT', '/api/subscribers/lists', { ids: [ids[3]], action: 'remove', target_list_ids: [list] });
    await t.api('PATCH', `/api/subscribers/${ids[0]}`, { lists: [] });
    expect(await counts()).toMatchObject({ subscriber_count: 1, subscriber_statuses: { unsubscribed: 1 } });
    const listed = (await t.api('GET', `/api/subscribers?list_id=${list}&per_page=1`)).body.data.total;
    expect(listed).toBe(1);
  });
});
