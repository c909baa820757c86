/**
 * listmonk's template data and smaller rules over HTTP, as a migrating user meets them (issue 15 items 8
 * and 10): a campaign preview, a test send and a real send render `.Subject`, `.Campaign.<every field>`
 * and `.Subscriber.CreatedAt.Time.Format` as listmonk does; a subject without both `{{` and `}}` is sent
 * as written and may be saved. Both stores (DATABASE_URL selects PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { headerValue, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let listId: number;
const year = String(new Date().getUTCFullYear());

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  listId = (await t.api('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
  await t.api('POST', '/api/subscribers', { email: 'ada@example.org', name: 'Ada Lovelace', status: 'enabled', lists: [listId] });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const FIELDS = '{{ .Subject }}|{{ .Campaign.Status }}|{{ .Campaign.ContentType }}|{{ .Campaign.Views }}|{{ .Campaign.Sent }}|{{ .Campaign.ToSend }}|'
  + '{{ .Campaign.TemplateID.Valid }}|{{ .Campaign.AltBody.Valid }}|{{ .Campaign.SendAt.Valid }}|{{ .Campaign.Archive }}|{{ .Campaign.Lists }}|'
  + '{{ .Subscriber.CreatedAt.Time.Format "2006" }}|{{ .Subscriber.CreatedAt.Format "2006" }}|{{ .Campaign.CreatedAt.Valid }}';

const create = async (fields: Record<string, unknown>) => {
  const res = await t.api('POST', '/api/campaigns', { name: 'Data model', subject: 'Hi {{ .Subscriber.FirstName }}', lists: [listId], content_type: 'html', ...fields });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: number; uuid: string };
};
const mailsOf = (uuid: string) => sink.messages.filter((m) => headerValue(m.parsed, 'X-Mailroom-Campaign') === uuid);

describe("listmonk's data model in campaign templates", () => {
  it('a preview prints .Subject, .Campaign fields and the null.Time forms', async () => {
    const c = await create({ body: `<p>${FIELDS}</p>` });
    const res = await t.api('GET', `/api/campaigns/${c.id}/preview`);
    expect(res.status).toBe(200);
    // The sample subscriber was created on 2024-01-01.
    expect(res.body).toContain(`<p>Hi Demo|draft|html|0|0|0|true|false|false|false|[{&#34;id&#34;:${listId},&#34;name&#34;:&#34;Readers&#34;}]|2024|2024|true</p>`);
  });

  it('an unknown .Campaign field fails the preview (400 with its line), as on listmonk\'s struct', async () => {
    const c = await create({ body: '<p>\n{{ .Campaign.Nope }}</p>' });
    const res = await t.api('GET', `/api/campaigns/${c.id}/preview`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body: template error at line 2, column \d+: .*can't evaluate field Nope/);
  });

  it('a test send renders the same fields for the real subscriber', async () => {
    const c = await create({ body: `<p>${FIELDS}</p>` });
    const res = await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['ada@example.org'] });
    expect(res.status).toBe(200);
    const [mail] = mailsOf(c.uuid);
    expect(mail?.parsed.subject).toBe('Hi Ada');
    expect(mail?.parsed.html).toContain(`<p>Hi Ada|draft|html|0|0|0|true|false|false|false|`);
    expect(mail?.parsed.html).toContain(`|${year}|${year}|true</p>`);
  });

  it('a delivered campaign sees itself running, with its lists', async () => {
    const c = await create({ body: '<p>{{ .Campaign.Status }}|{{ .Campaign.Lists }}|{{ .Campaign.Name }}|{{ .Subject }}|{{ .Campaign.StartedAt.Valid }}</p>' });
    expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status).toBe(200);
    await waitForCampaign(t, c.id, 'finished');
    const [mail] = mailsOf(c.uuid);
    expect(mail?.parsed.html).toContain(`<p>running|[{&#34;id&#34;:${listId},&#34;name&#34;:&#34;Readers&#34;}]|Data model|Hi Ada|true</p>`);
  });
});

describe('subjects without both {{ and }} are text (issue 15 item 10)', () => {
  it('is saved and sent as written', async () => {
    const c = await create({ subject: '50% off {{ today only', body: '<p>{{ .Subject }}</p>' });
    expect((await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['ada@example.org'] })).status).toBe(200);
    const [mail] = mailsOf(c.uuid);
    expect(mail?.parsed.subject).toBe('50% off {{ today only');
    expect(mail?.parsed.html).toContain('<p>50% off {{ today only</p>');
  });

  it('a subject holding both is still a template, and a broken one is refused', async () => {
    const bad = await t.api('POST', '/api/campaigns', { name: 'x', subject: 'Hi {{ .Subscriber.Name | }}', lists: [listId], body: '<p>x</p>' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^subject: template error/);
  });
});
