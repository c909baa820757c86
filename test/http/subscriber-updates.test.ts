/**
 * Subscribers API, spec 4.1 and reference §4.4–4.5, §4.10 (issue 3 §1, §3, §5): full replacement
 * (PUT), partial update (PATCH), re-sending the opt-in e-mail, the JSON data export and the CSV export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailsTo, waitForMailTo } from '../helpers/mail.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let single: number;
let double: number;
let other: number;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
  single = (await t.api('POST', '/api/lists', { name: 'Single', type: 'public', optin: 'single' })).body.data.id;
  double = (await t.api('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
  other = (await t.api('POST', '/api/lists', { name: 'Secret', type: 'private', optin: 'single' })).body.data.id;
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

type Sub = { id: number; lists: Array<{ id: number; subscription_status: string }> };
const statuses = (s: Sub) => Object.fromEntries(s.lists.map((l) => [l.id, l.subscription_status]));
async function create(email: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api('POST', '/api/subscribers', { email, ...extra });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data.id;
}
/** Sets memberships directly to the given statuses (via the API's own list endpoint). */
async function setStatus(id: number, list: number, status: string): Promise<void> {
  expect((await t.api('PUT', `/api/subscribers/lists/${id}`, { action: 'add', target_list_ids: [list], status })).status).toBe(200);
}

describe('PUT /api/subscribers/:id', () => {
  it('replaces the record and answers the subscriber as GET does', async () => {
    const id = await create('put.me@x.org', { name: 'Put Me', lists: [single, other], attribs: { a: 1, b: 2 } });
    const res = await t.api('PUT', `/api/subscribers/${id}`, { email: 'Put.New@X.org', name: 'New Name', status: 'disabled', lists: [single], attribs: { c: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, email: 'put.new@x.org', name: 'New Name', status: 'disabled', attribs: { c: 3 } });
    expect(res.body.data.lists.map((l: { id: number; name: string }) => [l.id, l.name])).toEqual([[single, 'Single']]);
    expect(res.body.data).toEqual((await t.api('GET', `/api/subscribers/${id}`)).body.data);
  });

  it('removes every membership and clears attribs when they are omitted; keeps name and status when omitted', async () => {
    const id = await create('put.omit@x.org', { name: 'Kept', status: 'disabled', lists: [single, double], attribs: { x: 1 } });
    const res = await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.omit@x.org' });
    expect(res.body.data).toMatchObject({ name: 'Kept', status: 'disabled', attribs: {}, lists: [] });
    expect((await t.api('GET', `/api/subscribers?list_id=${double}&query=${encodeURIComponent(`subscribers.id = ${id}`)}`)).body.data.total).toBe(0);
  });

  it('keeps unsubscribed and confirmed memberships; confirms unconfirmed ones only when preconfirmed', async () => {
    const id = await create('put.status@x.org', { lists: [single, double, other] });
    await setStatus(id, single, 'unsubscribed');
    await setStatus(id, other, 'confirmed');
    const res = await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.status@x.org', lists: [single, double, other] });
    expect(statuses(res.body.data)).toEqual({ [single]: 'unsubscribed', [double]: 'unconfirmed', [other]: 'confirmed' });
    const pre = await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.status@x.org', lists: [single, double, other], preconfirm_subscriptions: true });
    expect(statuses(pre.body.data)).toEqual({ [single]: 'unsubscribed', [double]: 'confirmed', [other]: 'confirmed' });
  });

  it('blocklisting through PUT unsubscribes every membership', async () => {
    const id = await create('put.block@x.org', { lists: [single, double], preconfirm_subscriptions: true });
    const res = await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.block@x.org', status: 'blocklisted', lists: [single, double, other] });
    expect(res.body.data.status).toBe('blocklisted');
    expect(statuses(res.body.data)).toEqual({ [single]: 'unsubscribed', [double]: 'unsubscribed', [other]: 'unsubscribed' });
  });

  it('sends the opt-in e-mail when a double opt-in membership is added, not when saving again', async () => {
    const id = await create('put.optin@x.org', { lists: [single] });
    await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.optin@x.org', lists: [single, double] });
    await waitForMailTo(sink, 'put.optin@x.org');
    await t.api('PUT', `/api/subscribers/${id}`, { email: 'put.optin@x.org', name: 'Renamed', lists: [single, double] });
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'put.optin@x.org')).toHaveLength(1);
  });

  it('refuses bad input with 400, a taken e-mail with 409, an unknown id with 404, and changes nothing', async () => {
    const id = await create('put.keep@x.org', { name: 'Keep Me', lists: [single], attribs: { k: 1 } });
    await create('taken@x.org');
    const before = (await t.api('GET', `/api/subscribers/${id}`)).body.data;
    const cases: Array<[unknown, number, RegExp]> = [
      [{ name: 'x' }, 400, /^email: is required/],
      [{ email: 'bad' }, 400, /^email: is not a valid/],
      [{ email: 'TAKEN@x.org' }, 409, /^email: a subscriber with this e-mail already exists/],
      [{ email: 'put.keep@x.org', status: 'gone' }, 400, /^status: must be one of enabled, disabled, blocklisted/],
      [{ email: 'put.keep@x.org', lists: [999999] }, 400, /^lists: unknown list id\(s\): 999999/],
      [{ email: 'put.keep@x.org', attribs: 'x' }, 400, /^attribs: must be object/],
      [{ email: 'put.keep@x.org', name: 'n'.repeat(2001) }, 400, /^name: must be at most 2000 characters/],
    ];
    for (const [body, status, message] of cases) {
      const res = await t.api('PUT', `/api/subscribers/${id}`, body);
      expect([res.status, res.body.message]).toEqual([status, expect.stringMatching(message)]);
    }
    expect((await t.api('GET', `/api/subscribers/${id}`)).body.data).toEqual(before);
    expect((await t.api('PUT', '/api/subscribers/999999', { email: 'nobody@x.org' })).status).toBe(404);
  });
});

