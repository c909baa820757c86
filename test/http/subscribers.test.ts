/**
 * Subscribers API, spec 4.1 (issue 3 §1, §5): create, get, the filtered collection (query, search,
 * list_id, subscription_status, order, paging), the subscribers of one list, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailsTo, waitForMailTo } from '../helpers/mail.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let single: number;
let double: number;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
  single = (await t.api('POST', '/api/lists', { name: 'Single', type: 'public', optin: 'single' })).body.data.id;
  double = (await t.api('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const emails = (res: { body: { data: { results: Array<{ email: string }> } } }) => res.body.data.results.map((s) => s.email);
/** The total the API reports, and the total of an equivalent filter that makes it count rows. */
async function totals(qs = ''): Promise<[number, number]> {
  const fast = (await t.api('GET', `/api/subscribers?per_page=1${qs}`)).body.data.total;
  const counted = (await t.api('GET', `/api/subscribers?per_page=1&query=${encodeURIComponent('subscribers.id > 0')}${qs}`)).body.data.total;
  return [fast, counted];
}

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

  it('sends one opt-in e-mail listing the double opt-in lists, linking the confirmation page', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: 'optin.create@example.com', name: 'Opt In', lists: [single, double] });
    const [mail] = await waitForMailTo(sink, 'optin.create@example.com');
    expect(mail!.parsed.subject).toBe('Confirm your subscription');
    expect(mail!.parsed.html).toContain('Double');
    expect(mail!.parsed.html).not.toContain('>Single<');
    const list = (await t.api('GET', `/api/lists/${double}`)).body.data;
    expect(mail!.parsed.html).toContain(`http://mailroom.test/subscription/optin/${(await t.api('GET', `/api/subscribers/${res.body.data.id}`)).body.data.uuid}?l=${list.uuid}`);
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'optin.create@example.com')).toHaveLength(1);
  });

  it('sends no opt-in e-mail when preconfirmed, for single opt-in lists only, or for a blocklisted subscriber', async () => {
    await t.api('POST', '/api/subscribers', { email: 'pre@example.com', lists: [double], preconfirm_subscriptions: true });
    await t.api('POST', '/api/subscribers', { email: 'single.only@example.com', lists: [single] });
    await t.api('POST', '/api/subscribers', { email: 'blocked.optin@example.com', lists: [double], status: 'blocklisted' });
    await t.deps.optinMailer.drain();
    for (const e of ['pre@example.com', 'single.only@example.com', 'blocked.optin@example.com']) expect(mailsTo(sink, e)).toHaveLength(0);
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
    const before = await totals();
    const res = await t.api('POST', '/api/subscribers', { email: 'DUP@example.com', name: 'b', lists: [single] });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/^email: /);
    expect(await totals()).toEqual(before);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['missing e-mail', { name: 'x' }, /^email: is required/],
    ['invalid e-mail', { email: 'not-an-email' }, /^email: is not a valid e-mail address/],
    ['two addresses', { email: 'a@x.org, b@x.org' }, /^email: is not a valid e-mail address/],
    ['display-name form', { email: 'Jane <jane@x.org>' }, /^email: must be a bare address/],
    ['e-mail too long', { email: `${'a'.repeat(990)}@example.com` }, /^email: /],
    ['e-mail over 1,000 bytes in few characters', { email: `${'é'.repeat(500)}@x.org` }, /^email: is longer than 1000 bytes/],
    ['unknown status', { email: 'a@x.org', status: 'active' }, /^status: must be one of enabled, disabled, blocklisted/],
    ['attribs not an object', { email: 'a@x.org', attribs: [1] }, /^attribs: must be object/],
    ['attribs too large', { email: 'a@x.org', attribs: { x: 'y'.repeat(70_000) } }, /^attribs: must be at most 65536 bytes/],
    ['name too long', { email: 'a@x.org', name: 'n'.repeat(2001) }, /^name: must be at most 2000 characters/],
    ['list ids not numbers', { email: 'a@x.org', lists: ['1'] }, /^lists\.0: must be integer/],
    ['unknown list', { email: 'a@x.org', lists: [999999] }, /^lists: unknown list id\(s\): 999999/],
    ['preconfirm not boolean', { email: 'a@x.org', preconfirm_subscriptions: 'yes' }, /^preconfirm_subscriptions: must be boolean/],
    ['a NUL character in the name', { email: 'a@x.org', name: 'a\u0000b' }, /^name: must not contain NUL characters/],
    ['a NUL character in attribs', { email: 'a@x.org', attribs: { deep: [{ k: 'a\u0000' }] } }, /^attribs\.deep\.0\.k: must not contain NUL characters/],
    ['a NUL character in an attribs key', { email: 'a@x.org', attribs: { 'k\u0000': 1 } }, /^attribs\.k\\0: must not contain NUL characters/],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what} with 400 and writes nothing`, async () => {
      const before = await totals();
      const res = await t.api('POST', '/api/subscribers', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await totals()).toEqual(before);
    });
  }

  it('accepts a name of exactly 2,000 characters and attribs of nested JSON', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: 'long.name@x.org', name: 'ü'.repeat(2000), attribs: { a: [1, { b: null }], t: true } });
    expect(res.status).toBe(200);
    expect([...res.body.data.name]).toHaveLength(2000);
  });
});

describe('GET /api/subscribers', () => {
  let a: number;
  let b: number;
  beforeAll(async () => {
    a = (await t.api('POST', '/api/lists', { name: 'A' })).body.data.id;
    b = (await t.api('POST', '/api/lists', { name: 'B' })).body.data.id;
    await t.api('POST', '/api/subscribers', { email: 'both@x.org', name: 'Zed Both', lists: [a, b], preconfirm_subscriptions: true, attribs: { city: 'Lisbon', age: 40 } });
    await t.api('POST', '/api/subscribers', { email: 'onlya@x.org', name: 'Amy Only', lists: [a], attribs: { city: 'Paris', age: 25 } });
    await t.api('POST', '/api/subscribers', { email: 'none@x.org', name: '100% Pure', attribs: { city: 'Lisbon' } });
  });

  it('pages newest first with total and echoes query and search', async () => {
    const res = await t.api('GET', '/api/subscribers?per_page=2');
    expect(res.body.data).toMatchObject({ per_page: 2, page: 1, query: '', search: '' });
    expect(res.body.data.results).toHaveLength(2);
    expect(res.body.data.results[0].id).toBeGreaterThan(res.body.data.results[1].id);
    const [fast, counted] = await totals();
    expect(res.body.data.total).toBe(fast);
    expect(fast).toBe(counted);
    const page2 = await t.api('GET', '/api/subscribers?per_page=2&page=2');
    expect(page2.body.data.results[0].id).toBeLessThan(res.body.data.results[1].id);
  });

  it('filters by any of several list_id, each subscriber once, total counted once', async () => {
    const res = await t.api('GET', `/api/subscribers?list_id=${a}&list_id=${b}&order_by=email&order=asc`);
    expect(res.body.data.total).toBe(2);
    expect(emails(res)).toEqual(['both@x.org', 'onlya@x.org']);
    expect(emails(await t.api('GET', `/api/subscribers?list_id=${b}`))).toEqual(['both@x.org']);
    expect(await totals(`&list_id=${a}`)).toEqual([2, 2]);
  });

  it('filters by subscription_status together with list_id (alone it is ignored)', async () => {
    const confirmed = await t.api('GET', `/api/subscribers?list_id=${a}&subscription_status=confirmed`);
    expect(emails(confirmed)).toEqual(['both@x.org']);
    expect(confirmed.body.data.total).toBe(1);
    expect(await totals(`&list_id=${a}&subscription_status=unconfirmed`)).toEqual([1, 1]);
    const alone = await t.api('GET', '/api/subscribers?subscription_status=confirmed&per_page=1');
    expect(alone.body.data.total).toBe((await totals())[0]);
  });

  it('searches name or e-mail case-insensitively as a literal substring', async () => {
    const res = await t.api('GET', '/api/subscribers?search=%20AMY%20ONLY%20&order_by=email&order=asc');
    expect(emails(res)).toEqual(['onlya@x.org']);
    expect(res.body.data).toMatchObject({ search: 'AMY ONLY', total: 1 });
    expect(emails(await t.api('GET', '/api/subscribers?search=100%25'))).toEqual(['none@x.org']);
    expect(emails(await t.api('GET', '/api/subscribers?search=x.org&order_by=email&order=asc'))).toContain('both@x.org');
    expect((await t.api('GET', '/api/subscribers?search=_')).body.data.total).toBe(0);
  });

  it('filters with an SQL expression and echoes it normalised', async () => {
    const q = encodeURIComponent("  subscribers.attribs->>'city' = 'Lisbon';  ");
    const res = await t.api('GET', `/api/subscribers?query=${q}&order_by=email&order=asc`);
    expect(res.status).toBe(200);
    expect(emails(res)).toEqual(['both@x.org', 'none@x.org']);
    expect(res.body.data).toMatchObject({ query: "subscribers.attribs->>'city' = 'Lisbon'", total: 2 });
    const older = encodeURIComponent("subscribers.created_at > now() - interval '7 days' AND (subscribers.attribs->>'age')::int > 30");
    expect(emails(await t.api('GET', `/api/subscribers?query=${older}`))).toEqual(['both@x.org']);
  });

  it('combines query, search and lists; subscription columns are usable with a list filter', async () => {
    const q = encodeURIComponent("subscriber_lists.status = 'unconfirmed'");
    expect(emails(await t.api('GET', `/api/subscribers?list_id=${a}&query=${q}`))).toEqual(['onlya@x.org']);
    const both = encodeURIComponent("subscribers.attribs->>'city' = 'Lisbon'");
    expect(emails(await t.api('GET', `/api/subscribers?list_id=${a}&list_id=${b}&query=${both}&search=zed`))).toEqual(['both@x.org']);
    const refused = await t.api('GET', `/api/subscribers?query=${q}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^query: .*only be used when filtering by list/);
  });

  it('orders by every allowed column in both directions', async () => {
    for (const column of ['id', 'email', 'name', 'status', 'created_at', 'updated_at']) {
      const asc = (await t.api('GET', `/api/subscribers?order_by=${column}&order=asc&per_page=all`)).body.data.results;
      const desc = (await t.api('GET', `/api/subscribers?order_by=${column}&order=DESC&per_page=all`)).body.data.results;
      expect(desc.map((s: { id: number }) => s.id)).toEqual(asc.map((s: { id: number }) => s.id).reverse());
    }
    const byName = (await t.api('GET', '/api/subscribers?order_by=name&order=asc&per_page=all')).body.data.results.map((s: { name: string }) => s.name);
    expect(byName).toEqual([...byName].sort((x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)));
  });

  it('refuses bad filters with 400 naming the parameter', async () => {
    expect((await t.api('GET', '/api/subscribers?list_id=abc')).body.message).toMatch(/^list_id/);
    expect((await t.api('GET', '/api/subscribers?order_by=password')).body.message).toMatch(/^order_by: must be one of id, email, name, status, created_at, updated_at/);
    expect((await t.api('GET', '/api/subscribers?subscription_status=gone')).body.message).toMatch(/^subscription_status: must be one of unconfirmed, confirmed, unsubscribed/);
    expect((await t.api('GET', '/api/subscribers?order=sideways')).status).toBe(400);
    expect((await t.api('GET', '/api/subscribers?search=a%00b')).body.message).toBe('search: must not contain NUL characters');
    const sub = await t.api('GET', `/api/subscribers?query=${encodeURIComponent('subscribers.id IN (SELECT id FROM users)')}`);
    expect(sub).toMatchObject({ status: 400, body: { message: 'query: table "users" is not allowed in a sub-select (allowed: campaign_views, link_clicks, links, bounces, subscriber_lists, lists, campaigns)' } });
  });
});

