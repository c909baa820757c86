/**
 * The dashboard API (issue 16; listmonk reference §2.2), on both stores: `GET /api/dashboard/counts`
 * shows what a user just did through the API (lists by type and opt-in, subscribers, blocklisted ones,
 * subscribers in no list, campaigns by status, messages sent), and always agrees with counting the
 * tables directly the way listmonk's `mat_dashboard_counts` does; `GET /api/dashboard/charts` gives 30
 * UTC days of views and clicks, every day present, today last.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';
import { hashToken } from '../../src/modules/users/service.js';
import { DashboardRepo } from '../../src/modules/dashboard/repo.js';
import { chartDates, DashboardService } from '../../src/modules/dashboard/service.js';

let t: TestApp;
const list: Record<string, number> = {};
const sub: Record<string, number> = {};

async function sql<R = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
  return t.testDb.db.sql<R>(text, params);
}

async function counts(): Promise<any> {
  const res = await t.api('GET', '/api/dashboard/counts');
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The subscriber figures as listmonk's materialised view counts them, straight from the tables. */
async function countedDirectly(): Promise<{ total: number; blocklisted: number; orphans: number }> {
  const [row] = await sql<{ total: number; blocklisted: number; orphans: number }>(`SELECT
    (SELECT count(*) FROM subscribers)::int AS total,
    (SELECT count(*) FROM subscribers WHERE status = 'blocklisted')::int AS blocklisted,
    (SELECT count(*) FROM subscribers s LEFT JOIN subscriber_lists sl ON sl.subscriber_id = s.id WHERE sl.subscriber_id IS NULL)::int AS orphans`);
  return row!;
}

async function expectSubscribers(expected: { total: number; blocklisted: number; orphans: number }): Promise<void> {
  expect((await counts()).subscribers).toEqual(expected);
  expect(await countedDirectly()).toEqual(expected);
}

async function newCampaign(name: string): Promise<number> {
  const res = await t.api('POST', '/api/campaigns', { name, subject: name, lists: [list['news']], type: 'regular', content_type: 'html', body: '<p>x</p>' });
  expect(res.status, name).toBe(200);
  return res.body.data.id;
}

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
}, 120_000);
afterAll(async () => t?.close());

