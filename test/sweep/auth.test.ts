/**
 * Authentication, everywhere (issue "Trustworthy" §3, issue 14 findings 1, 5 and 9): every route in the
 * real route table except the public ones answers 401 without credentials and with wrong ones, under
 * generated spellings of its path too; the public routes are exactly the expected ones; failed logins
 * are throttled per client, with each check reserved before the hash (so concurrency cannot get more
 * guesses checked than the limit), and malformed credentials count as failures.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { MAX_FAILURES } from '../../src/http/security.js';
import { AUTH, buildTestApp, TEST_USER, type TestApp } from '../helpers/app.js';
import { injectKeeps, randomSpelling } from '../helpers/path-spellings.js';
import { rawRequest } from '../helpers/raw-http.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
const wrong = basic(`${TEST_USER}:not-the-password`);
const SEED = Number(process.env.SWEEP_SEED ?? 20261122);

let nextAddress = 0;
/** A fresh client address, so requests that count as failures never reach the throttle's limit. */
function freshAddress(): string {
  nextAddress += 1;
  return `10.${(nextAddress >> 16) & 255}.${(nextAddress >> 8) & 255}.${nextAddress & 255}`;
}

/** True for the admin pages, which redirect to sign-in rather than answer 401 when no credentials come. */
const isAdminPage = (url: string) => url === '/admin' || url.startsWith('/admin/');

/** The protected routes, CORS's `OPTIONS *` catch-all included. */
function protectedRoutes() {
  return t.app.routeTable.filter((r) => !r.public);
}

describe('every non-public route needs credentials', () => {
  it('answers 401 with WWW-Authenticate without, with malformed and with wrong credentials', async () => {
    const routes = protectedRoutes();
    expect(routes.length).toBeGreaterThan(60);
    let requests = 0;
    // Wrong passwords cost a password hash each (~1 s on a loaded machine): every route gets the
    // credentials that need none, and a spread of routes the wrong ones. Whether a check runs is decided
    // by the matched route; what a wrong password answers does not depend on the route.
    for (const [i, r] of routes.entries()) {
      const kinds: Array<string | undefined> = [undefined, 'Basic', 'Basic !!!', basic(`${TEST_USER}\u0000:x`), basic('no-colon'), 'Bearer x'];
      if (i % 8 === 0 || r.url === '/metrics' || r.url === '/api/settings') kinds.push(wrong, `token ${TEST_USER}:x`);
      for (const authorization of kinds) {
        const res = await t.app.inject({
          method: r.method as 'GET',
          url: concreteUrl(r).replace(/^(?!\/)/u, '/'),
          headers: authorization ? { authorization } : {},
          remoteAddress: freshAddress(),
        });
        requests += 1;
        if (isAdminPage(r.url) && authorization === undefined) {
          // An admin page without any credentials sends the browser to sign in.
          expect([302, 303], `${r.method} ${r.url} (none)`).toContain(res.statusCode);
          expect(String(res.headers.location)).toMatch(/^\/admin\/login\?next=/u);
          continue;
        }
        expect(res.statusCode, `${r.method} ${r.url} ${authorization ?? '(none)'}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Basic realm="mailroom"/);
        expect(Object.keys(res.json())).toEqual(['message']);
      }
    }
    console.log(`auth sweep: ${routes.length} routes, ${requests} requests, all 401`);
  }, 240_000); // ~60 s on a loaded machine (a password hash per wrong password); a timed-out sweep would go on in the background and disturb the throttle tests below

  it('answers 401 (or 404 where no route matches) to generated spellings of every protected path', async () => {
    let requests = 0;
    const byStatus = new Map<number, number>();
    for (const r of protectedRoutes()) {
      const path = concreteUrl(r).replace(/^(?!\/)/u, '/');
      await fc.assert(
        fc.asyncProperty(randomSpelling(path), fc.constantFrom(undefined, 'Basic', basic('\u0000:x')), async (spelling, authorization) => {
          const { target } = spelling;
          expect(injectKeeps(target)).toBe(true);
          const res = await t.app.inject({ method: r.method as 'GET', url: target, headers: authorization ? { authorization } : {}, remoteAddress: freshAddress() });
          requests += 1;
          byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
          // A NUL may also be refused as such (400), wherever it ends up.
          const refused = isAdminPage(r.url) && authorization === undefined ? [302, 303] : [401];
          const allowed = spelling.same ? refused : [...refused, 401, 404, ...(target.includes('%00') ? [400] : [])];
          expect(allowed, `${r.method} ${target} → ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
        }),
        { numRuns: 25, seed: SEED, endOnFailure: true },
      );
    }
    const summary = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`auth spelling fuzz: ${requests} requests (${summary}), seed ${SEED}`);
    expect(byStatus.get(401) ?? 0).toBeGreaterThan(requests / 4);
  }, 240_000);

  it('marks exactly the expected routes public', () => {
    const publicRoutes = t.app.routeTable.filter((r) => r.public).map((r) => `${r.method} ${r.url}`).sort();
    expect(publicRoutes).toEqual(
      [
        // listmonk's public API
        'GET /api/public/lists',
        'POST /api/public/subscription',
        'GET /api/public/archive',
        // pages and files linked from e-mails and the public site
        'GET /subscription/form',
        'POST /subscription/form',
        'GET /subscription/optin/:subscriberUuid',
        'POST /subscription/optin/:subscriberUuid',
        'GET /subscription/:campaignUuid/:subscriberUuid',
        'POST /subscription/:campaignUuid/:subscriberUuid',
        'GET /campaign/:campaignUuid/:subscriberUuid',
        'GET /campaign/:campaignUuid/:subscriberUuid/px.png',
        'GET /link/:linkUuid/:campaignUuid/:subscriberUuid',
        'GET /archive',
        'GET /archive.xml',
        'GET /archive/:key',
        'GET /uploads/:filename',
        'GET /uploads/thumbs/:filename',
        // sign-in pages after the password (listmonk's public admin pages)
        'GET /admin/login/twofa',
        'POST /admin/login/twofa',
        'GET /admin/forgot',
        'POST /admin/forgot',
        'GET /admin/reset',
        'POST /admin/reset',
        // OIDC sign-in: start and the provider's callback (listmonk's /auth/oidc)
        'GET /auth/oidc',
        'POST /auth/oidc',
        // load balancers
        'GET /health',
        // the admin UI's root redirect and its static assets (CSS, JS: no credentials needed)
        'GET /',
        'GET /admin/static/:name',
        // signing in (nobody is signed in yet)
        'GET /admin/login',
        'POST /admin/login',
      ].sort(),
    );
  });
});

