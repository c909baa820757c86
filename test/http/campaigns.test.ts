/**
 * Campaigns API (spec 4.7): create (with every field's validation, opt-in campaigns, archive fields),
 * get, list (search, status, tags, order_by), status moves (every allowed and refused move of spec
 * part 3). Update, delete, previews and stats: campaign-editing.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let listId: number;
beforeAll(async () => {
  // No runner: these tests look at the API only; the engine has its own tests.
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  listId = (await t.api('POST', '/api/lists', { name: 'News', type: 'public', optin: 'single' })).body.data.id;
});
afterAll(async () => t.close());

const base = () => ({ name: 'Hello', subject: 'Hello {{ .Subscriber.FirstName }}', lists: [listId], type: 'regular', content_type: 'richtext', body: '<p>Hi {{ .Subscriber.Name }}</p>' });

describe('POST /api/campaigns', () => {
  it('creates a draft with the default template and sender', async () => {
    const res = await t.api('POST', '/api/campaigns', { ...base(), tags: ['a b'], headers: [{ 'X-Tag': 'x' }] });
    expect(res.status).toBe(200);
    const c = res.body.data;
    const templates = (await t.api('GET', '/api/templates')).body.data;
    const def = templates.find((x: { is_default: boolean }) => x.is_default);
    expect(c).toMatchObject({ status: 'draft', name: 'Hello', type: 'regular', content_type: 'richtext', messenger: 'email', from_email: 'Mailroom Test <news@mailroom.test>', template_id: def.id, to_send: 0, sent: 0, views: 0, clicks: 0, bounces: 0, tags: ['a-b'], headers: [{ 'X-Tag': 'x' }], lists: [{ id: listId, name: 'News' }], started_at: null, send_at: null, altbody: null });
    expect((await t.api('GET', `/api/campaigns/${c.id}`)).body.data).toEqual(c);
  });

  it('stores a future send_at given without offset as UTC', async () => {
    const res = await t.api('POST', '/api/campaigns', { ...base(), send_at: '2099-01-02T03:04:05' });
    expect(res.body.data.send_at).toBe('2099-01-02T03:04:05.000Z');
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['missing name', { name: undefined }, /^name: is required/],
    ['blank subject', { subject: '  ' }, /^subject: must not be blank/],
    ['no lists', { lists: [] }, /^lists: /],
    ['unknown list', { lists: [424242] }, /^lists: unknown list id\(s\): 424242/],
    ['bad type', { type: 'weekly' }, /^type: must be one of regular, optin/],
    ['bad content type', { content_type: 'pdf' }, /^content_type: must be one of/],
    ['bad from_email', { from_email: 'nobody' }, /^from_email: /],
    ['past send_at', { send_at: '2001-01-01T00:00:00Z' }, /^send_at: must be in the future/],
    ['garbage send_at', { send_at: 'tomorrow' }, /^send_at: must be a date-time/],
    ['unknown messenger', { messenger: 'pigeon' }, /^messenger: unknown messenger "pigeon"/],
    ['unknown template', { template_id: 99999 }, /^template_id: template 99999 not found/],
    ['template syntax error', { body: '<p>{{ .Subscriber.Name </p>' }, /^body: template error at line 1/],
    ['opt-in campaign without double opt-in list', { type: 'optin' }, /^lists: an opt-in campaign needs/],
  ];
  for (const [what, patch, message] of bad) {
    it(`refuses ${what} with 400`, async () => {
      const body = { ...base(), ...patch };
      const before = (await t.api('GET', '/api/campaigns?per_page=1')).body.data.total;
      const res = await t.api('POST', '/api/campaigns', JSON.parse(JSON.stringify(body)));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect((await t.api('GET', '/api/campaigns?per_page=1')).body.data.total).toBe(before);
    });
  }
});

describe('POST /api/campaigns: content, opt-in and archive fields', () => {
  it('stores archive settings with a slugified slug', async () => {
    const res = await t.api('POST', '/api/campaigns', { ...base(), archive: true, archive_slug: ' Spring Issue #1 ', archive_meta: { name: 'Reader', attribs: { city: 'Oslo' } } });
    expect(res.body.data).toMatchObject({ archive: true, archive_slug: 'spring-issue-1', archive_meta: { name: 'Reader', attribs: { city: 'Oslo' } }, archive_template_id: null });
  });

  it('generates the body of an opt-in campaign created without one, with the opt-in link for its double opt-in lists', async () => {
    const double = (await t.api('POST', '/api/lists', { name: 'Confirm me', type: 'public', optin: 'double' })).body.data;
    const res = await t.api('POST', '/api/campaigns', { ...base(), type: 'optin', body: '', content_type: 'markdown', lists: [listId, double.id] });
    expect(res.status).toBe(200);
    const c = res.body.data;
    expect(c).toMatchObject({ type: 'optin', content_type: 'richtext' });
    expect(c.body).toContain('<li>Confirm me</li>');
    expect(c.body).toContain(`href="{{ OptinURL }}l=${double.uuid}"`);
    expect(c.body).not.toContain('News');
  });

  it('keeps an opt-in body that carries the opt-in link, and refuses one that does not', async () => {
    const double = (await t.api('POST', '/api/lists', { name: 'Confirm too', type: 'public', optin: 'double' })).body.data.id;
    const ok = await t.api('POST', '/api/campaigns', { ...base(), type: 'optin', lists: [double], body: '<a href="{{ OptinURL }}">Yes</a>' });
    expect(ok.body.data.body).toBe('<a href="{{ OptinURL }}">Yes</a>');
    const bad = await t.api('POST', '/api/campaigns', { ...base(), type: 'optin', lists: [double], body: '<p>no link</p>' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^body: an opt-in campaign must contain the opt-in link \{\{ OptinURL \}\}/);
  });

  it('copies a visual template into a visual campaign, as listmonk does', async () => {
    const visual = (await t.api('POST', '/api/templates', { name: 'Visual', type: 'campaign_visual', body: '<html><body>{{ .Subscriber.Name }}</body></html>', body_source: '{"b":1}' })).body.data.id;
    const c = (await t.api('POST', '/api/campaigns', { ...base(), body: '', template_id: visual })).body.data;
    expect(c).toMatchObject({ content_type: 'visual', body: '<html><body>{{ .Subscriber.Name }}</body></html>', body_source: '{"b":1}', template_id: null });
  });

  it('keeps per-campaign headers and refuses invalid or reserved header names', async () => {
    const ok = await t.api('POST', '/api/campaigns', { ...base(), headers: [{ 'Reply-To': 'help@x.org' }, { 'X-Campaign': '{{ .Campaign.Name }}' }] });
    expect(ok.body.data.headers).toEqual([{ 'Reply-To': 'help@x.org' }, { 'X-Campaign': '{{ .Campaign.Name }}' }]);
    expect((await t.api('POST', '/api/campaigns', { ...base(), headers: [{ 'Bad Name': 'x' }] })).body.message).toMatch(/^headers\.0: "Bad Name" is not a valid header name/);
    expect((await t.api('POST', '/api/campaigns', { ...base(), headers: [{ To: 'x@y.org' }] })).body.message).toMatch(/^headers\.0: "To" would add recipients/);
    expect((await t.api('POST', '/api/campaigns', { ...base(), headers: [{ 'X-A': 5 }] })).status).toBe(400);
  });

  it('stores the body of every content type as written', async () => {
    for (const content_type of ['richtext', 'html', 'markdown', 'plain']) {
      const body = content_type === 'markdown' ? '# Hi {{ .Subscriber.Name }}' : 'Hi {{ .Subscriber.Name }}';
      const c = (await t.api('POST', '/api/campaigns', { ...base(), content_type, body })).body.data;
      expect(c).toMatchObject({ content_type, body });
    }
  });
});

describe('GET /api/campaigns', () => {
  it('filters by tags (all must match) and orders by the allowed columns', async () => {
    await t.api('POST', '/api/campaigns', { ...base(), name: 'Zeta tagged', tags: ['t-one', 't-two'], send_at: '2099-03-01T00:00:00Z' });
    await t.api('POST', '/api/campaigns', { ...base(), name: 'Alpha tagged', tags: ['t-one'], send_at: '2099-02-01T00:00:00Z' });
    const both = (await t.api('GET', '/api/campaigns?tag=t-one&tag=t-two')).body.data;
    expect(both.results.map((c: { name: string }) => c.name)).toEqual(['Zeta tagged']);
    const byName = (await t.api('GET', '/api/campaigns?tag=t-one&order_by=name&order=asc')).body.data.results.map((c: { name: string }) => c.name);
    expect(byName).toEqual(['Alpha tagged', 'Zeta tagged']);
    const bySendAt = (await t.api('GET', '/api/campaigns?tag=t-one&order_by=send_at&order=DESC')).body.data.results.map((c: { name: string }) => c.name);
    expect(bySendAt).toEqual(['Zeta tagged', 'Alpha tagged']);
    for (const order_by of ['id', 'status', 'created_at', 'updated_at']) {
      expect((await t.api('GET', `/api/campaigns?order_by=${order_by}`)).status, order_by).toBe(200);
    }
    const bad = await t.api('GET', '/api/campaigns?order_by=subject');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('order_by: must be one of id, name, status, created_at, updated_at, send_at');
  });


  it('searches name and subject, filters by status, and echoes query', async () => {
    await t.api('POST', '/api/campaigns', { ...base(), name: 'Winter sale', subject: 'Cold deals' });
    const res = await t.api('GET', '/api/campaigns?query=WINTER');
    expect(res.body.data).toMatchObject({ total: 1, query: 'WINTER' });
    expect((await t.api('GET', '/api/campaigns?query=cold')).body.data.total).toBe(1);
    expect((await t.api('GET', '/api/campaigns?status=running')).body.data.total).toBe(0);
    expect((await t.api('GET', '/api/campaigns?status=bogus')).status).toBe(400);
  });

  it('answers 404 for an unknown campaign', async () => {
    expect((await t.api('GET', '/api/campaigns/987654')).status).toBe(404);
  });
});

describe('PUT /api/campaigns/:id/status', () => {
  const create = async (sendAt?: string) => (await t.api('POST', '/api/campaigns', { ...base(), ...(sendAt ? { send_at: sendAt } : {}) })).body.data.id as number;
  const move = (id: number, status: string) => t.api('PUT', `/api/campaigns/${id}/status`, { status });

  it('walks draft → scheduled → draft → running → paused → running → cancelled', async () => {
    const id = await create('2099-01-01T00:00:00Z');
    for (const status of ['scheduled', 'draft', 'running', 'paused', 'running', 'cancelled']) {
      const res = await move(id, status);
      expect(res.status, status).toBe(200);
      expect(res.body.data.status).toBe(status);
    }
    const c = (await t.api('GET', `/api/campaigns/${id}`)).body.data;
    expect(c.status).toBe('cancelled');
    expect(c.started_at).not.toBeNull();
  });

  it('refuses every move outside the table with 400 naming both statuses, and changes nothing', async () => {
    const id = await create();
    const refusals: Array<[string, RegExp]> = [
      ['paused', /cannot change a "draft" campaign to "paused"/],
      ['cancelled', /cannot change a "draft" campaign to "cancelled"/],
      ['draft', /cannot change a "draft" campaign to "draft"/],
    ];
    for (const [status, message] of refusals) {
      const res = await move(id, status);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api('GET', `/api/campaigns/${id}`)).body.data.status).toBe('draft');
    await move(id, 'running');
    await move(id, 'paused');
    expect((await move(id, 'cancelled')).body.message).toMatch(/cannot change a "paused" campaign to "cancelled"/);
    expect((await move(id, 'scheduled')).body.message).toMatch(/cannot change a "paused" campaign to "scheduled"/);
  });

  it('refuses scheduling without send_at, unknown statuses, and unknown campaigns', async () => {
    const id = await create();
    expect((await move(id, 'scheduled')).body.message).toBe('status: the campaign needs send_at to be scheduled');
    expect((await move(id, 'finished')).body.message).toMatch(/^status: must be one of/);
    expect((await move(id, 'bogus')).status).toBe(400);
    expect((await t.api('PUT', `/api/campaigns/${id}/status`, {})).body.message).toBe('status: is required');
    expect((await move(999999, 'running')).status).toBe(404);
  });
});
