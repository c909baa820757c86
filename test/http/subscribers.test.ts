/**
 * Subscribers API, the foundation subset of spec 4.1: create, get, list (paging, list_id), delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let single: number;
let double: number;
beforeAll(async () => {
  t = await buildTestApp();
  single = (await t.api('POST', '/api/lists', { name: 'Single', type: 'public', optin: 'single' })).body.data.id;
  double = (await t.api('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
});
afterAll(async () => t.close());

describe('POST /api/subscribers', () => {
  it('creates a subscriber: e-mail lower-cased, lists as ids, memberships unconfirmed', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: ' Jane.Doe@Example.COM ', name: 'Jane Doe', status: 'enabled', lists: [double, single], attribs: { city: 'Berlin', plan: { tier: 'pro' } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ email: 'jane.doe@example.com', name: 'Jane Doe', status: 'enabled', lists: [single, double], attribs: { city: 'Berlin', plan: { tier: 'pro' } } });
    const got = (await t.api('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    expect(got.lists.map((l: { id: number; subscription_status: string }) => [l.id, l.subscription_status])).toEqual([[single, 'unconfirmed'], [double, 'unconfirmed']]);
    expect(got.lists[0]).toMatchObject({ name: 'Single', type: 'public', optin: 'single', tags: [] });
    expect(got.lists[0].subscription_created_at).toMatch(/^\d{4}-/);
  });

  it('confirms memberships with preconfirm_subscriptions and derives a missing name', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: 'john.smith@example.com', lists: [double], preconfirm_subscriptions: true });
    expect(res.body.data).toMatchObject({ name: 'John Smith', status: 'enabled' });
    const got = (await t.api('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    expect(got.lists[0].subscription_status).toBe('confirmed');
  });

  it('gives a blocklisted subscriber unsubscribed memberships', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: 'blocked@example.com', status: 'blocklisted', lists: [single] });
    const got = (await t.api('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    expect(got.lists[0].subscription_status).toBe('unsubscribed');
  });

  it('answers 409 for a duplicate e-mail in any letter case, and writes nothing', async () => {
    await t.api('POST', '/api/subscribers', { email: 'dup@example.com', name: 'a' });
    const res = await t.api('POST', '/api/subscribers', { email: 'DUP@example.com', name: 'b', lists: [single] });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/^email: /);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['missing e-mail', { name: 'x' }, /^email: is required/],
    ['invalid e-mail', { email: 'not-an-email' }, /^email: is not a valid e-mail address/],
    ['display-name form', { email: 'Jane <jane@x.org>' }, /^email: must be a bare address/],
    ['e-mail too long', { email: `${'a'.repeat(990)}@example.com` }, /^email: /],
    ['unknown status', { email: 'a@x.org', status: 'active' }, /^status: must be one of enabled, disabled, blocklisted/],
    ['attribs not an object', { email: 'a@x.org', attribs: [1] }, /^attribs: must be object/],
    ['attribs too large', { email: 'a@x.org', attribs: { x: 'y'.repeat(70_000) } }, /^attribs: must be at most 65536 bytes/],
    ['name too long', { email: 'a@x.org', name: 'n'.repeat(2001) }, /^name: must be at most 2000 characters/],
    ['list ids not numbers', { email: 'a@x.org', lists: ['1'] }, /^lists\.0: must be integer/],
    ['unknown list', { email: 'a@x.org', lists: [999999] }, /^lists: unknown list id\(s\): 999999/],
    ['preconfirm not boolean', { email: 'a@x.org', preconfirm_subscriptions: 'yes' }, /^preconfirm_subscriptions: must be boolean/],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what} with 400 and writes nothing`, async () => {
      const before = (await t.api('GET', '/api/subscribers?per_page=1')).body.data.total;
      const res = await t.api('POST', '/api/subscribers', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect((await t.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(before);
    });
  }
});

describe('GET /api/subscribers', () => {
  it('pages newest first with total and echoes query', async () => {
    const res = await t.api('GET', '/api/subscribers?per_page=2');
    expect(res.body.data).toMatchObject({ per_page: 2, page: 1, query: '', search: '' });
    expect(res.body.data.results).toHaveLength(2);
    expect(res.body.data.results[0].id).toBeGreaterThan(res.body.data.results[1].id);
    expect(res.body.data.total).toBeGreaterThanOrEqual(4);
  });

  it('filters by any of several list_id, each subscriber once', async () => {
    const a = (await t.api('POST', '/api/lists', { name: 'A' })).body.data.id;
    const b = (await t.api('POST', '/api/lists', { name: 'B' })).body.data.id;
    await t.api('POST', '/api/subscribers', { email: 'both@x.org', lists: [a, b] });
    await t.api('POST', '/api/subscribers', { email: 'onlya@x.org', lists: [a] });
    await t.api('POST', '/api/subscribers', { email: 'none@x.org' });
    const res = await t.api('GET', `/api/subscribers?list_id=${a}&list_id=${b}&order_by=email&order=asc`);
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.results.map((s: { email: string }) => s.email)).toEqual(['both@x.org', 'onlya@x.org']);
    const one = await t.api('GET', `/api/subscribers?list_id=${b}`);
    expect(one.body.data.results.map((s: { email: string }) => s.email)).toEqual(['both@x.org']);
  });

  it('refuses bad filters with 400', async () => {
    expect((await t.api('GET', '/api/subscribers?list_id=abc')).body.message).toMatch(/^list_id/);
    expect((await t.api('GET', '/api/subscribers?order_by=password')).body.message).toMatch(/^order_by: must be one of/);
  });
});

describe('DELETE /api/subscribers', () => {
  it('deletes one (404 when unknown) and several by id', async () => {
    const ids = [];
    for (const e of ['d1@x.org', 'd2@x.org', 'd3@x.org']) ids.push((await t.api('POST', '/api/subscribers', { email: e, lists: [single] })).body.data.id);
    expect((await t.api('DELETE', `/api/subscribers/${ids[0]}`)).body).toEqual({ data: true });
    expect((await t.api('DELETE', `/api/subscribers/${ids[0]}`)).status).toBe(404);
    expect((await t.api('DELETE', `/api/subscribers?id=${ids[1]}&id=${ids[2]}`)).body).toEqual({ data: true });
    expect((await t.api('GET', `/api/subscribers/${ids[2]}`)).status).toBe(404);
    expect((await t.api('DELETE', '/api/subscribers')).status).toBe(400);
    expect((await t.api('DELETE', '/api/subscribers?id=x')).status).toBe(400);
  });
});
