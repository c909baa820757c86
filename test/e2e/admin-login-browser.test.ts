/**
 * Signing in to the admin, in Chromium, as a new user meets it (issue 16 "Sign-in"): a fresh install
 * sends `/` to the first-run setup form; the new Super Admin is signed in; signing out ends the session;
 * a wrong password shows one message for every reason; a page asked for before signing in is where the
 * browser lands after; a form whose CSRF cookie is gone is refused; the pages pass axe.
 */
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { hashPassword } from '../../src/modules/users/service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser } from '../helpers/browser.js';

if (!browserAvailable) console.warn('skipping the admin sign-in browser tests: no Chromium');

describe.skipIf(!browserAvailable)('admin sign-in in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  /** The status of an API call made by the page with its cookies. */
  const apiStatus = (page: Page, path: string) => page.evaluate(async (p) => (await fetch(p)).status, path);

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.locator('[data-cy=username]').fill(username);
    await page.locator('[data-cy=password]').fill(password);
    await page.locator('[data-cy=btn-login]').click();
  }

  it('first run: / leads to the setup form, which creates the Super Admin and signs it in', async () => {
    const p = await openPage(browser(), `${base}/`, { size: 'desktop' });
    try {
      const { page } = p;
      await page.locator('[data-cy=setup-form]').waitFor();
      expect(new URL(page.url()).pathname).toBe('/admin/login');
      await expectAccessible(page, 'setup');
      await screenshot(page, 'login-setup-desktop-light');
      await page.locator('[data-cy=email]').fill('ann@example.com');
      await page.locator('[data-cy=username]').fill('ann');
      await page.locator('[data-cy=password]').fill('short');
      await page.locator('[data-cy=password2]').fill('short');
      await page.locator('[data-cy=btn-setup]').click();
      // The error is shown beside the password field; nothing was created.
      await page.locator('#password-error, [id$=password-error]').first().waitFor();
      expect((await t.deps.db.sql(`SELECT 1 FROM users WHERE type = 'user'`)).length).toBe(0);
      await page.locator('[data-cy=password]').fill('a good long password');
      await page.locator('[data-cy=password2]').fill('a good long password');
      await page.locator('[data-cy=btn-setup]').click();
      await page.waitForURL((u) => u.pathname === '/admin');
      expect(await apiStatus(page, '/api/lists')).toBe(200);
      const [row] = await t.deps.db.sql<{ user_role_id: number; email: string }>(`SELECT user_role_id, email FROM users WHERE username = 'ann'`);
      expect(row).toEqual({ user_role_id: 1, email: 'ann@example.com' });
      expect(p.cspViolations).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('once set up, the login form: a wrong password, then the right one lands on the page asked for', async () => {
    const p = await openPage(browser(), `${base}/admin/login?next=%2Fadmin%2Fsettings`, { size: 'phone', scheme: 'dark' });
    try {
      const { page } = p;
      await page.locator('[data-cy=login-form]').waitFor();
      expect(new URL(page.url()).searchParams.get('next')).toBe('/admin/settings');
      await expectAccessible(page, 'login');
      await screenshot(page, 'login-phone-dark');
      await signIn(page, 'ann', 'not the password');
      await page.locator('[data-cy=login-error]').waitFor();
      expect(await page.locator('[data-cy=login-error]').textContent()).toContain('Wrong user name or password');
      await signIn(page, 'nobody', 'a good long password');
      await page.waitForLoadState('load');
      expect(await page.locator('[data-cy=login-error]').textContent()).toContain('Wrong user name or password');
      // A 401 to the page's own fetch carries no Basic challenge (a browser would open a password dialog).
      expect(await apiStatus(page, '/api/lists')).toBe(401);
      await signIn(page, 'ann', 'a good long password');
      await page.waitForURL((u) => u.pathname === '/admin/settings');
      expect(await apiStatus(page, '/api/lists')).toBe(200);
    } finally {
      await p.close();
    }
  });

  it('a `next` that leaves /admin is ignored (no open redirect)', async () => {
    const p = await openPage(browser(), `${base}/admin/login?next=${encodeURIComponent('//evil.example/admin')}`, { size: 'desktop' });
    try {
      await signIn(p.page, 'ann', 'a good long password');
      await p.page.waitForURL((u) => u.pathname === '/admin');
      expect(new URL(p.page.url()).host).toBe(new URL(base).host);
    } finally {
      await p.close();
    }
  });

  it('signing out from the profile menu ends the session on the server; a post without the CSRF token does not', async () => {
    const p = await openPage(browser(), `${base}/admin/login`, { size: 'desktop' });
    try {
      const { page } = p;
      await signIn(page, 'ann', 'a good long password');
      await page.waitForURL((u) => u.pathname === '/admin');
      const cookie = (await page.context().cookies()).find((c) => c.name === 'session');
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Lax');
      // A forged sign-out (no CSRF token) is refused and the session lives on.
      const forged = await t.app.inject({ method: 'POST', url: '/admin/logout', headers: { cookie: `session=${cookie!.value}` }, payload: {} });
      expect(forged.statusCode).toBe(403);
      expect(await apiStatus(page, '/api/lists')).toBe(200);
      await page.locator('details.profile-menu > summary').click();
      await page.locator('[data-cy=btn-logout]').click();
      await page.waitForURL((u) => u.pathname === '/admin/login');
      expect(await apiStatus(page, '/api/lists')).toBe(401);
      expect(await t.deps.sessions.find(cookie!.value)).toBeNull();
    } finally {
      await p.close();
    }
  });

  it('a sign-in form posted without its CSRF cookie is refused and signs nobody in', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=ann&password=a%20good%20long%20password&_csrf=forged',
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie'] ?? '').not.toMatch(/session=[^;]/u);
  });

  it('a user with two-step sign-in gives the password, then the code from the app, and lands on the page asked for', async () => {
    const hash = await hashPassword('bob has a long password');
    const [bob] = await t.deps.db.sql<{ id: number }>(`INSERT INTO users (username, email, name, type, user_role_id, password_hash) VALUES ('bob', 'bob@example.com', 'Bob', 'user', 1, $1) RETURNING id`, [hash]);
    const { secret } = await t.deps.twofa.generate(bob!.id);
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    // Enrol with the code of the previous step, so the sign-in below can use the current one (each code works once).
    await t.deps.twofa.enable(bob!.id, secret, totp.generate({ timestamp: Date.now() - 30_000 }), null);
    const p = await openPage(browser(), `${base}/admin/login?next=%2Fadmin%2Fusers`, { size: 'phone', scheme: 'light' });
    try {
      const { page } = p;
      await signIn(page, 'bob', 'bob has a long password');
      await page.locator('[data-cy=twofa-form]').waitFor();
      // The password alone grants nothing yet.
      expect(await apiStatus(page, '/api/lists')).toBe(401);
      await expectAccessible(page, 'two-step code');
      await page.locator('[data-cy=code]').fill(totp.generate());
      await page.locator('[data-cy=btn-verify]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users');
      expect(await apiStatus(page, '/api/lists')).toBe(200);
      expect(p.cspViolations).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
