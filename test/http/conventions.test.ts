/**
 * Cross-cutting HTTP conventions (spec part 1, issue "Foundation" §4–5): the envelope, errors, 401 with
 * WWW-Authenticate, listmonk's token header, 404 for unknown routes, malformed bodies, 413, 415,
 * pagination caps and case-insensitive order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, TEST_PASSWORD, TEST_USER, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/lists' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="mailroom", charset="UTF-8"');
    expect(res.json()).toEqual({ message: 'authentication required: send HTTP Basic credentials' });
  });

  it('answers 401 for a wrong password, a wrong user and a malformed header', async () => {
    const headers = [
      `Basic ${Buffer.from(`${TEST_USER}:wrong-password`).toString('base64')}`,
      `Basic ${Buffer.from(`nobody:${TEST_PASSWORD}`).toString('base64')}`,
      'Basic !!!',
      'Bearer abc',
      `token ${TEST_USER}`,
    ];
    for (const authorization of headers) {
      const res = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().message).toMatch(/credentials|authentication required/);
    }
  });

  it("accepts listmonk's `token user:password` form", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: `token ${TEST_USER}:${TEST_PASSWORD}` } });
    expect(res.statusCode).toBe(200);
  });

  it('answers unknown routes 404 without credentials: only a matched route decides (issue 14 finding 1)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'unknown endpoint: GET /api/nope' });
    expect((await t.app.inject({ method: 'GET', url: '/%61pi/lists' })).statusCode).toBe(401);
  });
});

describe('errors', () => {
  it('answers unknown routes with 404 and a message', async () => {
    const res = await t.api('GET', '/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'unknown endpoint: GET /api/does-not-exist' });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.api('POST', '/api/lists', '{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body: malformed JSON/);
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/lists', headers: { authorization: AUTH, 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toMatch(/Content-Type/);
  });

  it('answers an oversized body with 413', async () => {
    const res = await t.api('POST', '/api/lists', { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'body: request body is too large' });
  });

  it('answers bad path ids with 400 naming the parameter', async () => {
    for (const id of ['abc', '0', '-1', '99999999999']) {
      const res = await t.api('GET', `/api/lists/${id}`);
      expect(res.status, id).toBe(400);
      expect(res.body.message, id).toMatch(/^id: /);
    }
  });

  it('carries a request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH, 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});

describe('pagination and order', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 25; i++) await t.api('POST', '/api/lists', { name: `list ${String(i).padStart(2, '0')}`, type: 'private', optin: 'single' });
  });

  it('defaults to 20 per page and reports total', async () => {
    const res = await t.api('GET', '/api/lists');
    expect(res.body.data).toMatchObject({ total: 25, per_page: 20, page: 1 });
    expect(res.body.data.results).toHaveLength(20);
  });

  it('pages, honours any per_page (issue 15 item 4) and per_page=all', async () => {
    const p2 = await t.api('GET', '/api/lists?page=2&per_page=10');
    expect(p2.body.data).toMatchObject({ total: 25, per_page: 10, page: 2 });
    expect(p2.body.data.results).toHaveLength(10);
    const large = await t.api('GET', '/api/lists?per_page=5000');
    expect(large.body.data).toMatchObject({ total: 25, per_page: 5000, page: 1 });
    expect(large.body.data.results).toHaveLength(25);
    const all = await t.api('GET', '/api/lists?per_page=all');
    expect(all.body.data).toMatchObject({ total: 25, per_page: 0, page: 1 });
    expect(all.body.data.results).toHaveLength(25);
  });

  it('accepts order in any case', async () => {
    const asc = await t.api('GET', '/api/lists?order_by=name&order=ASC&per_page=3');
    const asc2 = await t.api('GET', '/api/lists?order_by=name&order=asc&per_page=3');
    const desc = await t.api('GET', '/api/lists?order_by=name&order=Desc&per_page=3');
    expect(asc.body.data.results.map((l: { name: string }) => l.name)).toEqual(['list 01', 'list 02', 'list 03']);
    expect(asc2.body.data.results).toEqual(asc.body.data.results);
    expect(desc.body.data.results[0].name).toBe('list 25');
  });

  it('refuses bad paging and order values with 400 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['page=0', /^page: /],
      ['page=x', /^page: /],
      ['per_page=0', /^per_page: /],
      ['per_page=some', /^per_page: /],
      ['order=sideways', /^order: /],
      ['order_by=password', /^order_by: must be one of/],
    ];
    for (const [qs, message] of cases) {
      const res = await t.api('GET', `/api/lists?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body.message, qs).toMatch(message);
    }
  });
});

describe('health', () => {
  it('answers on /api/health and the public /health', async () => {
    expect((await t.api('GET', '/api/health')).body).toEqual({ data: true });
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ data: true });
  });
});

describe('security headers', () => {
  it('are on HTML pages and API answers: a script-free CSP, nosniff, cross-origin images allowed', async () => {
    for (const url of ['/subscription/00000000-0000-0000-0000-000000000001/00000000-0000-0000-0000-000000000002', '/health']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toMatch(/default-src 'none'/);
      expect(res.headers['content-security-policy'], url).not.toMatch(/script-src/);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['cross-origin-resource-policy'], url).toBe('cross-origin');
    }
  });

  it('sends no CORS headers unless configured', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH, origin: 'https://evil.example' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('NUL characters', () => {
  it('are refused in bodies, query strings and paths with 400 naming the field', async () => {
    const body = await t.api('POST', '/api/lists', { name: 'a\u0000b' });
    expect(body.status).toBe(400);
    expect(body.body.message).toBe('name: must not contain NUL characters');
    const nested = await t.api('POST', '/api/subscribers', { email: 'nul@x.org', attribs: { deep: ['ok', 'x\u0000'] } });
    expect(nested.body.message).toBe('attribs.deep.1: must not contain NUL characters');
    const query = await t.api('GET', '/api/lists?query=a%00b');
    expect(query.body.message).toBe('query: must not contain NUL characters');
  });
});
