/**
 * Campaigns API beyond create (spec 4.7 and part 3, issue 4 §3): update (only draft, scheduled or
 * paused), delete (only a scheduled campaign that never started), previews (GET and POST, JSON or
 * form, sandboxed), archive settings, and running stats computed from the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

let t: TestApp;
let listA: number;
let listB: number;
let defaultTemplate: number;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  listA = (await t.api('POST', '/api/lists', { name: 'A', type: 'public', optin: 'single' })).body.data.id;
  listB = (await t.api('POST', '/api/lists', { name: 'B', type: 'private', optin: 'double' })).body.data.id;
  defaultTemplate = (await t.api('GET', '/api/templates')).body.data.find((x: { is_default: boolean }) => x.is_default).id;
});
afterAll(async () => t.close());

const FUTURE = '2099-06-01T10:00:00Z';
const create = async (fields: Record<string, unknown> = {}) => {
  const res = await t.api('POST', '/api/campaigns', { name: 'Edit me', subject: 'Hi {{ .Subscriber.FirstName }}', lists: [listA], body: '<p>Hello {{ .Subscriber.Name }}</p>', ...fields });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as Record<string, any>;
};
const get = async (id: number) => (await t.api('GET', `/api/campaigns/${id}`)).body.data;
const move = (id: number, status: string) => t.api('PUT', `/api/campaigns/${id}/status`, { status });
/** Puts a campaign straight into a status the API cannot reach without the engine. */
const force = (id: number, status: string) => t.testDb.db.sql(`UPDATE campaigns SET status = $2, started_at = coalesce(started_at, now()) WHERE id = $1`, [id, status]);
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