describe('failed-login throttle', () => {
  it('counts malformed credentials (a NUL in the user name) as failures: 429 with Retry-After after the limit', async () => {
    const from = { remoteAddress: '192.0.2.77' };
    for (let i = 0; i < MAX_FAILURES; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: basic(`adm\u0000in:${i}`) }, ...from });
      expect(res.statusCode).toBe(401);
    }
    const blocked = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH }, ...from });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().message).toMatch(/too many failed logins/);
    const other = await t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH }, remoteAddress: '192.0.2.78' });
    expect(other.statusCode).toBe(200);
  });

  it('checks at most the limit of 200 concurrent wrong passwords over real HTTP; the rest get 429 with Retry-After', async () => {
    const users = t.deps.users;
    const original = users.authenticate.bind(users);
    let verified = 0;
    let running = 0;
    let mostAtOnce = 0;
    users.authenticate = async (user: string, password: string) => {
      verified += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        return await original(user, password);
      } finally {
        running -= 1;
      }
    };
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => rawRequest(port, 'GET', '/api/subscribers', { authorization: basic(`${TEST_USER}:guess-${i}`) }, 120_000)),
      );
      const count = (s: number) => answers.filter((a) => a.status === s).length;
      console.log(`200 concurrent wrong passwords: ${verified} checked (at most ${mostAtOnce} at once), 401×${count(401)} 429×${count(429)}`);
      expect(verified).toBeLessThanOrEqual(MAX_FAILURES);
      expect(count(401)).toBe(verified);
      expect(count(429)).toBe(200 - verified);
      for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      // The failures were counted: the right password from the same address is refused too.
      const after = await rawRequest(port, 'GET', '/api/subscribers', { authorization: AUTH });
      expect(after.status).toBe(429);
    } finally {
      users.authenticate = original;
    }
  });

  it('lets concurrent requests with the right credentials through (they share one reservation)', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.app.inject({ method: 'GET', url: '/api/lists', headers: { authorization: AUTH }, remoteAddress: '192.0.2.90' })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
  });
});
