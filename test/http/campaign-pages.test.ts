/**
 * Public campaign pages (issue 4 §4, reference §17): "view in browser" for a subscriber, and the public
 * archive of campaigns marked `archive` — the HTML list, the RSS feed, one message (by slug, UUID or
 * `latest`) rendered with the archive template for a placeholder subscriber, listmonk's JSON, and the
 * settings that turn the archive and the feed's content off. Rendered HTML is sandboxed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

const ZERO = '00000000-0000-0000-0000-000000000000';
let t: TestApp;
let list: number;
let sub: { uuid: string; name: string };
let archiveTpl: number;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  list = (await t.api('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
  sub = (await t.api('POST', '/api/subscribers', { email: 'rosa@example.org', name: 'Rosa Parks', status: 'enabled', lists: [list], attribs: { city: 'Montgomery' } })).body.data;
  archiveTpl = (await t.api('GET', '/api/templates')).body.data.find((x: { name: string }) => x.name === 'Default archive template').id;
});
afterAll(async () => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });
/** A campaign in `status`, sent at `sentAt` to `sent` subscribers (the engine is not running in this file). */
async function campaign(fields: Record<string, unknown>, status = 'finished', sentAt = '2026-03-01T09:00:00Z', sent = 1) {
  const c = (await t.api('POST', '/api/campaigns', { name: 'Issue', subject: 'Issue for {{ .Subscriber.Name }}', lists: [list], body: '<p>Dear {{ .Subscriber.Name }} of {{ .Subscriber.Attribs.city }}</p>', ...fields })).body.data;
  await t.testDb.db.sql('UPDATE campaigns SET status = $2, started_at = $3, sent = $4 WHERE id = $1', [c.id, status, sentAt, sent]);
  return c as { id: number; uuid: string };
}