describe('maintained totals', () => {
  it('stay exact when subscribers are created, subscribed and deleted concurrently', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Busy' })).body.data.id;
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => t.api('POST', '/api/subscribers', { email: `busy${i}@x.org`, lists: [list] })));
    const ids = created.map((r) => r.body.data.id as number);
    await Promise.all([
      ...ids.slice(0, 8).map((id) => t.api('DELETE', `/api/subscribers/${id}`)),
      t.api('DELETE', `/api/subscribers?id=${ids[8]}&id=${ids[9]}`),
      t.api('POST', '/api/subscribers/query/delete', { query: `subscribers.id = ${ids[10]}` }),
      ...Array.from({ length: 6 }, (_, i) => t.api('POST', '/api/subscribers', { email: `busy.late${i}@x.org`, lists: [list] })),
      t.api('POST', '/api/public/subscription', { email: 'busy.public@x.org', list_uuids: [(await t.api('GET', `/api/lists/${list}`)).body.data.uuid] }),
    ]);
    const [fast, counted] = await totals();
    expect(fast).toBe(counted);
    expect(await totals(`&list_id=${list}`)).toEqual([24 - 11 + 6, 24 - 11 + 6]);
    expect((await t.api('GET', `/api/lists/${list}`)).body.data.subscriber_count).toBe(24 - 11 + 6);
  });

  it('fold their deltas so the total stays cheap to read, and exact', async () => {
    for (let i = 0; i < 1100; i++) await t.testDb.db.sql('INSERT INTO subscribers (email, name) VALUES ($1, $2)', [`fold${i}@x.org`, 'f']);
    await t.testDb.db.sql("DELETE FROM subscribers WHERE email LIKE 'fold1%'");
    const [rows] = await t.testDb.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM subscriber_totals');
    expect(rows!.n).toBeLessThan(700);
    const [fast, counted] = await totals();
    expect(fast).toBe(counted);
  });
});

