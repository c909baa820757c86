/**
 * JSON `null` for an optional field means "not given" (issue 15 item 2): Python and TypeScript listmonk
 * clients serialise every unset optional as `null`. The default applies on create, the stored value
 * is kept on a partial update; `null` for a required field is a 400 naming it. Fields whose `null` has
 * a meaning in listmonk and the spec keep it: campaign `send_at` (unschedules), `altbody` (none),
 * `template_id` (the default template). Requests are the JSON those clients send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsNull } from '../../src/http/nulls.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
let listId: number;
let defaultTemplate: number;
let otherTemplate: number;

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  listId = (await t.api('POST', '/api/lists', { name: 'Nulls', type: 'private', optin: 'single' })).body.data.id;
  const templates = (await t.api('GET', '/api/templates')).body.data as Array<{ id: number; is_default: boolean }>;
  defaultTemplate = templates.find((x) => x.is_default)!.id;
  otherTemplate = (await t.api('POST', '/api/templates', { name: 'Other', type: 'campaign', body: '<div>{{ template "content" . }}</div>' })).body.data.id;
});
afterAll(async () => t?.close());

describe('campaigns', () => {
  it('create: type, content_type, messenger, from_email, tags, headers … null take their defaults', async () => {
    const res = await t.api('POST', '/api/campaigns', {
      name: 'Null create', subject: 'Hi', lists: [listId], body: '<p>x</p>',
      type: null, content_type: null, messenger: null, altbody: null, send_at: null, template_id: null,
      from_email: null, tags: null, headers: null, attribs: null, archive: null, archive_slug: null, archive_template_id: null, archive_meta: null, body_source: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'regular', content_type: 'richtext', messenger: 'email', altbody: null, send_at: null, tags: [], headers: [], archive: false, archive_meta: {} });
    expect(res.body.data.from_email).toBe('Mailroom Test <news@mailroom.test>');
  });

  it('update: non-nullable fields sent as null keep their stored values; send_at, altbody and template_id null clear as in listmonk', async () => {
    const created = (await t.api('POST', '/api/campaigns', {
      name: 'Kept', subject: 'Kept subject', lists: [listId], body: '<p>x</p>', type: 'regular', content_type: 'html', messenger: 'email',
      altbody: 'plain', template_id: otherTemplate, tags: ['a'], send_at: new Date(Date.now() + 86_400_000).toISOString(),
    })).body.data;
    const res = await t.api('PUT', `/api/campaigns/${created.id}`, {
      name: null, subject: null, lists: null, body: null, type: null, content_type: null, messenger: null, tags: null, headers: null, from_email: null, archive: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Kept', subject: 'Kept subject', content_type: 'html', messenger: 'email', altbody: 'plain', template_id: otherTemplate, tags: ['a'], body: '<p>x</p>' });
    expect(res.body.data.send_at).not.toBeNull();
    expect(res.body.data.lists.map((l: { id: number }) => l.id)).toEqual([listId]);

    const cleared = await t.api('PUT', `/api/campaigns/${created.id}`, { send_at: null, altbody: null, template_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ send_at: null, altbody: null });
    expect([null, defaultTemplate]).toContain(cleared.body.data.template_id);
  });

  it('a required field sent as null is a 400 naming it', async () => {
    for (const field of ['name', 'subject', 'lists']) {
      const body: Record<string, unknown> = { name: 'n', subject: 's', lists: [listId], [field]: null };
      const res = await t.api('POST', '/api/campaigns', body);
      expect(res.status, field).toBe(400);
      expect(res.body).toEqual({ message: `${field}: must not be null` });
    }
  });
});

describe('templates, lists, subscribers, tx, settings', () => {
  it('template: subject null takes the default on create and keeps the stored subject on update', async () => {
    const tx = await t.api('POST', '/api/templates', { name: 'Tx', type: 'tx', subject: 'Receipt', body: '<p>x</p>', body_source: null });
    expect(tx.status).toBe(200);
    const camp = await t.api('POST', '/api/templates', { name: 'Camp', type: 'campaign', subject: null, body: '<p>{{ template "content" . }}</p>' });
    expect(camp.status, JSON.stringify(camp.body)).toBe(200);
    expect(camp.body.data.subject).toBe('');
    const upd = await t.api('PUT', `/api/templates/${tx.body.data.id}`, { name: null, type: null, subject: null, body: '<p>y</p>' });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    expect(upd.body.data).toMatchObject({ name: 'Tx', type: 'tx', subject: 'Receipt', body: '<p>y</p>' });
    const missing = await t.api('POST', '/api/templates', { name: null, type: 'campaign', body: '<p>{{ template "content" . }}</p>' });
    expect(missing.body).toEqual({ message: 'name: must not be null' });
  });

  it('list: optional nulls are defaults on create and kept on update', async () => {
    const res = await t.api('POST', '/api/lists', { name: 'L', type: null, optin: null, status: null, tags: null, description: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'private', optin: 'single', status: 'active', tags: [], description: '' });
    await t.api('PUT', `/api/lists/${res.body.data.id}`, { type: 'public', tags: ['t'], description: 'd' });
    const upd = await t.api('PUT', `/api/lists/${res.body.data.id}`, { name: null, type: null, optin: null, tags: null, description: null });
    expect(upd.body.data).toMatchObject({ name: 'L', type: 'public', tags: ['t'], description: 'd' });
  });

  it('subscriber: create with nulls, PATCH with nulls keeps everything, email null is a 400', async () => {
    const res = await t.api('POST', '/api/subscribers', { email: 'nulls@example.org', name: null, status: null, lists: null, attribs: null, preconfirm_subscriptions: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Nulls', status: 'enabled', lists: [], attribs: {} });
    const id = res.body.data.id as number;
    await t.api('PATCH', `/api/subscribers/${id}`, { name: 'Nora', attribs: { city: 'Leeds' }, lists: [listId] });
    const patched = await t.api('PATCH', `/api/subscribers/${id}`, { email: null, name: null, status: null, lists: null, attribs: null });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ email: 'nulls@example.org', name: 'Nora', status: 'enabled', attribs: { city: 'Leeds' } });
    expect(patched.body.data.lists.map((l: { id: number }) => l.id)).toEqual([listId]);
    // A null inside attribs is data, kept as sent.
    const withNull = await t.api('PATCH', `/api/subscribers/${id}`, { attribs: { gone: null } });
    expect(withNull.body.data.attribs).toEqual({ city: 'Leeds', gone: null });
    expect((await t.api('POST', '/api/subscribers', { email: null })).body).toEqual({ message: 'email: must not be null' });
  });

  it('settings: a key sent as null keeps its value', async () => {
    await t.api('PUT', '/api/settings', { 'app.from_email': 'Kept <kept@example.org>', 'app.concurrency': 3 });
    const res = await t.api('PUT', '/api/settings', { 'app.from_email': null, 'app.concurrency': null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ 'app.from_email': 'Kept <kept@example.org>', 'app.concurrency': 3 });
  });
});

describe('every route', () => {
  /** The optional fields of a body schema that do not accept null. */
  function optionalFields(schema: any): string[] {
    const parts: any[] = schema?.allOf ?? [schema];
    const required = new Set(parts.flatMap((p) => p?.required ?? []));
    return [...new Set(parts.flatMap((p) => Object.entries(p?.properties ?? {}).filter(([n, s]) => !required.has(n) && !acceptsNull(s)).map(([n]) => n)))];
  }

  it('never refuses an optional field sent as null, and never answers 5xx', async () => {
    await t.api('POST', '/api/subscribers', { email: 'route@example.org', lists: [listId] });
    const failures: string[] = [];
    let routes = 0;
    for (const route of t.app.routeTable) {
      const fields = optionalFields(route.schema.body);
      if (fields.length === 0) continue;
      routes += 1;
      const res = await t.app.inject({
        method: route.method as 'POST', url: concreteUrl(route), headers: { authorization: AUTH, 'content-type': 'application/json' },
        payload: JSON.stringify(Object.fromEntries(fields.map((f) => [f, null]))),
      });
      const message = /^\{/u.test(res.body) ? String(JSON.parse(res.body).message ?? '') : '';
      // A refusal of the null itself: a type message on one of the fields sent as null.
      const named = fields.find((f) => (message.startsWith(`${f}:`) || message.startsWith(`${f}.`)) && /must not be null|must be /u.test(message));
      if (res.statusCode >= 500 || named !== undefined) failures.push(`${route.method} ${route.url} → ${res.statusCode} ${message}`);
    }
    expect(routes).toBeGreaterThan(15);
    expect(failures).toEqual([]);
  });
});