describe('PATCH /api/subscribers/:id', () => {
  it('changes only the fields sent and merges attribs', async () => {
    const id = await create('patch.me@x.org', { name: 'Patch Me', lists: [single, double], attribs: { a: 1, nested: { x: 1 } } });
    const res = await t.api('PATCH', `/api/subscribers/${id}`, { name: 'Patched', attribs: { b: 2, nested: { y: 2 } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ email: 'patch.me@x.org', name: 'Patched', status: 'enabled', attribs: { a: 1, b: 2, nested: { y: 2 } } });
    expect(res.body.data.lists.map((l: { id: number }) => l.id)).toEqual([single, double]);
    const status = await t.api('PATCH', `/api/subscribers/${id}`, { status: 'disabled', email: 'PATCHED@x.org' });
    expect(status.body.data).toMatchObject({ email: 'patched@x.org', status: 'disabled', name: 'Patched' });
  });

  it('replaces memberships when lists is sent ([] removes them all)', async () => {
    const id = await create('patch.lists@x.org', { lists: [single] });
    expect(statuses((await t.api('PATCH', `/api/subscribers/${id}`, { lists: [other], preconfirm_subscriptions: true })).body.data)).toEqual({ [other]: 'confirmed' });
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { lists: [] })).body.data.lists).toEqual([]);
  });

  it('blocklisting through PATCH unsubscribes every membership', async () => {
    const id = await create('patch.block@x.org', { lists: [single, double] });
    const res = await t.api('PATCH', `/api/subscribers/${id}`, { status: 'blocklisted' });
    expect(statuses(res.body.data)).toEqual({ [single]: 'unsubscribed', [double]: 'unsubscribed' });
  });

  it('refuses bad values and conflicts, changing nothing; 404 for an unknown id', async () => {
    const id = await create('patch.keep@x.org', { attribs: { k: 'v'.repeat(60_000) } });
    await create('patch.taken@x.org');
    const before = (await t.api('GET', `/api/subscribers/${id}`)).body.data;
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { email: 'patch.taken@x.org' })).status).toBe(409);
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { attribs: { more: 'm'.repeat(6_000) } })).body.message).toMatch(/^attribs: must be at most 65536 bytes/);
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { status: 'blocked' })).body.message).toMatch(/^status: must be one of/);
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { lists: [single, 999999] })).body.message).toMatch(/^lists: unknown list id/);
    expect((await t.api('GET', `/api/subscribers/${id}`)).body.data).toEqual(before);
    expect((await t.api('PATCH', '/api/subscribers/999999', { name: 'x' })).status).toBe(404);
  });
});

