/**
 * Maintenance API (listmonk's Settings → Maintenance; issue 16), on both stores: deleting orphan and
 * blocklisted subscribers, unconfirmed opt-in subscriptions and old views/clicks, in batches smaller
 * than the data (app.batch_size 3), with the maintained totals (subscriber total, list counts) equal
 * to a fresh COUNT afterwards; the views/clicks CSV export; and bad input answered 400 naming the field.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../src/modules/users/service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let double = 0;
let single = 0;
let campaign = 0;
const id: Record<string, number> = {};

async function sql<R = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
  return t.testDb.db.sql<R>(text, params);
}

/** The maintained totals next to what a COUNT says now. */
async function totals() {
  const api = (await t.api('GET', '/api/subscribers?per_page=1')).body.data.total as number;
  const [{ n }] = (await sql<{ n: number }>('SELECT count(*)::int AS n FROM subscribers')) as [{ n: number }];
  const lists = (await t.api('GET', '/api/lists?per_page=all')).body.data.results as Array<{ id: number; subscriber_count: number }>;
  const counted = await sql<{ list_id: number; n: number }>('SELECT list_id, count(*)::int AS n FROM subscriber_lists GROUP BY list_id');
  return {
    api, n,
    lists: Object.fromEntries(lists.map((l) => [l.id, l.subscriber_count])),
    counted: Object.fromEntries(lists.map((l) => [l.id, counted.find((c) => c.list_id === l.id)?.n ?? 0])),
  };
}

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' }, settings: { 'app.batch_size': 3, 'app.send_optin_confirmation': false } });
  double = (await t.api('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
  single = (await t.api('POST', '/api/lists', { name: 'Single', type: 'public', optin: 'single' })).body.data.id;
  const people: Array<[string, number[], string]> = [
    ['ann', [double], 'enabled'], ['bob', [single], 'enabled'], ['cat', [double, single], 'enabled'],
    ['dan', [single], 'blocklisted'], ['eve', [], 'blocklisted'],
    ...Array.from({ length: 8 }, (_, i) => [`orphan${i}`, [], 'enabled'] as [string, number[], string]),
  ];
  for (const [name, lists, status] of people) {
    const res = await t.api('POST', '/api/subscribers', { email: `${name}@example.com`, name, lists, status });
    expect(res.status, name).toBe(200);
    id[name] = res.body.data.id;
  }
  campaign = (await t.api('POST', '/api/campaigns', { name: 'Spring, "sale"', subject: 'Spring', lists: [single], content_type: 'html', body: '<p>x</p>' })).body.data.id;
  await sql("UPDATE subscribers SET name = '=2+3' WHERE id = $1", [id['bob']]);
  const [link] = await sql<{ id: number }>("INSERT INTO links (url) VALUES ('https://shop.example/pricing') RETURNING id");
  await sql(`INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
    ($1, $2, '2025-01-01T00:00:00Z'), ($1, $3, '2025-01-02T00:00:00Z'), ($1, NULL, '2025-06-01T00:00:00Z'), ($1, $2, '2026-01-01T00:00:00Z')`,
  [campaign, id['ann'], id['bob']]);
  await sql(`INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES
    ($1, $2, $3, '2025-01-01T00:00:00Z'), ($1, $2, NULL, '2026-01-01T00:00:00Z')`, [campaign, link!.id, id['ann']]);
}, 120_000);
afterAll(async () => t?.close());

