/**
 * The users pages in Chromium as a Super Admin works them (issue 16 "Users"; listmonk admin UI map
 * §1.14–1.16 and its users.cy.js journey): open Users, create a user through the form (a mistake first,
 * shown beside its field), find it in the table, edit it, create an API user and see its token once,
 * open the profile. axe on every page, no CSP violations, screenshots at 1440×900 and 390×844 in light
 * and dark (screenshots/users-*.png; look at them).
 */
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, setScheme, useBrowser, type OpenedPage, type ViewportName } from '../helpers/browser.js';

if (!browserAvailable) console.warn('skipping the admin users browser tests: no Chromium');

describe.skipIf(!browserAvailable)('the users pages in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  let session: string;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const [ann] = await t.deps.db.sql<{ id: number }>(
      `INSERT INTO users (username, name, password_hash, type, user_role_id, email) VALUES ('ann', 'Ann Admin', NULL, 'user', 1, 'ann@example.com') RETURNING id`,
    );
    session = await t.deps.sessions.start(ann!.id, { ip: '127.0.0.1', userAgent: 'browser test' });
  });
  afterAll(async () => t?.close());

  /** Opens `path` signed in as Ann (Super Admin). */
  async function open(path: string, size: ViewportName = 'desktop'): Promise<OpenedPage> {
    const p = await openPage(browser(), `${base}/admin/login`, { size });
    await p.context.addCookies([{ name: 'session', value: session, url: base }]);
    await p.page.goto(`${base}${path}`, { waitUntil: 'load' });
    return p;
  }

  /** axe, then screenshots of the page light and dark under `name-<size>-<scheme>`. */
  async function check(page: Page, name: string, size: ViewportName): Promise<void> {
    await expectAccessible(page, name);
    await screenshot(page, `users-${name}-${size}-light`);
    await setScheme(page, 'dark');
    await expectAccessible(page, `${name} (dark)`);
    await screenshot(page, `users-${name}-${size}-dark`);
    await setScheme(page, 'light');
  }

  it('creates a user through the form, finds it in the table and edits it', async () => {
    const p = await open('/admin/users');
    try {
      const { page } = p;
      // Every failed request but the browser's own /favicon.ico and the form's intended 422.
      const failed: string[] = [];
      page.on('response', (res) => {
        const path = new URL(res.url()).pathname;
        if (res.status() >= 400 && path !== '/favicon.ico' && !(res.status() === 422 && path === '/admin/users')) failed.push(`${res.status()} ${path}`);
      });
      await page.locator('[data-cy=users-table]').waitFor();
      await check(page, 'list', 'desktop');
      await page.locator('[data-cy=btn-new]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users/new');
      await check(page, 'new', 'desktop');

      // A mistake first: the passwords differ; the message stands beside the repeat field.
      await page.getByLabel('User name').fill('wren');
      await page.getByLabel('Name', { exact: true }).fill('Wren Writer');
      await page.getByLabel('E-mail').fill('wren@example.com');
      await page.locator('[data-cy=password]').fill('a long password');
      await page.locator('[data-cy=password2]').fill('a different one');
      await page.locator('[data-cy=user_role]').selectOption({ label: 'Super Admin' });
      await page.locator('[data-cy=btn-save]').click();
      await page.locator('#f-password2-error').waitFor();
      expect(await page.locator('#f-password2-error').textContent()).toContain('do not match');
      expect(await page.getByLabel('User name').inputValue()).toBe('wren');
      await check(page, 'new-error', 'desktop');

      await page.locator('[data-cy=password]').fill('a long password');
      await page.locator('[data-cy=password2]').fill('a long password');
      await page.locator('[data-cy=btn-save]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users');
      await page.getByRole('status').filter({ hasText: '“wren” was created.' }).waitFor();
      const row = page.locator('[data-cy=users-table] tbody tr').filter({ hasText: 'wren@example.com' });
      await row.waitFor();
      expect(await row.textContent()).toContain('Wren Writer');

      await row.locator('[data-cy=btn-edit]').click();
      await page.waitForURL((u) => /^\/admin\/users\/\d+$/u.test(u.pathname));
      await check(page, 'edit', 'desktop');
      await page.getByLabel('Name', { exact: true }).fill('Wren Renamed');
      await page.locator('[data-cy=status]').selectOption('disabled');
      await page.locator('[data-cy=btn-save]').click();
      await page.getByRole('status').filter({ hasText: '“wren” was saved.' }).waitFor();
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Wren Renamed');
      await page.goto(`${base}/admin/users`, { waitUntil: 'load' });
      const edited = page.locator('[data-cy=users-table] tbody tr').filter({ hasText: 'wren@example.com' });
      expect(await edited.textContent()).toContain('Wren Renamed');
      expect(await edited.textContent()).toContain('Disabled');
      expect(p.cspViolations).toEqual([]);
      expect(failed).toEqual([]);
      expect(p.errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('an API user\'s token is shown once, on the page the form leads to', async () => {
    const p = await open('/admin/users/new');
    try {
      const { page } = p;
      await page.locator('[data-cy=type]').selectOption('api');
      await page.getByLabel('User name').fill('robot');
      await page.locator('[data-cy=user_role]').selectOption({ label: 'Super Admin' });
      await page.locator('[data-cy=btn-save]').click();
      await page.locator('[data-cy=api-token]').waitFor();
      const token = await page.locator('[data-cy=api-token]').inputValue();
      expect(token).toMatch(/^[A-Za-z0-9]{48}$/u);
      await check(page, 'token', 'desktop');
      const status = await page.evaluate(async ([tok]) => (await fetch('/api/profile', { headers: { authorization: `token robot:${tok}` }, credentials: 'omit' })).status, [token]);
      expect(status).toBe(200);
      await page.locator('[data-cy=btn-done]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users');
      expect(await page.content()).not.toContain(token);
    } finally {
      await p.close();
    }
  });

  it('on a phone: the table, the form and the profile read well and pass axe', async () => {
    for (const [path, name] of [['/admin/users', 'list'], ['/admin/users/new', 'new'], ['/admin/user/profile', 'profile']] as const) {
      const p = await open(path, 'phone');
      try {
        await check(p.page, name, 'phone');
        expect(p.cspViolations).toEqual([]);
      } finally {
        await p.close();
      }
    }
  });

  it('the profile saves the name and shows a notice', async () => {
    const p = await open('/admin/user/profile');
    try {
      const { page } = p;
      await check(page, 'profile', 'desktop');
      await page.getByLabel('Name', { exact: true }).fill('Ann A. Admin');
      await page.locator('[data-cy=btn-save]').click();
      await page.getByRole('status').filter({ hasText: 'Your profile was saved.' }).waitFor();
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ann A. Admin');
    } finally {
      await p.close();
    }
  });
});