describe('POST /api/subscribers/:id/optin', () => {
  it('sends the opt-in e-mail again while memberships await confirmation', async () => {
    const id = await create('resend@x.org', { lists: [double] });
    await waitForMailTo(sink, 'resend@x.org', 1);
    expect((await t.api('POST', `/api/subscribers/${id}/optin`)).body).toEqual({ data: true });
    expect(mailsTo(sink, 'resend@x.org')).toHaveLength(2);
    expect(mailsTo(sink, 'resend@x.org')[1]!.parsed.html).toContain('/subscription/optin/');
  });

  it('answers true without sending when nothing awaits confirmation; 404 for an unknown subscriber', async () => {
    const id = await create('nothing@x.org', { lists: [double], preconfirm_subscriptions: true });
    expect((await t.api('POST', `/api/subscribers/${id}/optin`)).body).toEqual({ data: true });
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'nothing@x.org')).toHaveLength(0);
    expect((await t.api('POST', '/api/subscribers/999999/optin')).status).toBe(404);
  });

  it('keeps the subscriber when the mail server refuses, and says so on a re-send', async () => {
    sink.reject = (rcpt) => (rcpt === 'refused@x.org' ? 550 : null);
    try {
      const created = await t.api('POST', '/api/subscribers', { email: 'refused@x.org', lists: [double] });
      expect(created.status).toBe(200);
      await t.deps.optinMailer.drain();
      expect((await t.api('GET', `/api/subscribers/${created.body.data.id}`)).body.data.lists[0].subscription_status).toBe('unconfirmed');
      const res = await t.api('POST', `/api/subscribers/${created.body.data.id}/optin`);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^email: the mail server refused the opt-in e-mail/);
    } finally {
      sink.reject = null;
    }
  });
});

describe('the opt-in e-mail', () => {
  it('uses the editable template named by app.optin_template_id, with listmonk\'s data', async () => {
    const [tpl] = await t.testDb.db.sql<{ id: number }>(
      "INSERT INTO templates (name, type, subject, body) VALUES ('My opt-in', 'tx', 'Please confirm, {{ .Subscriber.FirstName }}', $1) RETURNING id",
      ['<p>{{ range .Lists }}[{{ .Name }}|{{ .Type }}|{{ .Optin }}]{{ end }} <a href="{{ .OptinURL }}">yes</a> <a href="{{ .UnsubURL }}">no</a></p>'],
    );
    const previous = (await t.api('GET', '/api/settings')).body.data['app.optin_template_id'];
    await t.deps.settings.update({ 'app.optin_template_id': tpl!.id });
    try {
      const id = await create('custom.tpl@x.org', { name: 'Custom Template', lists: [double, single] });
      const [mail] = await waitForMailTo(sink, 'custom.tpl@x.org');
      const uuid = (await t.api('GET', `/api/subscribers/${id}`)).body.data.uuid;
      const listUuid = (await t.api('GET', `/api/lists/${double}`)).body.data.uuid;
      expect(mail!.parsed.subject).toBe('Please confirm, Custom');
      expect(mail!.parsed.html).toContain('[Double|public|double]');
      expect(mail!.parsed.html).toContain(`href="http://mailroom.test/subscription/optin/${uuid}?l=${listUuid}"`);
      expect(mail!.parsed.html).toContain(`href="http://mailroom.test/subscription/00000000-0000-0000-0000-000000000000/${uuid}"`);
      expect(mail!.parsed.headers.get('x-listmonk-subscriber')).toBe(uuid);
      // A template that no longer exists falls back to the shipped one rather than failing.
      await t.testDb.db.sql('DELETE FROM templates WHERE id = $1', [tpl!.id]);
      await t.api('POST', `/api/subscribers/${id}/optin`);
      expect(mailsTo(sink, 'custom.tpl@x.org')[1]!.parsed.subject).toBe('Confirm your subscription');
    } finally {
      await t.deps.settings.update({ 'app.optin_template_id': previous });
    }
  });

  it('is not sent automatically when app.send_optin_confirmation is off, but can still be sent on request', async () => {
    await t.deps.settings.update({ 'app.send_optin_confirmation': false });
    try {
      const id = await create('no.auto@x.org', { lists: [double] });
      await t.deps.optinMailer.drain();
      expect(mailsTo(sink, 'no.auto@x.org')).toHaveLength(0);
      await t.api('POST', `/api/subscribers/${id}/optin`);
      expect(mailsTo(sink, 'no.auto@x.org')).toHaveLength(1);
    } finally {
      await t.deps.settings.update({ 'app.send_optin_confirmation': true });
    }
  });
});