describe('view in browser', () => {
  it('renders the campaign for the subscriber, with their data, sandboxed and not indexed', async () => {
    const c = await campaign({});
    const res = await get(`/campaign/${c.uuid}/${sub.uuid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe('sandbox allow-popups allow-popups-to-escape-sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.body).toContain('<p>Dear Rosa Parks of Montgomery</p>');
    expect(res.body).toContain(`href="${ROOT_URL}/subscription/${c.uuid}/${sub.uuid}"`);
  });

  it('answers text/plain for a plain campaign', async () => {
    const c = await campaign({ content_type: 'plain', body: 'Plain for {{ .Subscriber.Name }} <b>' });
    const res = await get(`/campaign/${c.uuid}/${sub.uuid}`);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('Plain for Rosa Parks <b>');
  });

  it('is a 404 page for malformed or unknown UUIDs, and for the zero subscriber of a campaign not archived', async () => {
    const c = await campaign({});
    for (const url of [`/campaign/nope/${sub.uuid}`, `/campaign/${c.uuid}/nope`, `/campaign/${ZERO}/${sub.uuid}`, `/campaign/${c.uuid}/${c.uuid}`, `/campaign/${c.uuid}/${ZERO}`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  // Issue 14 finding 10: drafts were rendered, and for any subscriber UUID, recipient or not.
  it('is a 404 page for a campaign not sent yet: draft, scheduled, or running with nothing sent', async () => {
    const draft = (await t.api('POST', '/api/campaigns', { name: 'Draft', subject: 'Secret', lists: [list], body: '<p>Unreleased {{ .Subscriber.Name }}</p>' })).body.data;
    const cases = [draft, await campaign({}, 'scheduled', '2026-03-01T09:00:00Z', 0), await campaign({}, 'running', '2026-03-01T09:00:00Z', 0)];
    for (const c of cases) {
      const res = await get(`/campaign/${c.uuid}/${sub.uuid}`);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('Rosa');
    }
    for (const status of ['running', 'paused', 'cancelled', 'finished']) {
      expect((await get(`/campaign/${(await campaign({}, status)).uuid}/${sub.uuid}`)).statusCode, status).toBe(200);
    }
  });

  it('is a 404 page for subscribers the campaign does not go to', async () => {
    const other = (await t.api('POST', '/api/lists', { name: 'Other', optin: 'single' })).body.data.id;
    const double = (await t.api('POST', '/api/lists', { name: 'Double', optin: 'double' })).body.data.id;
    const make = async (email: string, fields: Record<string, unknown>) => (await t.api('POST', '/api/subscribers', { email, name: 'Someone', ...fields })).body.data.uuid as string;
    const outsider = await make('outsider@example.org', { lists: [other] });
    const unconfirmed = await make('unconfirmed@example.org', { lists: [double] });
    const gone = await make('gone@example.org', { lists: [list] });
    await t.api('PUT', '/api/subscribers/lists', { ids: [(await t.api('GET', `/api/subscribers?query=${encodeURIComponent("subscribers.email = 'gone@example.org'")}`)).body.data.results[0].id], action: 'unsubscribe', target_list_ids: [list] });
    const blocked = await make('blocked@example.org', { lists: [list], status: 'blocklisted' });
    const c = await campaign({ lists: [list, double] });
    for (const uuid of [outsider, unconfirmed, gone, blocked]) expect((await get(`/campaign/${c.uuid}/${uuid}`)).statusCode, uuid).toBe(404);
    expect((await get(`/campaign/${c.uuid}/${sub.uuid}`)).statusCode).toBe(200);
  });

  it('redirects the zero subscriber of an archived campaign to its archive page', async () => {
    const c = await campaign({ archive: true, archive_slug: 'redirect-me' });
    const res = await get(`/campaign/${c.uuid}/${ZERO}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${ROOT_URL}/archive/redirect-me`);
  });

  it('is a 500 page, not a crash, when the message fails to render for this subscriber', async () => {
    const c = await campaign({ body: '<p>{{ index (list 1) 4 }}</p>' });
    const res = await get(`/campaign/${c.uuid}/${sub.uuid}`);
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain('This message cannot be displayed');
  });
});

describe('the public archive', () => {
  let older: { id: number; uuid: string };
  let newer: { id: number; uuid: string };
  beforeAll(async () => {
    older = await campaign({ name: 'Older', subject: 'March for {{ .Subscriber.Name }}', archive: true, archive_slug: 'march', archive_meta: { name: 'Dear Reader', attribs: { city: 'Everywhere' } }, archive_template_id: archiveTpl }, 'finished', '2026-03-01T09:00:00Z');
    newer = await campaign({ name: 'Newer', subject: 'April <news>', archive: true, archive_meta: {} }, 'running', '2026-04-01T09:00:00Z');
    await campaign({ name: 'Not archived', subject: 'Private' }, 'finished');
    await campaign({ name: 'Draft archived', subject: 'Not sent yet', archive: true }, 'draft');
  });

  it('lists sent archived campaigns, newest first, with subjects rendered for the placeholder subscriber', async () => {
    const res = await get('/archive');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const aprilAt = res.body.indexOf('April &lt;news&gt;');
    const marchAt = res.body.indexOf('March for Dear Reader');
    expect(aprilAt).toBeGreaterThan(-1);
    expect(marchAt).toBeGreaterThan(aprilAt);
    expect(res.body).toContain(`href="${ROOT_URL}/archive/march"`);
    expect(res.body).toContain(`href="${ROOT_URL}/archive/${newer.uuid}"`);
    expect(res.body).not.toContain('Private');
    expect(res.body).not.toContain('Not sent yet');
    expect(res.body).toContain('1 March 2026');
  });

  it('shows one message by slug or UUID with its archive template and archive_meta as the subscriber', async () => {
    const bySlug = await get('/archive/march');
    expect(bySlug.statusCode).toBe(200);
    expect(bySlug.headers['content-security-policy']).toMatch(/^sandbox\b/u);
    expect(bySlug.headers['x-robots-tag']).toBeUndefined();
    expect(bySlug.body).toContain('<p>Dear Dear Reader of Everywhere</p>');
    expect(bySlug.body).toContain('&larr; Newsletter archive</a>');
    expect(bySlug.body).not.toContain('Unsubscribe');
    expect((await get(`/archive/${older.uuid}`)).body).toBe(bySlug.body);
    // Without an archive template: the campaign's own template; the placeholder is called "Subscriber".
    const own = await get(`/archive/${newer.uuid}`);
    expect(own.body).toContain('<p>Dear Subscriber of </p>');
    expect(own.body).toContain(`${ROOT_URL}/subscription/${newer.uuid}/${ZERO}`);
  });

  it('shows the newest message at /archive/latest, and 404 pages for others', async () => {
    expect((await get('/archive/latest')).body).toContain('<p>Dear Subscriber of </p>');
    for (const key of ['nothing-here', ZERO]) expect((await get(`/archive/${key}`)).statusCode).toBe(404);
  });

  it('serves an RSS 2.0 feed with each message\'s HTML', async () => {
    const res = await get('/archive.xml');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(res.body).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<rss version="2\.0"/u);
    expect(res.body).toContain('<title>April &lt;news&gt;</title>');
    expect(res.body).toContain(`<link>${ROOT_URL}/archive/march</link>`);
    expect(res.body).toContain('<pubDate>Sun, 01 Mar 2026 09:00:00 GMT</pubDate>');
    expect(res.body).toContain('&lt;p&gt;Dear Dear Reader of Everywhere&lt;/p&gt;');
    expect(res.body.indexOf('April')).toBeLessThan(res.body.indexOf('March for'));
  });

  it('answers listmonk\'s JSON at /api/public/archive without credentials', async () => {
    const res = await get('/api/public/archive?per_page=1');
    expect(res.statusCode).toBe(200);
    const data = JSON.parse(res.body).data;
    // Two archived here, and one in the view-in-browser tests above.
    expect(data).toMatchObject({ total: 3, per_page: 1, page: 1 });
    expect(data.results).toEqual([{ uuid: newer.uuid, subject: 'April <news>', content: '', created_at: expect.any(String), send_at: null, url: `${ROOT_URL}/archive/${newer.uuid}` }]);
    const past = JSON.parse((await get('/api/public/archive?per_page=2&page=9')).body).data;
    expect(past).toEqual({ results: [], total: 3, per_page: 2, page: 9 });
  });

  it('leaves the content out of the feed, and then the whole archive, when the settings say so', async () => {
    await t.api('PUT', '/api/settings', { 'app.enable_public_archive_rss_content': false });
    const feed = await get('/archive.xml');
    expect(feed.body).toContain('<title>April &lt;news&gt;</title>');
    expect(feed.body).not.toContain('<description>&lt;');
    await t.api('PUT', '/api/settings', { 'app.enable_public_archive': false });
    for (const url of ['/archive', '/archive.xml', '/archive/march', '/api/public/archive']) expect((await get(url)).statusCode, url).toBe(404);
    await t.api('PUT', '/api/settings', { 'app.enable_public_archive': true, 'app.enable_public_archive_rss_content': true });
    expect((await get('/archive')).statusCode).toBe(200);
  });
});