describe('maintenance: exports', () => {
  it('streams views from `since` as CSV with listmonk\'s columns, guarded against formulas', async () => {
    const res = await t.api('GET', '/api/maintenance/analytics/views/export?since=2025-01-02T00:00:00Z');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="campaign_views.csv"');
    const lines = (res.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe('campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,created_at');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(new RegExp(`^${campaign},[0-9a-f-]{36},"Spring, ""sale""",${id['bob']},[0-9a-f-]{36},bob@example.com,'=2\\+3,2025-01-02T00:00:00.000Z$`));
    expect(lines[2]).toMatch(new RegExp(`^${campaign},[0-9a-f-]{36},"Spring, ""sale""",0,,,,2025-06-01T00:00:00.000Z$`));
  });

  it('streams clicks in [since, until) with the URL', async () => {
    const res = await t.api('GET', '/api/maintenance/analytics/clicks/export?since=2024-01-01&until=2025-12-31');
    expect(res.status).toBe(200);
    const lines = (res.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe('campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,url,created_at');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,ann@example.com,ann,https://shop.example/pricing,2025-01-01T00:00:00.000Z`);
  });

  it('refuses bad types and dates with 400 naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/api/maintenance/analytics/bounces/export?since=2025-01-01', /type/],
      ['/api/maintenance/analytics/all/export?since=2025-01-01', /type/],
      ['/api/maintenance/analytics/views/export', /^since: is required/],
      ['/api/maintenance/analytics/views/export?since=', /^since: is required/],
      ['/api/maintenance/analytics/views/export?since=yesterday', /^since: must be an RFC 3339 timestamp/],
      ['/api/maintenance/analytics/views/export?since=2025-02-30', /^since: .*not a real date/],
      ['/api/maintenance/analytics/views/export?since=2025-01-01T25:00:00Z', /^since: .*not a real date/],
      ['/api/maintenance/analytics/views/export?since=2025-01-02&until=2025-01-01', /^until: must not be before since/],
      ['/api/maintenance/analytics/views/export?since=2025-01-01&until=null', /^until: must be an RFC 3339/],
    ];
    for (const [url, message] of cases) {
      const res = await t.api('GET', url);
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toMatch(message);
    }
  });
});

describe('maintenance: deletes', () => {
  it('refuse bad types and dates with 400 naming the field, deleting nothing', async () => {
    const before = await sql<{ n: number }>('SELECT (SELECT count(*) FROM subscribers) + (SELECT count(*) FROM campaign_views) + (SELECT count(*) FROM subscriber_lists) AS n');
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['DELETE', '/api/maintenance/subscribers/everyone', undefined, /type/],
      ['DELETE', '/api/maintenance/analytics/bounces?before_date=2025-01-01', undefined, /type/],
      ['DELETE', '/api/maintenance/analytics/views', undefined, /^before_date: is required/],
      ['DELETE', '/api/maintenance/analytics/views', '', /^before_date: is required/],
      ['DELETE', '/api/maintenance/analytics/views', { before_date: null }, /^before_date: must be an RFC 3339/],
      ['DELETE', '/api/maintenance/analytics/views', { before_date: 20250101 }, /^before_date: must be an RFC 3339/],
      ['DELETE', '/api/maintenance/analytics/views?before_date=2025-13-01', undefined, /^before_date: .*not a real date/],
      ['DELETE', '/api/maintenance/subscriptions/unconfirmed?before_date=01/02/2025', undefined, /^before_date: must be an RFC 3339/],
      ['DELETE', '/api/maintenance/subscriptions/unconfirmed', {}, /^before_date: is required/],
    ];
    for (const [method, url, body, message] of cases) {
      const res = await t.api(method, url, body);
      expect(res.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.message, url).toMatch(message);
    }
    expect(await sql('SELECT (SELECT count(*) FROM subscribers) + (SELECT count(*) FROM campaign_views) + (SELECT count(*) FROM subscriber_lists) AS n')).toEqual(before);
  });

  it('delete views and clicks recorded before the date; `all` deletes both', async () => {
    const res = await t.api('DELETE', '/api/maintenance/analytics/views?before_date=2025-01-02T00:00:00%2B00:00');
    expect(res).toMatchObject({ status: 200, body: { data: true } });
    expect(await sql('SELECT created_at FROM campaign_views ORDER BY id')).toHaveLength(3);
    // An unencoded `+` arrives as a space and is read as the offset sign.
    expect((await t.api('DELETE', '/api/maintenance/analytics/all?before_date=2025-12-01T00:00:00+01:00')).status).toBe(200);
    expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM campaign_views'))[0]!.n).toBe(1);
    expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM link_clicks'))[0]!.n).toBe(1);
  });

  it('delete unconfirmed subscriptions to double opt-in lists created before the date, keeping the counts exact', async () => {
    await sql("UPDATE subscriber_lists SET created_at = '2025-01-01T00:00:00Z'");
    await sql("UPDATE subscriber_lists SET status = 'unconfirmed' WHERE list_id = $1", [single]);
    const res = await t.api('DELETE', '/api/maintenance/subscriptions/unconfirmed?before_date=2025-06-01');
    expect(res).toMatchObject({ status: 200, body: { data: { count: 2 } } });
    const left = await sql<{ subscriber_id: number; list_id: number }>('SELECT subscriber_id, list_id FROM subscriber_lists ORDER BY subscriber_id, list_id');
    expect(left).toEqual([{ subscriber_id: id['bob'], list_id: single }, { subscriber_id: id['cat'], list_id: single }, { subscriber_id: id['dan'], list_id: single }]);
    // A later date finds nothing more; an earlier one nothing at all.
    expect((await t.api('DELETE', '/api/maintenance/subscriptions/unconfirmed?before_date=2030-01-01T00:00:00Z')).body).toEqual({ data: { count: 0 } });
    const tot = await totals();
    expect(tot.lists).toEqual(tot.counted);
  });

  it('delete blocklisted, then orphan subscribers (in batches), keeping the subscriber total and list counts exact', async () => {
    expect((await t.api('DELETE', '/api/maintenance/subscribers/blocklisted')).body).toEqual({ data: { count: 2 } });
    let tot = await totals();
    expect(tot.api).toBe(tot.n);
    expect(tot.lists).toEqual(tot.counted);
    // ann lost her only subscription above: 8 orphans + ann, deleted 3 at a time.
    const res = await t.api('DELETE', '/api/maintenance/subscribers/orphan');
    expect(res).toMatchObject({ status: 200, body: { data: { count: 9 } } });
    const emails = (await sql<{ email: string }>('SELECT email FROM subscribers ORDER BY email')).map((r) => r.email);
    expect(emails).toEqual(['bob@example.com', 'cat@example.com']);
    tot = await totals();
    expect(tot).toMatchObject({ api: 2, n: 2 });
    expect(tot.lists).toEqual(tot.counted);
    expect((await t.api('DELETE', '/api/maintenance/subscribers/orphan')).body).toEqual({ data: { count: 0 } });
  });

  it('take an empty body sent as JSON as no fields (listmonk clients send the header on every request)', async () => {
    expect(await t.api('DELETE', '/api/maintenance/subscribers/blocklisted', '')).toMatchObject({ status: 200, body: { data: { count: 0 } } });
    expect(await t.api('DELETE', '/api/maintenance/analytics/clicks?before_date=2000-01-01', '')).toMatchObject({ status: 200, body: { data: true } });
    expect(await t.api('DELETE', '/api/maintenance/subscriptions/unconfirmed', { before_date: '2000-01-01T00:00:00Z' })).toMatchObject({ status: 200, body: { data: { count: 0 } } });
  });
});

