/**
 * Trusted URLs (listmonk's `security.trusted_urls`, reference §2 notes, §12, §17): no CORS headers while
 * the list is empty; with entries, their origins (or any, with `*`) get `Access-Control-Allow-Origin`,
 * preflights are answered before authentication with listmonk's allowed headers (never Authorization, never
 * credentials), and the subscription form follows a `next` that is exactly a trusted URL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allowedOrigin, checkTrustedUrls, normalizeTrustedUrls, trustedRedirect } from '../../src/http/cors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let listUuid: string;

beforeAll(async () => {
  t = await buildTestApp();
  const list = await t.api('POST', '/api/lists', { name: 'Newsletter', type: 'public', optin: 'single' });
  listUuid = list.body.data.uuid;
});
afterAll(() => t.close());
beforeEach(async () => {
  expect((await t.api('PUT', '/api/settings', { 'security.trusted_urls': [], 'security.public_subscription_rate_limit': { requests: 0, window: '1m' } })).status).toBe(200);
});

const trust = (urls: unknown) => t.api('PUT', '/api/settings', { 'security.trusted_urls': urls });
/** A request as a browser page on `origin` sends it: no credentials. */
const fromPage = (method: 'GET' | 'POST' | 'OPTIONS', url: string, origin: string, headers: Record<string, string> = {}, payload?: string) =>
  t.app.inject({ method, url, headers: { origin, ...headers }, ...(payload !== undefined ? { payload } : {}) });
const preflight = (url: string, origin: string, requestHeaders = 'content-type') =>
  fromPage('OPTIONS', url, origin, { 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders });

describe('allowedOrigin', () => {
  it('matches the origin of an entry, any origin with *, nothing while empty or without an Origin header', () => {
    const trusted = ['https://www.example.com/signup', 'http://localhost:8080'];
    expect(allowedOrigin(trusted, 'https://www.example.com')).toBe('https://www.example.com');
    expect(allowedOrigin(trusted, 'http://localhost:8080')).toBe('http://localhost:8080');
    expect(allowedOrigin(trusted, 'http://www.example.com')).toBe(false); // another scheme is another origin
    expect(allowedOrigin(trusted, 'https://example.com')).toBe(false);
    expect(allowedOrigin(trusted, 'https://www.example.com.evil.test')).toBe(false);
    expect(allowedOrigin(trusted, undefined)).toBe(false);
    expect(allowedOrigin([], 'https://www.example.com')).toBe(false);
    expect(allowedOrigin(['*'], 'https://anywhere.test')).toBe('*');
    expect(allowedOrigin(['https://a.test:443/x'], 'https://a.test')).toBe('https://a.test'); // default port
  });

  it('normalises and checks entries', () => {
    expect(normalizeTrustedUrls([' https://a.test/ ', 'https://a.test', '', '*'])).toEqual(['https://a.test', '*']);
    expect(normalizeTrustedUrls('https://a.test')).toBe('https://a.test');
    expect(checkTrustedUrls(['https://a.test/signup', 'http://localhost:3000', '*'])).toBeNull();
    expect(checkTrustedUrls(['https://a.test', 'ftp://a.test'])).toMatch(/^item 2 \("ftp:\/\/a\.test"\)/);
    expect(checkTrustedUrls(['a.test'])).toMatch(/^item 1/);
    expect(checkTrustedUrls(['https://user:secret@a.test'])).toMatch(/^item 1/);
    expect(checkTrustedUrls(['https://a.test/x\r\nSet-Cookie: a=b'])).toMatch(/^item 1/);
    expect(trustedRedirect(['https://a.test/thanks'], ' https://a.test/thanks/ ')).toBe('https://a.test/thanks/');
    expect(trustedRedirect(['https://a.test/thanks'], 'https://a.test/thanks?x=1')).toBeNull();
    expect(trustedRedirect(['*'], '*')).toBeNull();
    expect(trustedRedirect(['https://a.test'], undefined)).toBeNull();
  });
});