describe('GET /api/subscribers/:id/export', () => {
  it("downloads the subscriber's profile, subscriptions, views and clicks as JSON", async () => {
    const id = await create('export.me@x.org', { name: 'Export Me', lists: [single, other], attribs: { city: 'Oslo' } });
    const campaign = (await t.api('POST', '/api/campaigns', { name: 'C', subject: 'Hello there', lists: [single], type: 'regular', content_type: 'html', body: '<p>x</p>' })).body.data;
    await t.testDb.db.sql('INSERT INTO campaign_views (campaign_id, subscriber_id) VALUES ($1, $2), ($1, $2)', [campaign.id, id]);
    const [link] = await t.testDb.db.sql<{ id: number }>("INSERT INTO links (url) VALUES ('https://example.org/a') RETURNING id");
    await t.testDb.db.sql('INSERT INTO link_clicks (campaign_id, link_id, subscriber_id) VALUES ($1, $2, $3)', [campaign.id, link!.id, id]);
    const res = await t.api('GET', `/api/subscribers/${id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="data.json"');
    expect(res.body.profile).toEqual([expect.objectContaining({ id, email: 'export.me@x.org', name: 'Export Me', attribs: { city: 'Oslo' } })]);
    expect(res.body.subscriptions.map((s: { name: string; subscription_status: string }) => [s.name, s.subscription_status])).toEqual([['Single', 'unconfirmed'], ['Private list', 'unconfirmed']]);
    expect(res.body.campaign_views).toEqual([{ campaign: 'Hello there', views: 2 }]);
    expect(res.body.link_clicks).toEqual([{ url: 'https://example.org/a', clicks: 1 }]);
    expect((await t.api('GET', '/api/subscribers/999999/export')).status).toBe(404);
  });
});

describe('GET /api/subscribers/export', () => {
  it('streams the matching subscribers as CSV in id order, neutralising formulas', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'CSV' })).body.data.id;
    const a = await create('csv.a@x.org', { name: '=HYPERLINK("http://evil")', lists: [list], attribs: { q: 'a,"b"' } });
    const b = await create('csv.b@x.org', { name: 'Plain, Name', lists: [list] });
    const res = await t.api('GET', `/api/subscribers/export?list_id=${list}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="subscribers.csv"');
    const lines = String(res.body).trimEnd().split('\r\n');
    expect(lines[0]).toBe('uuid,email,name,attributes,status,created_at,updated_at');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^[0-9a-f-]{36},csv\.a@x\.org,"'=HYPERLINK\(""http:\/\/evil""\)","\{""q"":""a,\\""b\\""""\}",enabled,\d{4}-/);
    expect(lines[2]).toContain(',csv.b@x.org,"Plain, Name",{},enabled,');
    const byId = String((await t.api('GET', `/api/subscribers/export?id=${b}`)).body).trimEnd().split('\r\n');
    expect(byId.slice(1).map((l) => l.split(',')[1])).toEqual(['csv.b@x.org']);
    const q = encodeURIComponent(`subscribers.id = ${a}`);
    expect(String((await t.api('GET', `/api/subscribers/export?query=${q}`)).body).trimEnd().split('\r\n')).toHaveLength(2);
  });

  it('streams in batches of app.batch_size', async () => {
    await t.deps.settings.update({ 'app.batch_size': 2 });
    try {
      const all = (await t.api('GET', '/api/subscribers?per_page=1')).body.data.total;
      const lines = String((await t.api('GET', '/api/subscribers/export')).body).trimEnd().split('\r\n');
      expect(lines).toHaveLength(all + 1);
      const ids = new Set(lines.slice(1).map((l) => l.slice(0, 36)));
      expect(ids.size).toBe(all);
    } finally {
      await t.deps.settings.update({ 'app.batch_size': 1000 });
    }
  });

  it('refuses a bad query with 400 before streaming', async () => {
    const res = await t.api('GET', `/api/subscribers/export?query=${encodeURIComponent("pg_read_file('/etc/passwd') <> ''")}`);
    expect(res).toMatchObject({ status: 400, body: { message: 'query: function "pg_read_file" is not allowed' } });
  });
});