describe('GET /api/dashboard/counts', () => {
  it('starts at zero on a new install, in listmonk\'s shape with numbers instead of nulls', async () => {
    expect(await counts()).toEqual({
      subscribers: { total: 0, blocklisted: 0, orphans: 0 },
      lists: { total: 0, private: 0, public: 0, optin_single: 0, optin_double: 0 },
      campaigns: { total: 0, by_status: {} },
      messages: 0,
    });
  });

  it('counts lists by type and opt-in', async () => {
    for (const [name, type, optin] of [['news', 'public', 'single'], ['vip', 'private', 'double'], ['beta', 'public', 'double'], ['staff', 'private', 'single'], ['temp', 'temporary', 'single']] as const) {
      const res = await t.api('POST', '/api/lists', { name, type, optin });
      expect(res.status, name).toBe(200);
      list[name] = res.body.data.id;
    }
    expect((await counts()).lists).toEqual({ total: 5, private: 2, public: 2, optin_single: 3, optin_double: 2 });
    await t.api('DELETE', `/api/lists/${list['temp']}`);
    expect((await counts()).lists).toEqual({ total: 4, private: 2, public: 2, optin_single: 2, optin_double: 2 });
  });

  it('counts subscribers, the blocklisted ones and those in no list as memberships change', async () => {
    const people: Array<[string, string[], string]> = [
      ['ann', ['news'], 'enabled'], ['bob', ['news', 'vip'], 'enabled'], ['cat', [], 'enabled'],
      ['dan', [], 'blocklisted'], ['eve', ['beta'], 'blocklisted'], ['fay', ['staff'], 'disabled'],
    ];
    for (const [name, lists, status] of people) {
      const res = await t.api('POST', '/api/subscribers', { email: `${name}@example.com`, name, lists: lists.map((l) => list[l]), status });
      expect(res.status, name).toBe(200);
      sub[name] = res.body.data.id;
    }
    await expectSubscribers({ total: 6, blocklisted: 2, orphans: 2 });

    const change = (ids: number[], action: string, lists: string[]) =>
      t.api('PUT', '/api/subscribers/lists', { ids, action, target_list_ids: lists.map((l) => list[l]) });
    // bob keeps vip; ann leaves her only list; an unsubscribed membership is still a list (listmonk).
    expect((await change([sub['bob']!, sub['ann']!], 'remove', ['news'])).status).toBe(200);
    await expectSubscribers({ total: 6, blocklisted: 2, orphans: 3 });
    expect((await change([sub['eve']!], 'unsubscribe', ['beta'])).status).toBe(200);
    await expectSubscribers({ total: 6, blocklisted: 2, orphans: 3 });
    // Adding a second list, and the same list again, moves nobody.
    expect((await change([sub['bob']!, sub['cat']!], 'add', ['vip', 'news'])).status).toBe(200);
    await expectSubscribers({ total: 6, blocklisted: 2, orphans: 2 });

    expect((await t.api('PUT', `/api/subscribers/${sub['ann']}/blocklist`)).status).toBe(200);
    await expectSubscribers({ total: 6, blocklisted: 3, orphans: 2 });

    // Deleting a list leaves its only-members in no list; deleting subscribers takes them out of both counts.
    expect((await t.api('DELETE', `/api/lists/${list['beta']}`)).status).toBe(200);
    await expectSubscribers({ total: 6, blocklisted: 3, orphans: 3 });
    expect((await t.api('DELETE', `/api/subscribers?id=${sub['eve']}&id=${sub['bob']}`)).status).toBe(200);
    await expectSubscribers({ total: 4, blocklisted: 2, orphans: 2 });

    // Replacing a subscriber's lists (delete, then insert, in one transaction).
    const put = await t.api('PUT', `/api/subscribers/${sub['dan']}`, { email: 'dan@example.com', name: 'dan', status: 'blocklisted', lists: [list['news']] });
    expect(put.status).toBe(200);
    await expectSubscribers({ total: 4, blocklisted: 2, orphans: 1 });
    const moved = await t.api('PUT', `/api/subscribers/${sub['dan']}`, { email: 'dan@example.com', name: 'dan', status: 'enabled', lists: [list['staff']] });
    expect(moved.status).toBe(200);
    await expectSubscribers({ total: 4, blocklisted: 1, orphans: 1 });

    expect((await t.api('PUT', '/api/subscribers/query/lists', { all: true, action: 'add', target_list_ids: [list['staff']] })).status).toBe(200);
    await expectSubscribers({ total: 4, blocklisted: 1, orphans: 0 });
    expect((await t.api('PUT', '/api/subscribers/query/lists', { all: true, action: 'remove', target_list_ids: [list['news'], list['vip'], list['staff']] })).status).toBe(200);
    await expectSubscribers({ total: 4, blocklisted: 1, orphans: 4 });
  });

  it('stays exact past the folding of its delta rows (every 500th statement)', async () => {
    await sql(`INSERT INTO subscribers (email, name) SELECT 'bulk' || g || '@example.com', 'Bulk ' || g FROM generate_series(1, 600) g`);
    await sql(`DO $$ DECLARE s record; BEGIN
      FOR s IN SELECT id FROM subscribers WHERE email LIKE 'bulk%' ORDER BY id LOOP
        INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (s.id, ${list['news']});
        IF s.id % 3 = 0 THEN INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (s.id, ${list['vip']}); END IF;
        IF s.id % 4 = 0 THEN DELETE FROM subscriber_lists WHERE subscriber_id = s.id AND list_id = ${list['news']}; END IF;
      END LOOP; END $$`);
    const [folds] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM subscribed_totals');
    expect(folds!.n).toBeLessThan(500);
    const direct = await countedDirectly();
    expect(direct.total).toBe(604);
    expect((await counts()).subscribers).toEqual(direct);
  });

  it('counts campaigns by status and the messages they sent', async () => {
    const spring = await newCampaign('Spring');
    const summer = await newCampaign('Summer');
    await newCampaign('Autumn');
    await sql("UPDATE campaigns SET status = 'finished', sent = 1200 WHERE id = $1", [spring]);
    await sql("UPDATE campaigns SET status = 'running', sent = 34 WHERE id = $1", [summer]);
    const c = await counts();
    expect(c.campaigns).toEqual({ total: 3, by_status: { draft: 1, finished: 1, running: 1 } });
    expect(c.messages).toBe(1234);
  });
});

