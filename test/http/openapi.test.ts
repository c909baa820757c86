/**
 * The API describes itself (issue "Trustworthy" §1): /api/openapi.json is a valid OpenAPI 3.1 document
 * covering every registered route, with a summary, request schemas and error answers; /api/docs renders
 * it as HTML; both need credentials.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  doc = (await t.api('GET', '/api/openapi.json')).body;
});
afterAll(async () => t.close());

/** Fastify `:param` paths → OpenAPI `{param}` paths. */
const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('covers every registered route, each with a summary and its error answers', () => {
    const routes = t.app.routeTable.filter((r) => !r.hidden);
    expect(routes.length).toBeGreaterThan(20);
    for (const r of routes) {
      const op = doc.paths[toOpenApiPath(r.url)]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.url}`).toBeDefined();
      expect(op.summary, `${r.method} ${r.url}`).toBeTruthy();
      if (r.url.startsWith('/api/')) expect(Object.keys(op.responses), `${r.method} ${r.url}`).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
      if (r.public) expect(op.security, `${r.method} ${r.url}`).toEqual([]);
    }
  });

  it('needs credentials, and renders a readable reference page', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).statusCode).toBe(401);
    const res = await t.api('GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('<code>/api/subscribers/{id}</code>');
    expect(res.body).not.toMatch(/<script/i);
  });
});
