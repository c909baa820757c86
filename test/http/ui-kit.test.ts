/**
 * The UI kit inside the real app (issue 16): static assets with hashed names and a year of caching,
 * the admin CSP and HTML type on pages, `/` → /admin, the HTML 404 under /admin, and the page flow of
 * conventions §14 (POST → 303 → GET with a notice carried by a cookie and shown once; a failed form
 * re-rendered with errors beside fields; htmx answers; handler errors as error pages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { demoRoutes } from '../helpers/ui-demo.js';
import { ADMIN_CSP } from '../../src/ui/csp.js';
import { NOTICE_COOKIE } from '../../src/ui/notice.js';
import { expectCspSafe } from '../helpers/ui.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ routes: demoRoutes });
});
afterAll(async () => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

describe('static assets', () => {
  it('are linked by hashed name and served public, immutable, with their type', async () => {
    const page = await get('/admin/kit-demo');
    expect(page.statusCode).toBe(200);
    const css = /href="(\/admin\/static\/admin-[0-9a-f]{12}\.css)"/u.exec(page.body)?.[1];
    const js = /src="(\/admin\/static\/main-[0-9a-f]{12}\.js)"/u.exec(page.body)?.[1];
    expect(css).toBeDefined();
    expect(js).toBeDefined();
    for (const [url, type] of [[css, 'text/css; charset=utf-8'], [js, 'text/javascript; charset=utf-8']] as const) {
      const res = await get(url as string);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toBe(type);
      expect(res.body.length).toBeGreaterThan(1000);
    }
    expect((await get(js as string)).body).toContain('X-CSRF-Token');
  });

  it('answer 404 for an unknown name', async () => {
    expect((await get('/admin/static/main-000000000000.js')).statusCode).toBe(404);
    expect((await get('/admin/static/..%2Fpackage.json')).statusCode).toBe(404);
  });
});

describe('pages', () => {
  it('are HTML with the strict admin CSP and no inline code', async () => {
    const res = await get('/admin/kit-demo');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(ADMIN_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.startsWith('<!doctype html>')).toBe(true);
    expectCspSafe(res.body);
  });

  it('GET / leads to /admin; unknown /admin URLs get the HTML 404 page, the API keeps its JSON 404', async () => {
    const root = await get('/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/admin');
    const nf = await get('/admin/no/such/page');
    expect(nf.statusCode).toBe(404);
    expect(nf.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(nf.headers['content-security-policy']).toBe(ADMIN_CSP);
    expect(nf.body).toContain('Page not found');
    const api = await get('/api/no-such-thing');
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toContain('application/json');
  });

  it('a successful form redirects 303 with a notice shown once on the next page', async () => {
    const res = await post('/admin/kit-demo', { name: 'Weekly <digest>', _csrf: 'x' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/kit-demo');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${NOTICE_COOKIE}=[A-Za-z0-9_-]+; Path=/admin; Max-Age=60; HttpOnly; SameSite=Lax$`, 'u'));
    const cookie = setCookie.split(';')[0] as string;
    const next = await get('/admin/kit-demo', { cookie });
    expect(next.body).toContain('role="status"');
    expect(next.body).toContain('“Weekly &lt;digest>” was saved.');
    expect(String(next.headers['set-cookie'])).toContain(`${NOTICE_COOKIE}=; Path=/admin; Max-Age=0`);
  });

  it('a forged notice cookie shows nothing', async () => {
    const forged = Buffer.from(JSON.stringify(['success', 'Your account is locked, call 555', {}])).toString('base64url');
    const res = await get('/admin/kit-demo', { cookie: `${NOTICE_COOKIE}=${forged}` });
    expect(res.body).not.toContain('555');
    expect(res.body).not.toContain('class="notice notice-');
  });

  it('a failed form re-renders with each error beside its field', async () => {
    const res = await post('/admin/kit-demo', { name: '', email: 'nope' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/<input id="f-name" name="name" required aria-describedby="f-name-hint f-name-error" aria-invalid="true"/u);
    expect(res.body).toContain('id="f-name-error"');
    expect(res.body).toContain('Give the list a name.');
    expect(res.body).toContain('value="nope"');
  });

  it('htmx gets fragments and HX-Redirect instead of a 303', async () => {
    const frag = await get('/admin/kit-demo/fragment', { 'hx-request': 'true' });
    expect(frag.body).toBe('<p id="frag">Fragment</p>');
    const res = await post('/admin/kit-demo', { name: 'x' }, { 'hx-request': 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['hx-redirect']).toBe('/admin/kit-demo');
  });

  it('a 4xx from a handler is an error page with its message; anything else a 500 without details', async () => {
    const bad = await get('/admin/kit-demo/fail');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('query: not a valid filter');
    const crash = await get('/admin/kit-demo/crash');
    expect(crash.statusCode).toBe(500);
    expect(crash.body).toContain('Something went wrong');
    expect(crash.body).not.toContain('secret internal detail');
  });

  it('errors raised before the handler (403 from a hook) are HTML pages too, in the shell', async () => {
    const res = await get('/admin/kit-demo/forbidden');
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(ADMIN_CSP);
    expect(res.body).toContain('Not allowed');
    expect(res.body).toContain('permission denied: settings:manage');
    expect(res.body).toContain('id="sidebar"');
  });

  it('a signed-in page declares its permission: without credentials it leads to sign-in, with them it renders', async () => {
    const route = t.app.routeTable.find((r) => r.url === '/admin/kit-private');
    expect(route?.public).toBe(false);
    const anon = await get('/admin/kit-private?x=1');
    expect(anon.statusCode).toBe(302);
    expect(anon.headers.location).toBe('/admin/login?next=%2Fadmin%2Fkit-private%3Fx%3D1');
    const admin = await get('/admin/kit-private', { authorization: AUTH });
    expect(admin.statusCode).toBe(200);
    expect(admin.body).toContain('<p id="who">admin</p>');
  });

  it('declares access on every page route', () => {
    const pages = t.app.routeTable.filter((r) => r.url.startsWith('/admin/kit-'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((r) => !r.public).map((r) => r.url)).toEqual(['/admin/kit-private']);
    expect(t.app.routeTable.find((r) => r.url === '/admin/static/:name')?.public).toBe(true);
  });
});