describe('GET /api/subscribers/lists/:id', () => {
  it('answers the subscribers of one list in the same shape, with the same parameters', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Members' })).body.data.id;
    await t.api('POST', '/api/subscribers', { email: 'm1@x.org', lists: [list], attribs: { n: 1 } });
    await t.api('POST', '/api/subscribers', { email: 'm2@x.org', lists: [list], attribs: { n: 2 }, preconfirm_subscriptions: true });
    const res = await t.api('GET', `/api/subscribers/lists/${list}?order_by=email&order=asc`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 2, page: 1, per_page: 20, query: '', search: '' });
    expect(emails(res)).toEqual(['m1@x.org', 'm2@x.org']);
    expect(res.body.data.results[0].lists[0]).toMatchObject({ id: list, subscription_status: 'unconfirmed' });
    expect(emails(await t.api('GET', `/api/subscribers/lists/${list}?subscription_status=confirmed`))).toEqual(['m2@x.org']);
    const q = encodeURIComponent("(subscribers.attribs->>'n')::int = 1");
    expect(emails(await t.api('GET', `/api/subscribers/lists/${list}?query=${q}`))).toEqual(['m1@x.org']);
    expect(emails(await t.api('GET', `/api/subscribers/lists/${list}?search=m2`))).toEqual(['m2@x.org']);
  });

  it('answers 404 for an unknown list and 400 for a bad id', async () => {
    expect(await t.api('GET', '/api/subscribers/lists/999999')).toMatchObject({ status: 404, body: { message: 'list 999999 not found' } });
    expect((await t.api('GET', '/api/subscribers/lists/abc')).status).toBe(400);
  });
});