describe('security.trusted_urls', () => {
  it('is stored normalised and refuses a bad entry naming the key and the item', async () => {
    expect((await trust([' https://www.example.com/thanks/ ', 'https://www.example.com/thanks', '*'])).status).toBe(200);
    expect((await t.api('GET', '/api/settings')).body.data['security.trusted_urls']).toEqual(['https://www.example.com/thanks', '*']);
    const bad = await trust(['https://ok.test', 'javascript:alert(1)']);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/security\.trusted_urls.*item 2 \("javascript:alert\(1\)"\)/);
    expect((await trust('https://ok.test')).status).toBe(400);
    expect((await t.api('GET', '/api/settings')).body.data['security.trusted_urls']).toEqual(['https://www.example.com/thanks', '*']);
  });

  it('empty (the default): no CORS headers, and a preflight is not answered', async () => {
    const res = await fromPage('GET', '/api/public/lists', 'https://www.example.com');
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await preflight('/api/public/subscription', 'https://www.example.com');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    // Not answered as a preflight: like any request under /api that is not a public route, it needs credentials.
    expect(pre.statusCode).toBe(401);
  });

  it('lets a trusted origin call the public endpoints and no other origin', async () => {
    await trust(['https://www.example.com/signup']);
    const lists = await fromPage('GET', '/api/public/lists', 'https://www.example.com');
    expect(lists.statusCode).toBe(200);
    expect(lists.headers['access-control-allow-origin']).toBe('https://www.example.com');
    expect(String(lists.headers['vary'])).toMatch(/Origin/);
    expect(lists.headers['access-control-allow-credentials']).toBeUndefined();

    const pre = await preflight('/api/public/subscription', 'https://www.example.com');
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://www.example.com');
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/\bPOST\b/);
    expect(pre.headers['access-control-allow-headers']).toBe('Origin, Content-Type, Accept');
    const sub = await fromPage('POST', '/api/public/subscription', 'https://www.example.com', { 'content-type': 'application/json' }, JSON.stringify({ email: 'cors@example.org', name: 'Cors', list_uuids: [listUuid] }));
    expect(sub.statusCode).toBe(200);
    expect(sub.headers['access-control-allow-origin']).toBe('https://www.example.com');
    expect((await t.api('GET', '/api/subscribers?query=' + encodeURIComponent("subscribers.email = 'cors@example.org'"))).body.data.total).toBe(1);

    const other = await fromPage('GET', '/api/public/lists', 'https://evil.test');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const otherPre = await preflight('/api/public/subscription', 'https://evil.test');
    expect(otherPre.headers['access-control-allow-origin']).toBeUndefined();
    expect(otherPre.statusCode).toBe(401);
  });

  it('never opens the authenticated API: Authorization is not an allowed header, and requests still need credentials', async () => {
    await trust(['*']);
    const pre = await preflight('/api/subscribers', 'https://anywhere.test', 'authorization');
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-headers'])).not.toMatch(/authorization/i);
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await fromPage('GET', '/api/subscribers', 'https://anywhere.test');
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('@');
  });

  it('the subscription form follows a next that is exactly a trusted URL, and ignores any other', async () => {
    await trust(['https://www.example.com/thanks', '*']);
    const form = (email: string, next: string) =>
      t.app.inject({ method: 'POST', url: '/subscription/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ email, l: listUuid, next }).toString() });
    const followed = await form('next1@example.org', 'https://www.example.com/thanks');
    expect(followed.statusCode).toBe(303);
    expect(followed.headers['location']).toBe('https://www.example.com/thanks');
    for (const [i, next] of ['https://evil.test/thanks', 'https://www.example.com/thanks/../../evil', '*', ''].entries()) {
      const res = await form(`next-other${i}@example.org`, next);
      expect(res.statusCode, next).toBe(200);
      expect(res.headers['location']).toBeUndefined();
      expect(res.body).toMatch(/Subscribed|subscribed/);
    }
    const total = await t.api('GET', '/api/subscribers?query=' + encodeURIComponent("subscribers.email LIKE 'next%'"));
    expect(total.body.data.total).toBe(5);
  });
});
