/**
 * Templates API, the foundation subset of spec 4.3: the default template installed on first start,
 * GET all and GET one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
});
afterAll(async () => t.close());

describe('templates', () => {
  it('has exactly one default campaign template after first start, wrapping the content with an unsubscribe link', async () => {
    const res = await t.api('GET', '/api/templates');
    expect(res.status).toBe(200);
    const defaults = res.body.data.filter((x: { is_default: boolean }) => x.is_default);
    expect(defaults).toHaveLength(1);
    expect(defaults[0]).toMatchObject({ type: 'campaign', name: 'Default campaign template' });
    expect(defaults[0].body).toContain('{{ template "content" . }}');
    expect(defaults[0].body).toContain('{{ UnsubscribeURL }}');
  });

  it('installs the four shipped templates once, and points the opt-in setting at the confirmation template', async () => {
    const all = (await t.api('GET', '/api/templates')).body.data;
    expect(all.map((x: { name: string; type: string }) => [x.name, x.type])).toEqual([
      ['Default campaign template', 'campaign'],
      ['Default archive template', 'campaign'],
      ['Sample transactional template', 'tx'],
      ['Opt-in confirmation', 'tx'],
    ]);
    expect(all[2].subject).toBe('Welcome {{ .Subscriber.Name }}');
    expect(t.deps.settings.get(t.deps.core.optinTemplateId)).toBe(all[3].id);
    expect(await t.deps.templates.installDefaults()).toBeNull();
    expect((await t.api('GET', '/api/templates')).body.data).toHaveLength(4);
  });

  it('gets one template, 404 for unknown ids, 400 for bad ids', async () => {
    const [first] = (await t.api('GET', '/api/templates')).body.data;
    expect((await t.api('GET', `/api/templates/${first.id}`)).body.data).toEqual(first);
    expect((await t.api('GET', '/api/templates/424242')).status).toBe(404);
    expect((await t.api('GET', '/api/templates/abc')).status).toBe(400);
  });
});