describe('PUT /api/campaigns/:id', () => {
  it('updates the given fields, keeps the others (lists too), and answers the campaign as GET does', async () => {
    const c = await create({ tags: ['one'], headers: [{ 'X-A': '1' }] });
    const res = await t.api('PUT', `/api/campaigns/${c.id}`, { name: 'Renamed', content_type: 'markdown', body: '# Hi', tags: ['two', 'two', ' three '] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: c.id, name: 'Renamed', content_type: 'markdown', body: '# Hi', tags: ['two', 'three'], subject: c.subject, headers: [{ 'X-A': '1' }], lists: [{ id: listA, name: 'A' }], template_id: c.template_id, status: 'draft' });
    expect(await get(c.id)).toEqual(res.body.data);
  });

  it('replaces the lists when given, sets altbody, sender, messenger and template', async () => {
    const c = await create();
    const archiveTpl = (await t.api('GET', '/api/templates')).body.data.find((x: { name: string }) => x.name === 'Default archive template').id;
    const res = await t.api('PUT', `/api/campaigns/${c.id}`, { lists: [listB, listA], altbody: 'Text {{ .Subscriber.Name }}', from_email: 'Other Sender <other@x.org>', messenger: 'email', template_id: archiveTpl });
    expect(res.body.data).toMatchObject({ lists: [{ id: listA, name: 'A' }, { id: listB, name: 'B' }], altbody: 'Text {{ .Subscriber.Name }}', from_email: 'Other Sender <other@x.org>', template_id: archiveTpl });
    expect((await t.api('PUT', `/api/campaigns/${c.id}`, { altbody: '', template_id: null })).body.data).toMatchObject({ altbody: null, template_id: defaultTemplate });
  });

  it('schedules by setting send_at, and unschedules a scheduled campaign when send_at is cleared', async () => {
    const c = await create();
    expect((await t.api('PUT', `/api/campaigns/${c.id}`, { send_at: FUTURE })).body.data.send_at).toBe('2099-06-01T10:00:00.000Z');
    expect((await move(c.id, 'scheduled')).body.data.status).toBe('scheduled');
    const moved = await t.api('PUT', `/api/campaigns/${c.id}`, { send_at: '2099-07-01T00:00:00' });
    expect(moved.body.data).toMatchObject({ status: 'scheduled', send_at: '2099-07-01T00:00:00.000Z' });
    const unscheduled = await t.api('PUT', `/api/campaigns/${c.id}`, { send_at: null });
    expect(unscheduled.body.data).toMatchObject({ status: 'draft', send_at: null });
  });

  it('edits a paused campaign', async () => {
    const c = await create();
    await move(c.id, 'running');
    await move(c.id, 'paused');
    const res = await t.api('PUT', `/api/campaigns/${c.id}`, { subject: 'Better subject' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'paused', subject: 'Better subject' });
  });

  it('refuses running, cancelled and finished campaigns with 400, changing nothing', async () => {
    for (const status of ['running', 'cancelled', 'finished']) {
      const c = await create();
      await force(c.id, status);
      const before = await get(c.id);
      const res = await t.api('PUT', `/api/campaigns/${c.id}`, { name: 'Nope' });
      expect(res.status, status).toBe(400);
      expect(res.body.message).toBe(`status: only draft, scheduled or paused campaigns can be edited; campaign ${c.id} is "${status}"`);
      expect(await get(c.id)).toEqual(before);
    }
  });

  // Patches are functions: list ids are known only once the lists exist.
  const refused: Array<[string, () => Record<string, unknown>, number, RegExp]> = [
    ['a past send_at', () => ({ send_at: '2001-01-01T00:00:00Z' }), 400, /^send_at: must be in the future$/],
    ['an unknown list', () => ({ lists: [listA, 987654] }), 400, /^lists: unknown list id\(s\): 987654$/],
    ['no lists', () => ({ lists: [] }), 400, /^lists: /],
    ['an unknown messenger', () => ({ messenger: 'carrier-pigeon' }), 400, /^messenger: unknown messenger "carrier-pigeon"; configured: email$/],
    ['a tx template', () => ({ template_id: 3 }), 400, /^template_id: template 3 is a "tx" template/],
    ['an unknown template', () => ({ template_id: 987654 }), 400, /^template_id: template 987654 not found$/],
    ['a body that does not parse', () => ({ body: '<p>\n{{ if .X }}' }), 400, /^body: template error at line 2, column \d+: /],
    ['a subject that does not parse', () => ({ subject: '{{ .X | }}' }), 400, /^subject: template error at line 1, column \d+: /],
    ['an altbody that does not parse', () => ({ altbody: '{{ end }}' }), 400, /^altbody: template error at line 1, column \d+: /],
    ['a header that does not parse', () => ({ headers: [{ 'X-A': '{{ .X | }}' }] }), 400, /^headers: template error at line 1/],
    ['a reserved header', () => ({ headers: [{ Subject: 'x' }] }), 400, /^headers\.0: "Subject" is set by Mailroom/],
    ['a blank name', () => ({ name: ' ' }), 400, /^name: must not be blank$/],
    ['a wrong type of value', () => ({ name: 5 }), 400, /^name: must be string$/],
    ['an unknown content type', () => ({ content_type: 'pdf' }), 400, /^content_type: must be one of richtext, html, markdown, plain, visual$/],
    ['an opt-in type without double opt-in list', () => ({ type: 'optin' }), 400, /^lists: an opt-in campaign needs at least one double opt-in list$/],
  ];
  for (const [what, patch, status, message] of refused) {
    it(`refuses ${what}, changing nothing`, async () => {
      const c = await create();
      const res = await t.api('PUT', `/api/campaigns/${c.id}`, patch());
      expect(res.status).toBe(status);
      expect(res.body.message).toMatch(message);
      expect(await get(c.id)).toEqual(c);
    });
  }

  it('answers 404 for an unknown campaign and 409 for an archive slug another campaign uses', async () => {
    expect((await t.api('PUT', '/api/campaigns/987654', { name: 'x' })).status).toBe(404);
    await create({ archive_slug: 'Taken Slug' });
    const c = await create();
    const res = await t.api('PUT', `/api/campaigns/${c.id}`, { archive_slug: 'taken-slug' });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('archive_slug: "taken-slug" is already used by another campaign');
  });
});