describe('GET /api/dashboard/charts', () => {
  it('gives 30 UTC days ending today, every day present, views and clicks counted on their UTC day', async () => {
    const campaign = await newCampaign('Charted');
    const other = await newCampaign('Deleted later');
    const [link] = await sql<{ id: number }>("INSERT INTO links (url) VALUES ('https://example.org/a') RETURNING id");
    const day = (n: number) => `(date_trunc('day', now() AT TIME ZONE 'UTC') - interval '${n} days') AT TIME ZONE 'UTC'`;
    // Today: 2 views; yesterday's last millisecond and today's first instant fall on different days;
    // 29 days ago is the first day shown, 30 days ago is not.
    await sql(`INSERT INTO campaign_views (campaign_id, created_at) VALUES
      ($1, now()), ($1, now()), ($1, ${day(0)}), ($1, ${day(0)} - interval '1 millisecond'),
      ($1, ${day(29)}), ($1, ${day(30)} + interval '12 hours'), ($2, ${day(3)}), ($2, ${day(3)})`, [campaign, other]);
    await sql(`INSERT INTO link_clicks (campaign_id, link_id, created_at) VALUES
      ($1, $3, ${day(0)}), ($1, $3, ${day(5)}), ($2, $3, ${day(5)}), ($2, $3, ${day(5)})`, [campaign, other, link!.id]);

    const res = await t.api('GET', '/api/dashboard/charts');
    expect(res.status).toBe(200);
    const { campaign_views: views, link_clicks: clicks } = res.body.data;
    const dates = chartDates(new Date());
    expect(views.map((d: any) => d.date)).toEqual(dates);
    expect(clicks.map((d: any) => d.date)).toEqual(dates);
    expect(dates[29]).toBe(new Date().toISOString().slice(0, 10));
    const at = (series: any[], daysAgo: number) => series[29 - daysAgo].count;
    expect(at(views, 0)).toBe(3);
    expect(at(views, 1)).toBe(1);
    expect(at(views, 3)).toBe(2);
    expect(at(views, 29)).toBe(1);
    expect(views.reduce((n: number, d: any) => n + d.count, 0)).toBe(7);
    expect(at(clicks, 0)).toBe(1);
    expect(at(clicks, 5)).toBe(3);
    expect(clicks.filter((d: any) => d.count === 0)).toHaveLength(28);

    // Deleting a campaign removes its views and clicks from the chart (the API deletes only scheduled
    // campaigns that never started; the cascade is the same).
    await sql('DELETE FROM campaigns WHERE id = $1', [other]);
    const after = (await t.api('GET', '/api/dashboard/charts')).body.data;
    expect(at(after.campaign_views, 3)).toBe(0);
    expect(at(after.link_clicks, 5)).toBe(1);
  });

  it('counts a view recorded by the tracking pixel', async () => {
    const campaign = (await t.api('GET', `/api/campaigns/${await newCampaign('Pixel')}`)).body.data;
    const before = (await t.api('GET', '/api/dashboard/charts')).body.data.campaign_views[29].count;
    const px = await t.app.inject({ method: 'GET', url: `/campaign/${campaign.uuid}/00000000-0000-0000-0000-000000000000/px.png` });
    expect(px.statusCode).toBe(200);
    expect((await t.api('GET', '/api/dashboard/charts')).body.data.campaign_views[29].count).toBe(before + 1);
  });

  it('decides "today" in UTC, whatever the local offset of the clock', async () => {
    // 2024-03-01 00:30 at UTC+05:00 is still 2024-02-29 in UTC.
    const service = new DashboardService({ repo: new DashboardRepo(t.testDb.db), now: () => new Date('2024-03-01T00:30:00+05:00') });
    const [c] = await sql<{ id: number }>("INSERT INTO campaigns (name, subject, from_email) VALUES ('Leap', 'Leap', 'a@example.com') RETURNING id");
    await sql(`INSERT INTO campaign_views (campaign_id, created_at) VALUES
      ($1, '2024-02-29T23:59:59Z'), ($1, '2024-03-01T00:00:00Z'), ($1, '2024-01-31T12:00:00Z'), ($1, '2024-01-30T12:00:00Z')`, [c!.id]);
    const charts = await service.charts();
    expect(charts.campaign_views).toHaveLength(30);
    expect(charts.campaign_views[0]).toEqual({ count: 1, date: '2024-01-31' });
    expect(charts.campaign_views[29]).toEqual({ count: 1, date: '2024-02-29' });
    expect(charts.campaign_views.reduce((n, d) => n + d.count, 0)).toBe(2);
    expect(charts.link_clicks.every((d) => d.count === 0)).toBe(true);
  });

  it('stays exact past the folding of its delta rows', async () => {
    const [c] = await sql<{ id: number }>("INSERT INTO campaigns (name, subject, from_email) VALUES ('Many', 'Many', 'a@example.com') RETURNING id");
    const service = new DashboardService({ repo: new DashboardRepo(t.testDb.db), now: () => new Date('2025-06-30T12:00:00Z') });
    await sql(`DO $$ BEGIN FOR i IN 1..1100 LOOP
      INSERT INTO campaign_views (campaign_id, created_at) VALUES (${c!.id}, timestamptz '2025-06-01T00:00:00Z' + (i % 30) * interval '1 day');
    END LOOP; END $$`);
    const [rows] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM engagement_days');
    expect(rows!.n).toBeLessThan(600);
    const charts = await service.charts();
    const direct = await sql<{ date: string; count: number }>(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS date, count(*)::int AS count FROM campaign_views
       WHERE campaign_id = $1 AND created_at >= '2025-06-01T00:00:00Z' GROUP BY 1 ORDER BY 1`, [c!.id]);
    expect(charts.campaign_views.filter((d) => d.count > 0)).toEqual(direct);
  });
});

describe.skipIf(storeKind !== 'postgres')('orphans under concurrent transactions (PostgreSQL)', () => {
  /** Two sessions of the test database: `a` holds a transaction open while `b` runs into it. */
  async function sessions(): Promise<[pg.Client, pg.Client]> {
    const a = new pg.Client({ connectionString: t.testDb.url! });
    const b = new pg.Client({ connectionString: t.testDb.url! });
    await a.connect();
    await b.connect();
    return [a, b];
  }

  /**
   * Resolves once session `pid` waits for a lock (as PostgreSQL reports it, not a guess at timing), or
   * once `finished()` says its statement ended without waiting (then the assertions after it fail).
   */
  async function waitingOrDone(pid: number, finished: () => boolean): Promise<void> {
    while (!finished()) {
      const [row] = await sql<{ waiting: boolean }>("SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (row?.waiting) return;
    }
  }

  async function orphan(email: string, lists: string[]): Promise<number> {
    const res = await t.api('POST', '/api/subscribers', { email, name: email, lists: lists.map((l) => list[l]) });
    expect(res.status).toBe(200);
    return res.body.data.id;
  }

  /** Runs `first` in an open transaction of one session, `second` in another that must wait for it, then commits. */
  async function race(first: string, second: string): Promise<void> {
    const [a, b] = await sessions();
    try {
      const pid = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await a.query('BEGIN');
      await a.query(first);
      let finished = false;
      const running = b.query(second).finally(() => {
        finished = true;
      });
      await waitingOrDone(pid, () => finished);
      await a.query('COMMIT');
      await running;
    } finally {
      await a.end();
      await b.end();
    }
  }

  it('counts a subscriber once when two transactions add its first subscriptions', async () => {
    const id = await orphan('race1@example.com', []);
    await race(`INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (${id}, ${list['news']})`,
      `INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (${id}, ${list['vip']})`);
    expect((await counts()).subscribers).toEqual(await countedDirectly());
  });

  it('keeps a subscriber out of the orphans when one transaction removes its last list while another adds one', async () => {
    const id = await orphan('race2@example.com', ['vip']);
    await race(`INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (${id}, ${list['news']})`,
      `DELETE FROM subscriber_lists WHERE subscriber_id = ${id} AND list_id = ${list['vip']}`);
    const direct = await countedDirectly();
    expect((await counts()).subscribers).toEqual(direct);
  });

  it('counts an orphan once when two transactions remove its last two lists', async () => {
    const id = await orphan('race3@example.com', ['news', 'vip']);
    const before = (await counts()).subscribers.orphans;
    await race(`DELETE FROM subscriber_lists WHERE subscriber_id = ${id} AND list_id = ${list['news']}`,
      `DELETE FROM subscriber_lists WHERE subscriber_id = ${id} AND list_id = ${list['vip']}`);
    expect((await counts()).subscribers).toEqual(await countedDirectly());
    expect((await counts()).subscribers.orphans).toBe(before + 1);
  });
});

describe('access', () => {
  it('answers 401 without credentials', async () => {
    for (const url of ['/api/dashboard/counts', '/api/dashboard/charts']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(401);
    }
  });

  it('answers any API user, even one whose role grants no permission (listmonk: ungated)', async () => {
    const token = randomBytes(24).toString('hex');
    const [role] = await sql<{ id: number }>("INSERT INTO roles (type, name, permissions) VALUES ('user', 'nothing', '{}') RETURNING id");
    await sql("INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ('dash-api', $1, 'api', $2, 'dash-api@api')", [hashToken(token), role!.id]);
    for (const url of ['/api/dashboard/counts', '/api/dashboard/charts']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `token dash-api:${token}` } });
      expect(res.statusCode, url).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/settings', headers: { authorization: `token dash-api:${token}` } })).statusCode).toBe(403);
  });
});

describe('GET /admin (the dashboard page)', () => {
  /** A signed-in login user whose role grants `permissions`: its session cookie. */
  async function signedIn(permissions: string[]): Promise<string> {
    const name = `page-${randomBytes(4).toString('hex')}`;
    const [role] = await sql<{ id: number }>("INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id", [name, permissions]);
    const [user] = await sql<{ id: number }>("INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id",
      [name, role!.id, `${name}@example.com`]);
    return `session=${await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' })}`;
  }

  it('shows the same counts as the API to anyone signed in, under the admin CSP', async () => {
    const api = await counts();
    const res = await t.app.inject({ method: 'GET', url: '/admin', headers: { cookie: await signedIn([]) } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/u);
    expect(String(res.headers['content-security-policy'])).not.toContain('unsafe-inline');
    const html = res.body;
    expect(html).toMatch(new RegExp(`data-cy="subscribers"[\\s\\S]*?class="title" title="${api.subscribers.total.toLocaleString('en')}"`, 'u'));
    expect(html).toContain('data-cy="chart-views"');
    expect(html).toContain('data-cy="chart-clicks"');
    // Without subscribers:get or campaigns:get the tiles do not link to pages the user cannot open.
    expect(html).not.toContain('href="/admin/subscribers"');
    const admin = await t.app.inject({ method: 'GET', url: '/admin', headers: { cookie: await signedIn(['subscribers:get_all', 'campaigns:get_all']) } });
    expect(admin.body).toContain('href="/admin/subscribers"');
    expect(admin.body).toContain('href="/admin/campaigns"');
  });

  it('sends a visitor without a session to the login page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/admin/login?next=%2Fadmin');
  });
});
