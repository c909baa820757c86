/**
 * Templates API, all of spec 4.3 (issue 4 §2, reference §8): the shipped templates, create and update
 * with validation (placeholder exactly once, syntax errors with line and column, tx subjects),
 * previews (HTML in a sandbox, JSON or form), the default template, and delete (not the default, not
 * the opt-in template; campaigns move to the default).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
});
afterAll(async () => t.close());

const CAMPAIGN_TPL = '<html><body><h1>{{ .Campaign.Subject }}</h1>{{ template "content" . }}<a href="{{ UnsubscribeURL }}">Leave</a></body></html>';
const all = async () => (await t.api('GET', '/api/templates')).body.data as Array<Record<string, any>>;
const create = async (body: Record<string, unknown>) => t.api('POST', '/api/templates', body);
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

describe('shipped templates', () => {
  it('has exactly one default campaign template after first start, wrapping the content with an unsubscribe link', async () => {
    const defaults = (await all()).filter((x) => x.is_default);
    expect(defaults).toHaveLength(1);
    expect(defaults[0]).toMatchObject({ type: 'campaign', name: 'Default campaign template' });
    expect(defaults[0]!.body).toContain('{{ template "content" . }}');
    expect(defaults[0]!.body).toContain('{{ UnsubscribeURL }}');
  });

  it('installs the four shipped templates once, and points the opt-in setting at the confirmation template', async () => {
    const templates = await all();
    expect(templates.slice(0, 4).map((x) => [x.name, x.type])).toEqual([
      ['Default campaign template', 'campaign'],
      ['Default archive template', 'campaign'],
      ['Sample transactional template', 'tx'],
      ['Opt-in confirmation', 'tx'],
    ]);
    expect(templates[2]!.subject).toBe('Welcome {{ .Subscriber.Name }}');
    expect(t.deps.settings.get(t.deps.core.optinTemplateId)).toBe(templates[3]!.id);
    expect(await t.deps.templates.installDefaults()).toBeNull();
  });

  it('gets one template, 404 for unknown ids, 400 for bad ids; no_body blanks bodies', async () => {
    const [first] = await all();
    expect((await t.api('GET', `/api/templates/${first!.id}`)).body.data).toEqual(first);
    expect((await t.api('GET', '/api/templates/424242')).status).toBe(404);
    expect((await t.api('GET', '/api/templates/abc')).status).toBe(400);
    const bare = (await t.api('GET', '/api/templates?no_body=true')).body.data;
    expect(bare.every((x: { body: string }) => x.body === '')).toBe(true);
  });

  it('every shipped template previews as HTML', async () => {
    for (const tpl of (await all()).slice(0, 4)) {
      const res = await t.api('GET', `/api/templates/${tpl.id}/preview`);
      expect(res.status, tpl.name).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toMatch(/^<!doctype html>/u);
    }
  });
});

describe('POST /api/templates', () => {
  it('creates a campaign template (subject stored empty, not the default)', async () => {
    const res = await create({ name: ' Newsletter ', type: 'campaign', subject: 'ignored', body: CAMPAIGN_TPL });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Newsletter', type: 'campaign', subject: '', body: CAMPAIGN_TPL, is_default: false, body_source: null });
    expect((await t.api('GET', `/api/templates/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });

  it('creates a tx template with its subject, and a visual template with its source', async () => {
    const tx = await create({ name: 'Receipt', type: 'tx', subject: 'Order {{ .Tx.Data.id }}', body: '<p>{{ .Tx.Data.id }}</p>' });
    expect(tx.body.data).toMatchObject({ type: 'tx', subject: 'Order {{ .Tx.Data.id }}' });
    const visual = await create({ name: 'Visual', type: 'campaign_visual', body: '<html><body>{{ .Subscriber.Name }}</body></html>', body_source: '{"blocks":[]}' });
    expect(visual.body.data).toMatchObject({ type: 'campaign_visual', body_source: '{"blocks":[]}' });
  });

  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no placeholder', { body: '<p>nothing</p>' }, /^body: a campaign template must contain the placeholder \{\{ template "content" \. \}\} exactly once \(found 0\)$/],
    ['two placeholders', { body: '{{ template "content" . }}{{ template "content" . }}' }, /exactly once \(found 2\)$/],
    ['a syntax error, with line and column', { body: '<p>\n  {{ template "content" . }}\n  {{ .Subscriber.Name </p>' }, /^body: template error at line 3, column \d+: /],
    ['an unknown function', { body: '{{ template "content" . }}{{ env "HOME" }}' }, /^body: template error at line 1, column \d+: function "env" not defined$/],
    ['a blank name', { name: '   ' }, /^name: must not be blank$/],
    ['a missing name', { name: undefined }, /^name: is required$/],
    ['an unknown type', { type: 'email' }, /^type: must be one of campaign, campaign_visual, tx$/],
    ['a missing body', { body: undefined }, /^body: is required$/],
    ['a tx template without subject', { type: 'tx', subject: ' ', body: '<p>x</p>' }, /^subject: is required for tx templates$/],
    ['a tx subject that does not parse', { type: 'tx', subject: 'Hi {{ .Name | }}', body: '<p>x</p>' }, /^subject: template error at line 1, column \d+: /],
    ['a body that is not a string', { body: 42 }, /^body: must be string$/],
  ];
  for (const [what, patch, message] of refused) {
    it(`refuses ${what} with 400 and stores nothing`, async () => {
      const before = (await all()).length;
      const res = await create(JSON.parse(JSON.stringify({ name: 'T', type: 'campaign', body: CAMPAIGN_TPL, ...patch })));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect((await all()).length).toBe(before);
    });
  }
});

describe('PUT /api/templates/:id', () => {
  it('updates the given fields and keeps the others', async () => {
    const id = (await create({ name: 'Editable', type: 'campaign', body: CAMPAIGN_TPL })).body.data.id;
    const res = await t.api('PUT', `/api/templates/${id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, name: 'Renamed', body: CAMPAIGN_TPL, subject: '' });
    const body = CAMPAIGN_TPL.replace('Leave', 'Bye');
    expect((await t.api('PUT', `/api/templates/${id}`, { body, type: 'campaign' })).body.data).toMatchObject({ name: 'Renamed', body });
  });

  it('updates a tx subject', async () => {
    const id = (await create({ name: 'Tx', type: 'tx', subject: 'A', body: '<p>x</p>' })).body.data.id;
    expect((await t.api('PUT', `/api/templates/${id}`, { subject: 'B {{ .Subscriber.Name }}' })).body.data.subject).toBe('B {{ .Subscriber.Name }}');
  });

  it('refuses a type change, a body without placeholder, a syntax error, and unknown ids; nothing changes', async () => {
    const created = (await create({ name: 'Stable', type: 'campaign', body: CAMPAIGN_TPL })).body.data;
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ type: 'tx' }, 400, /^type: cannot change a "campaign" template to "tx"/],
      [{ body: '<p>no placeholder</p>' }, 400, /^body: a campaign template must contain the placeholder/],
      [{ body: '{{ template "content" . }}{{ if }}' }, 400, /^body: template error at line 1, column \d+: /],
      [{ name: '' }, 400, /^name: /],
    ];
    for (const [patch, status, message] of cases) {
      const res = await t.api('PUT', `/api/templates/${created.id}`, patch);
      expect(res.status, JSON.stringify(patch)).toBe(status);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api('GET', `/api/templates/${created.id}`)).body.data).toEqual(created);
    expect((await t.api('PUT', '/api/templates/999999', { name: 'x' })).status).toBe(404);
  });
});

describe('previews', () => {
  it('GET renders a campaign template around sample content for a sample subscriber, sandboxed', async () => {
    const id = (await create({ name: 'Preview me', type: 'campaign', body: CAMPAIGN_TPL })).body.data.id;
    const res = await t.api('GET', `/api/templates/${id}/preview`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^sandbox\b/u);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain('<h1>Sample campaign subject</h1><h1>A sample campaign</h1>');
    expect(res.body).toContain('Hello Demo, this text stands in');
    expect(res.body).toContain(`<a href="${ROOT_URL}/subscription/00000000-0000-0000-0000-000000000000/00000000-0000-0000-0000-000000000000">Leave</a>`);
  });

  it('GET renders a tx template with the sample subscriber and the opt-in fields', async () => {
    const optinId = t.deps.settings.get(t.deps.core.optinTemplateId);
    const res = await t.api('GET', `/api/templates/${optinId}/preview`);
    expect(res.body).toContain('Demo,');
    expect(res.body).toContain(`href="${ROOT_URL}/subscription/optin/00000000-0000-0000-0000-000000000000?"`);
    expect(res.body).toContain('Sample list');
    expect((await t.api('GET', '/api/templates/999999/preview')).status).toBe(404);
  });

  it('GET renders a visual template as the whole document, and POST does too', async () => {
    const body = '<html><body><p>Visual for {{ .Subscriber.Name }}</p></body></html>';
    const id = (await create({ name: 'Visual preview', type: 'campaign_visual', body })).body.data.id;
    expect((await t.api('GET', `/api/templates/${id}/preview`)).body).toBe('<html><body><p>Visual for Demo Subscriber</p></body></html>');
    expect((await t.api('POST', '/api/templates/preview', { type: 'campaign_visual', body })).body).toBe('<html><body><p>Visual for Demo Subscriber</p></body></html>');
  });

  it('GET answers 400 with line and column when a stored template fails to execute', async () => {
    const id = (await create({ name: 'Fails', type: 'campaign', body: '{{ template "content" . }}\n{{ index .Subscriber.Attribs "x" 5 }}' })).body.data.id;
    const res = await t.api('GET', `/api/templates/${id}/preview`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body: template error at line 2, column \d+: /);
  });

  it('POST renders a posted template from JSON or a form (listmonk\'s template_type), without saving it', async () => {
    const before = (await all()).length;
    const json = await t.api('POST', '/api/templates/preview', { type: 'campaign', body: '<main>{{ template "content" . }}</main>' });
    expect(json.status).toBe(200);
    expect(json.body).toMatch(/^<main><h1>A sample campaign<\/h1>/u);
    expect(json.headers['content-security-policy']).toMatch(/^sandbox\b/u);
    const viaForm = await form('/api/templates/preview', { template_type: 'tx', body: '<p>{{ .Subscriber.Email }}</p>' });
    expect(viaForm.statusCode).toBe(200);
    expect(viaForm.body).toBe('<p>demo@example.com</p>');
    expect((await all()).length).toBe(before);
  });

  it('POST refuses a campaign template without placeholder and a body that does not parse', async () => {
    const res = await t.api('POST', '/api/templates/preview', { body: '<p>x</p>' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body: a campaign template must contain the placeholder/);
    const bad = await form('/api/templates/preview', { template_type: 'tx', body: '{{ .X' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).message).toMatch(/^body: template error at line 1, column \d+: /);
  });
});

describe('the default template', () => {
  it('makes a campaign template the only default and answers it; campaigns created afterwards use it', async () => {
    const id = (await create({ name: 'New default', type: 'campaign', body: CAMPAIGN_TPL })).body.data.id;
    const res = await t.api('PUT', `/api/templates/${id}/default`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, is_default: true, name: 'New default' });
    const defaults = (await all()).filter((x) => x.is_default);
    expect(defaults.map((x) => x.id)).toEqual([id]);
    expect((await t.api('PUT', `/api/templates/${id}/default`)).body.data.is_default).toBe(true);
    const list = (await t.api('POST', '/api/lists', { name: 'L', type: 'private', optin: 'single' })).body.data.id;
    const c = (await t.api('POST', '/api/campaigns', { name: 'c', subject: 's', lists: [list], body: 'x' })).body.data;
    expect(c.template_id).toBe(id);
  });

  it('refuses tx and visual templates (400) and unknown ids (404); the default stays', async () => {
    const before = (await all()).find((x) => x.is_default)!.id;
    const tx = (await create({ name: 'Tx2', type: 'tx', subject: 's', body: '<p>x</p>' })).body.data.id;
    const visual = (await create({ name: 'V2', type: 'campaign_visual', body: '<p>x</p>' })).body.data.id;
    const res = await t.api('PUT', `/api/templates/${tx}/default`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^type: only a campaign template can be the default; template \d+ is a "tx" template$/);
    expect((await t.api('PUT', `/api/templates/${visual}/default`)).status).toBe(400);
    expect((await t.api('PUT', '/api/templates/999999/default')).status).toBe(404);
    expect((await all()).filter((x) => x.is_default).map((x) => x.id)).toEqual([before]);
  });

  it('stays exactly one when several requests make different templates the default at once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push((await create({ name: `Race ${i}`, type: 'campaign', body: CAMPAIGN_TPL })).body.data.id);
    const answers = await Promise.all(ids.map((id) => t.api('PUT', `/api/templates/${id}/default`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const defaults = (await all()).filter((x) => x.is_default);
    expect(defaults).toHaveLength(1);
    expect(ids).toContain(defaults[0]!.id);
  });
});

describe('DELETE /api/templates/:id', () => {
  it('deletes a template; campaigns using it (also as archive template) move to the default', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'For delete', type: 'private', optin: 'single' })).body.data.id;
    const doomed = (await create({ name: 'Doomed', type: 'campaign', body: CAMPAIGN_TPL })).body.data.id;
    const c = (await t.api('POST', '/api/campaigns', { name: 'c', subject: 's', lists: [list], body: 'x', template_id: doomed, archive_template_id: doomed })).body.data;
    expect(c).toMatchObject({ template_id: doomed, archive_template_id: doomed });
    const res = await t.api('DELETE', `/api/templates/${doomed}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: true });
    expect((await t.api('GET', `/api/templates/${doomed}`)).status).toBe(404);
    const def = (await all()).find((x) => x.is_default)!.id;
    expect((await t.api('GET', `/api/campaigns/${c.id}`)).body.data).toMatchObject({ template_id: def, archive_template_id: def });
  });

  it('refuses the default template and the opt-in template with 400, unknown ids with 404; nothing changes', async () => {
    const def = (await all()).find((x) => x.is_default)!;
    const res = await t.api('DELETE', `/api/templates/${def.id}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/is the default template and cannot be deleted/);
    const optinId = t.deps.settings.get(t.deps.core.optinTemplateId)!;
    const optin = await t.api('DELETE', `/api/templates/${optinId}`);
    expect(optin.status).toBe(400);
    expect(optin.body.message).toMatch(/opt-in confirmation template \(setting app\.optin_template_id\)/);
    expect((await t.api('GET', `/api/templates/${def.id}`)).body.data).toEqual(def);
    expect((await t.api('GET', `/api/templates/${optinId}`)).status).toBe(200);
    expect((await t.api('DELETE', '/api/templates/999999')).status).toBe(404);
  });
});