describe('GET /api/subscribers/:id', () => {
  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expect(await t.api('GET', '/api/subscribers/999999')).toMatchObject({ status: 404, body: { message: 'subscriber 999999 not found' } });
    expect((await t.api('GET', '/api/subscribers/0')).body.message).toMatch(/^id: /);
  });
});

describe('DELETE /api/subscribers', () => {
  it('deletes one (404 when unknown) and several by id; the total follows', async () => {
    const ids = [];
    for (const e of ['d1@x.org', 'd2@x.org', 'd3@x.org']) ids.push((await t.api('POST', '/api/subscribers', { email: e, lists: [single] })).body.data.id);
    const [before] = await totals();
    const listBefore = (await t.api('GET', `/api/lists/${single}`)).body.data.subscriber_count;
    expect((await t.api('DELETE', `/api/subscribers/${ids[0]}`)).body).toEqual({ data: true });
    expect((await t.api('DELETE', `/api/subscribers/${ids[0]}`)).status).toBe(404);
    expect((await t.api('DELETE', `/api/subscribers?id=${ids[1]}&id=${ids[2]}&id=999999`)).body).toEqual({ data: true });
    expect((await t.api('GET', `/api/subscribers/${ids[2]}`)).status).toBe(404);
    expect(await totals()).toEqual([before - 3, before - 3]);
    expect((await t.api('GET', `/api/lists/${single}`)).body.data.subscriber_count).toBe(listBefore - 3);
    expect((await t.api('DELETE', '/api/subscribers')).body.message).toMatch(/^id: is required/);
    expect((await t.api('DELETE', '/api/subscribers?id=x')).status).toBe(400);
  });
});
