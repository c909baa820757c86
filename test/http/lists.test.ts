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
