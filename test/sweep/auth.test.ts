/**
 * Authentication, everywhere (issue "Trustworthy" §3): every route in the real route table except the
 * public ones answers 401 without credentials and with wrong ones; failed logins are throttled per client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, TEST_USER, type TestApp } from '../helpers/app.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
});
afterAll(async () => t.close());

const wrong = `Basic ${Buffer.from(`${TEST_USER}:not-the-password`).toString('base64')}`;

describe('every non-public route needs credentials', () => {
  it('answers 401 with WWW-Authenticate without and with wrong credentials', async () => {
    const routes = t.app.routeTable.filter((r) => !r.public && (r.url.startsWith('/api') || r.url.startsWith('/metrics')));
    expect(routes.length).toBeGreaterThan(20);
    let requests = 0;
    for (const [i, r] of routes.entries()) {
      for (const authorization of [undefined, wrong, 'Basic', `token ${TEST_USER}:x`]) {
        const res = await t.app.inject({
          method: r.method as 'GET',
          url: concreteUrl(r),
          headers: authorization ? { authorization } : {},
          remoteAddress: `10.9.${Math.floor(i / 250)}.${i % 250}`,
        });
        requests += 1;
        expect(res.statusCode, `${r.method} ${r.url} ${authorization ?? '(none)'}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Basic realm="mailroom"/);
        expect(Object.keys(res.json())).toEqual(['message']);
      }
    }
    console.log(`auth sweep: ${routes.length} routes, ${requests} requests, all 401`);
  });

  it('lists public routes explicitly (and nothing else answers without credentials)', () => {
    const publicApi = t.app.routeTable.filter((r) => r.public && r.url.startsWith('/api')).map((r) => `${r.method} ${r.url}`);
    for (const p of publicApi) expect(p).toMatch(/^(GET|POST) \/api\/public\//);
  });
});

describe('failed-login throttle', () => {
  it('answers 429 with Retry-After after 10 failures from one address, other addresses unaffected', async () => {
    const from = { remoteAddress: '192.0.2.77' };
    for (let i = 0; i < 10; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: wrong }, ...from })).statusCode).toBe(401);
    }
    const blocked = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH }, ...from });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().message).toMatch(/too many failed logins/);
    const other = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH }, remoteAddress: '192.0.2.78' });
    expect(other.statusCode).toBe(200);
  });
});