describe('PUT /api/campaigns/:id/status: every move of spec part 3', () => {
  const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished'];
  const REQUESTS = ['draft', 'scheduled', 'running', 'paused', 'cancelled'];
  const ALLOWED = new Set(['draft>scheduled', 'scheduled>draft', 'draft>running', 'paused>running', 'running>paused', 'running>cancelled']);
  for (const from of STATUSES) {
    it(`from ${from}: allows exactly the table's moves, refuses the rest with 400 and no change`, async () => {
      for (const to of REQUESTS) {
        const c = await create({ send_at: FUTURE });
        if (from !== 'draft') await t.testDb.db.sql('UPDATE campaigns SET status = $2 WHERE id = $1', [c.id, from]);
        const res = await move(c.id, to);
        if (ALLOWED.has(`${from}>${to}`)) {
          expect(res.status, `${from} → ${to}`).toBe(200);
          expect(res.body.data.status).toBe(to);
          expect((await get(c.id)).status).toBe(to);
        } else {
          expect(res.status, `${from} → ${to}`).toBe(400);
          expect(res.body.message).toMatch(new RegExp(`^status: cannot change a "${from}" campaign to "${to}"`));
          expect((await get(c.id)).status).toBe(from);
        }
      }
    });
  }
});

describe('DELETE /api/campaigns/:id', () => {
  it('deletes a scheduled campaign that has not started', async () => {
    const c = await create({ send_at: FUTURE });
    await move(c.id, 'scheduled');
    const res = await t.api('DELETE', `/api/campaigns/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: true });
    expect((await t.api('GET', `/api/campaigns/${c.id}`)).status).toBe(404);
  });

  it('refuses every other campaign with 400 naming its status, and keeps it', async () => {
    for (const status of ['draft', 'running', 'paused', 'cancelled', 'finished']) {
      const c = await create();
      if (status !== 'draft') await force(c.id, status);
      const res = await t.api('DELETE', `/api/campaigns/${c.id}`);
      expect(res.status, status).toBe(400);
      expect(res.body.message).toBe(`status: only a scheduled campaign that has not started can be deleted; campaign ${c.id} is "${status}"`);
      expect((await t.api('GET', `/api/campaigns/${c.id}`)).status).toBe(200);
    }
    expect((await t.api('DELETE', '/api/campaigns/987654')).status).toBe(404);
  });
});

describe('previews', () => {
  it('GET renders the stored campaign inside its template for a sample subscriber, sandboxed', async () => {
    const c = await create({ body: '<p>Hello {{ .Subscriber.FirstName }} from {{ .Subscriber.Attribs.city }}</p>' });
    const res = await t.api('GET', `/api/campaigns/${c.id}/preview`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^sandbox\b/u);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toMatch(/^<!doctype html>/u);
    expect(res.body).toContain('<p>Hello Demo from Bengaluru</p>');
    expect(res.body).toContain(`${ROOT_URL}/subscription/${c.uuid}/00000000-0000-0000-0000-000000000000`);
    expect(res.body).not.toContain('px.png');
  });

  it('GET answers text/plain for plain campaigns, without the template', async () => {
    const c = await create({ content_type: 'plain', body: 'Hi {{ .Subscriber.Name }} <3' });
    const res = await t.api('GET', `/api/campaigns/${c.id}/preview`);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('Hi Demo Subscriber <3');
  });

  it('POST renders posted body, content type and template (JSON) without saving', async () => {
    const c = await create();
    const res = await t.api('POST', `/api/campaigns/${c.id}/preview`, { body: '# Title {{ .Subscriber.FirstName }}', content_type: 'markdown', template_id: null });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>Title Demo</h1>');
    expect(await get(c.id)).toEqual(c);
  });

  it('POST reads listmonk\'s form fields (an empty template_id: the campaign\'s own); no body renders the stored campaign', async () => {
    const c = await create();
    const archiveTpl = (await t.api('GET', '/api/templates')).body.data.find((x: { name: string }) => x.name === 'Default archive template').id;
    const own = await form(`/api/campaigns/${c.id}/preview`, { body: '<p>Form {{ .Subscriber.Email }}</p>', content_type: 'html', template_id: '' });
    expect(own.statusCode).toBe(200);
    expect(own.body).toContain('<p>Form demo@example.com</p>');
    expect(own.body).toContain('View in browser');
    const empty = await t.app.inject({ method: 'POST', url: `/api/campaigns/${c.id}/preview`, headers: { authorization: AUTH } });
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('<p>Hello Demo Subscriber</p>');
    const other = await form(`/api/campaigns/${c.id}/preview`, { body: '<p>x</p>', template_id: String(archiveTpl) });
    expect(other.body).not.toContain('View in browser');
    expect(other.body).toContain('<h1 style="font-size: 24px; margin: 0 0 24px;">Hi {{ .Subscriber.FirstName }}</h1>');
  });

  it('refuses template errors (with line and column), tx templates and unknown campaigns', async () => {
    const c = await create();
    const bad = await t.api('POST', `/api/campaigns/${c.id}/preview`, { body: '<p>ok</p>\n<p>{{ index (list 1 2) 5 }}</p>' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^body: template error at line 2, column \d+: /);
    const tx = await t.api('POST', `/api/campaigns/${c.id}/preview`, { template_id: 3 });
    expect(tx.status).toBe(400);
    expect(tx.body.message).toMatch(/^template_id: template 3 is a "tx" template/);
    expect((await t.api('GET', '/api/campaigns/987654/preview')).status).toBe(404);
  });
});

describe('PUT /api/campaigns/:id/archive', () => {
  it('sets the archive settings in any status and answers them', async () => {
    const c = await create();
    await force(c.id, 'finished');
    const res = await t.api('PUT', `/api/campaigns/${c.id}/archive`, { archive: true, archive_slug: 'March Issue!', archive_meta: { name: 'Reader' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ archive: true, archive_slug: 'march-issue', archive_template_id: null, archive_meta: { name: 'Reader' } });
    expect(await get(c.id)).toMatchObject({ archive: true, archive_slug: 'march-issue', status: 'finished' });
  });

  it('refuses a tx or unknown archive template (400), a used slug (409) and unknown campaigns (404)', async () => {
    const c = await create();
    expect((await t.api('PUT', `/api/campaigns/${c.id}/archive`, { archive_template_id: 3 })).body.message).toMatch(/^archive_template_id: template 3 is a "tx" template/);
    expect((await t.api('PUT', `/api/campaigns/${c.id}/archive`, { archive_template_id: 987654 })).status).toBe(400);
    await create({ archive_slug: 'one-slug' });
    expect((await t.api('PUT', `/api/campaigns/${c.id}/archive`, { archive_slug: 'One Slug' })).status).toBe(409);
    expect((await t.api('PUT', '/api/campaigns/987654/archive', { archive: true })).status).toBe(404);
    expect(await get(c.id)).toEqual(c);
  });
});

describe('GET /api/campaigns/running/stats', () => {
  it('answers one element per requested running campaign, with rates in messages per minute from the database', async () => {
    const running = await create();
    const draft = await create();
    await move(running.id, 'running');
    // The engine (on any instance) adds confirmed sends to campaigns.sent; these statements do the same.
    await t.testDb.db.sql(`UPDATE campaigns SET to_send = 500, started_at = now() - interval '10 minutes' WHERE id = $1`, [running.id]);
    for (const n of [40, 50]) await t.testDb.db.sql('UPDATE campaigns SET sent = sent + $2 WHERE id = $1', [running.id, n]);
    // Sends older than a minute do not count in the recent rate.
    await t.testDb.db.sql(`UPDATE campaign_send_rate SET bucket = bucket - interval '5 minutes' WHERE campaign_id = $1`, [running.id]);
    await t.testDb.db.sql('UPDATE campaigns SET sent = sent + 30 WHERE id = $1', [running.id]);

    const res = await t.api('GET', `/api/campaigns/running/stats?campaign_id=${running.id}&campaign_id=${draft.id}&campaign_id=987654`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const s = res.body.data[0];
    expect(s).toMatchObject({ id: running.id, status: 'running', to_send: 500, sent: 120, rate: 30 });
    expect(s.net_rate).toBeGreaterThan(11.5); // 120 sent over a little more than ten minutes
    expect(s.net_rate).toBeLessThanOrEqual(12);
    expect(Object.keys(s).sort()).toEqual(['id', 'net_rate', 'rate', 'sent', 'started_at', 'status', 'to_send', 'updated_at']);
  });

  it('lists every running campaign without campaign_id, and refuses bad ids', async () => {
    const res = await t.api('GET', '/api/campaigns/running/stats');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((s: { status: string }) => s.status === 'running')).toBe(true);
    const bad = await t.api('GET', '/api/campaigns/running/stats?campaign_id=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^campaign_id/);
  });
});