let seq = 0;
/** An API user whose role holds `permissions`; answers its Authorization header (`token user:token`). */
async function apiUser(permissions: string[]): Promise<string> {
  seq += 1;
  const token = randomBytes(24).toString('hex');
  const [role] = await t.testDb.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`ops role ${seq}`, permissions]);
  await t.testDb.db.sql(`INSERT INTO users (username, password_hash, type, user_role_id, status, email) VALUES ($1, $2, 'api', $3, 'enabled', $4)`, [`ops-${seq}`, hashToken(token), role!.id, `ops-${seq}@api`]);
  return `token ops-${seq}:${token}`;
}

describe('maintenance: permissions', () => {
  it('answer 403 without settings:maintain, and work with it', async () => {
    const reader = await apiUser(['settings:get', 'settings:manage']);
    const maintainer = await apiUser(['settings:maintain']);
    const routes: Array<[string, string]> = [
      ['DELETE', '/api/maintenance/subscribers/orphan'],
      ['DELETE', '/api/maintenance/subscriptions/unconfirmed?before_date=2000-01-01'],
      ['DELETE', '/api/maintenance/analytics/all?before_date=2000-01-01'],
      ['GET', '/api/maintenance/analytics/views/export?since=2000-01-01'],
    ];
    for (const [method, url] of routes) {
      const denied = await t.api(method, url, undefined, { authorization: reader });
      expect(denied, url).toMatchObject({ status: 403, body: { message: 'permission denied: settings:maintain' } });
      expect((await t.api(method, url, undefined, { authorization: maintainer })).status, url).toBe(200);
    }
  });
});
