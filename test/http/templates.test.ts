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

  it('does not install the defaults twice on a restart', async () => {
    await t.deps.templates.installDefaults();
    expect((await t.api('GET', '/api/templates')).body.data).toHaveLength(1);
  });

  it('gets one template, 404 for unknown ids, 400 for bad ids', async () => {
    const [first] = (await t.api('GET', '/api/templates')).body.data;
    expect((await t.api('GET', `/api/templates/${first.id}`)).body.data).toEqual(first);
    expect((await t.api('GET', '/api/templates/424242')).status).toBe(404);
    expect((await t.api('GET', '/api/templates/abc')).status).toBe(400);
  });
});
