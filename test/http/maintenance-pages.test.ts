/**
 * The Logs and Maintenance admin pages (issue 16; listmonk's Settings → Logs and → Maintenance), on
 * both stores, through the real app with a signed-in session: each delete card's post (confirm step
 * without `confirmed=1`, then the delete and a notice with the count), a bad date answered 422 with
 * the error beside its field, the export form sent on to the streaming API, 403 without the page's
 * permission, and the CSRF token required on every post.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeNotice, NOTICE_COOKIE } from '../../src/ui/notice.js';
import { t as tr } from '../../src/ui/i18n.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let seq = 0;

/** A login user with a role holding `permissions` (or Super Admin), signed in: its cookie and CSRF token. */
async function signedIn(permissions: string[] | 'super') {
  seq += 1;
  let roleId = 1;
  if (permissions !== 'super') {
    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`role ${seq}`, permissions]);
    roleId = role!.id;
  }
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id`,
    [`page-user-${seq}`, roleId, `page-user-${seq}@example.com`],
  );
  const token = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { cookie: `session=${token}`, csrf: found!.principal.session!.csrf };
}

type Session = Awaited<ReturnType<typeof signedIn>>;

const get = (s: Session, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie, ...headers } });
const post = (s: Session, url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

/** The notice a 303 carries in its cookie. */
function noticeOf(res: { headers: Record<string, unknown> }) {
  const set = ([] as string[]).concat((res.headers['set-cookie'] as string | string[] | undefined) ?? []);
  const c = set.find((x) => x.startsWith(`${NOTICE_COOKIE}=`));
  return c === undefined ? null : decodeNotice(c.slice(NOTICE_COOKIE.length + 1).split(';')[0]!);
}

let admin: Session;
let list = 0;

beforeAll(async () => {
  t = await buildTestApp({ settings: { 'app.batch_size': 2, 'app.send_optin_confirmation': false } });
  admin = await signedIn('super');
  list = (await t.api('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
  for (const [name, lists, status] of [['o1', [], 'enabled'], ['o2', [], 'enabled'], ['o3', [], 'enabled'], ['b1', [list], 'blocklisted'], ['u1', [list], 'enabled']] as const) {
    expect((await t.api('POST', '/api/subscribers', { email: `${name}@example.com`, name, lists, status })).status).toBe(200);
  }
  await t.deps.db.sql(`UPDATE subscriber_lists SET created_at = '2025-01-01T00:00:00Z' WHERE status = 'unconfirmed'`);
  const [campaign] = await t.deps.db.sql<{ id: number }>(`INSERT INTO campaigns (name, subject, from_email, body, content_type) VALUES ('c', 's', 'a@b.c', 'x', 'html') RETURNING id`).catch(async () =>
    [{ id: (await t.api('POST', '/api/campaigns', { name: 'c', subject: 's', lists: [list], content_type: 'html', body: '<p>x</p>' })).body.data.id as number }]);
  await t.deps.db.sql(`INSERT INTO campaign_views (campaign_id, created_at) VALUES ($1, '2025-01-01T00:00:00Z'), ($1, '2025-01-02T00:00:00Z'), ($1, now())`, [campaign!.id]);
  await t.deps.db.sql(`INSERT INTO log_lines (instance, level, line) VALUES ('node-x', 40, '{"msg":"disk <b>nearly</b> full","component":"health"}')`);
}, 120_000);
afterAll(async () => t?.close());

describe('Logs page', () => {
  it('shows every instance\'s lines with time, instance, level and message, escaped', async () => {
    const res = await get(admin, '/admin/settings/logs');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<span class="log-instance">node-x</span>');
    expect(res.body).toContain('<span class="log-level">WARN</span>');
    expect(res.body).toContain('health: disk &lt;b>nearly&lt;/b> full');
    expect(res.body).toContain('href="/admin/settings/logs" data-cy="refresh"');
    expect(res.body).not.toContain('hx-trigger="every');
  });

  it('answers htmx with the lines block alone, polling while following', async () => {
    const res = await get(admin, '/admin/settings/logs?follow=1', { 'hx-request': 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.body.startsWith('<div id="log-lines"')).toBe(true);
    expect(res.body).toContain('hx-trigger="every 5s"');
    expect(res.body).not.toContain('<html');
    expect(res.body).toContain('<a id="logs-refresh" class="button secondary" href="/admin/settings/logs?follow=1" data-cy="refresh" hx-swap-oob="true">');
    const off = await get(admin, '/admin/settings/logs', { 'hx-request': 'true' });
    expect(off.body).not.toContain('hx-trigger');
  });

  it('needs settings:get', async () => {
    const writer = await signedIn(['lists:get_all']);
    expect((await get(writer, '/admin/settings/logs')).statusCode).toBe(403);
    const reader = await signedIn(['settings:get']);
    expect((await get(reader, '/admin/settings/logs')).statusCode).toBe(200);
  });
});

describe('Maintenance page', () => {
  it('shows listmonk\'s cards with their data-cy hooks, CSRF in every post form', async () => {
    const res = await get(admin, '/admin/settings/maintenance');
    expect(res.statusCode).toBe(200);
    for (const cy of ['btn-delete-subscribers', 'btn-delete-subscriptions', 'btn-delete-analytics', 'btn-export-analytics']) expect(res.body).toContain(`data-cy="${cy}"`);
    expect(res.body.match(/name="_csrf" value="([^"]+)"/gu)).toHaveLength(4); // and the shell's sign-out form
    expect(res.body).toContain(admin.csrf);
  });

  it('asks first without confirmed=1, then deletes orphans and says how many', async () => {
    const step = await post(admin, '/admin/settings/maintenance/subscribers', { _csrf: admin.csrf, type: 'orphan' });
    expect(step.statusCode).toBe(200);
    expect(step.body).toContain(tr('maintenance.subscribers.confirm_orphan'));
    expect(step.body).toContain('name="confirmed" value="1"');
    const [{ n: before }] = (await t.deps.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM subscribers')) as [{ n: number }];
    expect(before).toBe(5);
    const done = await post(admin, '/admin/settings/maintenance/subscribers', { _csrf: admin.csrf, type: 'orphan', confirmed: '1' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/admin/settings/maintenance');
    expect(noticeOf(done)).toEqual({ kind: 'success', key: 'maintenance.subscribers.deleted_orphan', params: { count: '3' } });
    const page = await get(admin, '/admin/settings/maintenance', { cookie: `${admin.cookie}; ${NOTICE_COOKIE}=${done.headers['set-cookie']!.toString().split(`${NOTICE_COOKIE}=`)[1]!.split(';')[0]}` });
    expect(page.body).toContain('Deleted 3 orphan subscribers.');
  });

  it('deletes blocklisted subscribers', async () => {
    const done = await post(admin, '/admin/settings/maintenance/subscribers', { _csrf: admin.csrf, type: 'blocklisted', confirmed: '1' });
    expect(noticeOf(done)).toEqual({ kind: 'success', key: 'maintenance.subscribers.deleted_blocklisted', params: { count: '1' } });
  });

  it('deletes unconfirmed subscriptions older than the date', async () => {
    const done = await post(admin, '/admin/settings/maintenance/subscriptions', { _csrf: admin.csrf, before_date: '2025-06-01', confirmed: '1' });
    expect(noticeOf(done)).toEqual({ kind: 'success', key: 'maintenance.subscriptions.deleted', params: { count: '1' } });
  });

  it('deletes views before the date and counts them', async () => {
    const step = await post(admin, '/admin/settings/maintenance/analytics', { _csrf: admin.csrf, type: 'views', before_date: '2025-06-01' });
    expect(step.body).toContain(tr('maintenance.analytics.confirm_views', { date: '2025-06-01' }));
    const done = await post(admin, '/admin/settings/maintenance/analytics', { _csrf: admin.csrf, type: 'views', before_date: '2025-06-01', confirmed: '1' });
    expect(noticeOf(done)).toEqual({ kind: 'success', key: 'maintenance.analytics.deleted', params: { count: '2' } });
    const [{ n }] = (await t.deps.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM campaign_views')) as [{ n: number }];
    expect(n).toBe(1);
  });

  it('answers a bad date with 422 and the error beside its field, the value kept, nothing deleted', async () => {
    const res = await post(admin, '/admin/settings/maintenance/analytics', { _csrf: admin.csrf, type: 'all', before_date: '2026-02-30', confirmed: '1' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/<input id="f-analytics-before" name="before_date" required aria-describedby="f-analytics-before-hint f-analytics-before-error" aria-invalid="true" type="date" value="2026-02-30"/u);
    expect(res.body).toContain('<p class="field-error" id="f-analytics-before-error">');
    expect(res.body).toContain(tr('maintenance.badDate'));
    expect(res.body).toContain('data-cy="maintenance" aria-current="page"');
    expect((await get(admin, '/admin/settings/maintenance/analytics')).headers.location).toBe('/admin/settings/maintenance');
    const empty = await post(admin, '/admin/settings/maintenance/subscriptions', { _csrf: admin.csrf, before_date: '' });
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('id="f-subscriptions-before-error"');
    expect(empty.body).toContain(tr('maintenance.dateRequired'));
    const badType = await post(admin, '/admin/settings/maintenance/subscribers', { _csrf: admin.csrf, type: 'everyone', confirmed: '1' });
    expect(badType.statusCode).toBe(422);
    expect(badType.body).toContain('id="f-subscribers-type-error"');
  });

  it('sends the export form on to the streaming CSV export, and checks its date', async () => {
    const res = await get(admin, '/admin/settings/maintenance/export?type=views&since=2024-01-01');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/api/maintenance/analytics/views/export?since=2024-01-01T00%3A00%3A00.000Z');
    const csv = await get(admin, res.headers.location as string);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/u);
    expect(csv.body.split('\r\n')[0]).toMatch(/^campaign_id,/u);
    const bad = await get(admin, '/admin/settings/maintenance/export?type=views&since=yesterday');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('id="f-export-since-error"');
  });

  it('needs settings:maintain for the page, every post and the export', async () => {
    const viewer = await signedIn(['settings:get', 'settings:manage']);
    expect((await get(viewer, '/admin/settings/maintenance')).statusCode).toBe(403);
    expect((await get(viewer, '/admin/settings/maintenance/export?type=views&since=2024-01-01')).statusCode).toBe(403);
    for (const [url, fields] of [['subscribers', { type: 'orphan' }], ['subscriptions', { before_date: '2030-01-01' }], ['analytics', { type: 'all', before_date: '2030-01-01' }]] as const) {
      const res = await post(viewer, `/admin/settings/maintenance/${url}`, { _csrf: viewer.csrf, ...fields, confirmed: '1' });
      expect(res.statusCode, url).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/u);
    }
    const maintainer = await signedIn(['settings:maintain']);
    expect((await get(maintainer, '/admin/settings/maintenance')).statusCode).toBe(200);
  });

  it('refuses a post without the CSRF token, or with another session\'s, and deletes nothing', async () => {
    await t.api('POST', '/api/subscribers', { email: 'late-orphan@example.com', name: 'late', lists: [] });
    const other = await signedIn('super');
    for (const fields of [{}, { _csrf: other.csrf }, { _csrf: `${admin.csrf}x` }] as Array<Record<string, string>>) {
      const res = await post(admin, '/admin/settings/maintenance/subscribers', { type: 'orphan', confirmed: '1', ...fields });
      expect(res.statusCode).toBe(403);
    }
    const [{ n }] = (await t.deps.db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM subscribers WHERE email = 'late-orphan@example.com'`)) as [{ n: number }];
    expect(n).toBe(1);
  });
});
