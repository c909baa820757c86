/**
 * The roles and audit log pages in Chromium, as a Super Admin works (issue 16; listmonk's
 * `users.cy.js` steps 2–9): a user role made with the permission matrix, a list role with one list
 * (a row added with htmx, and without JavaScript by posting the form), both listed, and the audit log
 * showing those actions. Every page at phone and desktop size, light and dark: no CSP violation, no
 * console error, no serious or critical axe violation, a screenshot of each into ./screenshots/.
 */
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/http/access.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type Scheme, type ViewportName } from '../helpers/browser.js';

describe.skipIf(!browserAvailable)('roles and audit pages in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  let session: string;
  let news: number;
  beforeAll(async () => {
    t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    news = (await t.api('POST', '/api/lists', { name: 'News' })).body.data.id;
    await t.api('POST', '/api/lists', { name: 'Offers' });
    const [user] = await t.deps.db.sql<{ id: number }>("INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ('ada', NULL, 'user', 1, 'ada@example.com') RETURNING id");
    session = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  }, 120_000);
  afterAll(async () => t?.close());

  /** A signed-in page at `size`/`scheme`, opened at `path`. */
  async function signedIn(path: string, size: ViewportName = 'desktop', scheme: Scheme = 'light', javaScript = true) {
    const p = await openPage(browser(), `${base}/health`, { size, scheme, javaScript });
    await p.context.addCookies([{ name: 'session', value: session, url: base }]);
    p.errors.length = 0;
    const failed: string[] = [];
    p.page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) failed.push(`${r.status()} ${r.url()}`);
    });
    await p.page.goto(`${base}${path}`, { waitUntil: 'load' });
    /** Console errors, but for the browser's own favicon request (there is none): its 404 is not the page's. */
    const errors = () => {
      expect(failed).toEqual([]);
      return p.errors.filter((e) => !e.includes('status of 404'));
    };
    return { ...p, errors };
  }

  const checked = (page: Page) => page.locator('[data-cy=user-role-form] input[name=permissions]:checked');

  it('creates a user role with the matrix and sees it listed', async () => {
    const p = await signedIn('/admin/users/roles/new');
    try {
      const { page } = p;
      await page.getByLabel('Name').fill('Writers');
      // Start from nothing, then tick three permissions, as a user would.
      while ((await checked(page).count()) > 0) await checked(page).first().uncheck();
      expect(await checked(page).count()).toBe(0);
      for (const perm of ['campaigns:get', 'campaigns:manage', 'subscribers:get']) await page.locator(`[data-cy="${perm}"]`).check();
      await page.locator('[data-cy=btn-save]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users/roles');
      await page.getByText('“Writers” was created.').waitFor();
      const row = page.locator('[data-cy=user-roles] tr', { hasText: 'Writers' });
      expect(await row.textContent()).toContain(`3 of ${PERMISSIONS.length}`);
      const [role] = await t.deps.db.sql<{ permissions: string[] }>("SELECT permissions FROM roles WHERE name = 'Writers'");
      expect(role!.permissions).toEqual(['subscribers:get', 'campaigns:get', 'campaigns:manage']);
      expect(p.cspViolations).toEqual([]);
      expect(p.errors()).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('creates a list role with one list (a row added with htmx) and sees it listed', async () => {
    const p = await signedIn('/admin/users/roles/lists/new');
    try {
      const { page } = p;
      await page.getByLabel('Name').fill('Newsroom');
      await page.getByLabel('List 1', { exact: true }).selectOption({ label: 'News' });
      await page.getByLabel('Manage list 1').uncheck();
      await page.locator('[data-cy=btn-add-list]').click();
      await page.locator('select[name=list_3]').waitFor();
      // The swap kept what was chosen.
      expect(await page.getByLabel('List 1', { exact: true }).inputValue()).toBe(String(news));
      expect(await page.getByLabel('Manage list 1').isChecked()).toBe(false);
      await page.locator('[data-cy=btn-save]').click();
      await page.waitForURL((u) => u.pathname === '/admin/users/roles/lists');
      await page.getByText('“Newsroom” was created.').waitFor();
      expect(await page.locator('[data-cy=list-roles] tr', { hasText: 'Newsroom' }).textContent()).toContain('News');
      const grants = await t.deps.db.sql<{ list_id: number; permissions: string[] }>("SELECT list_id, role_lists.permissions FROM role_lists JOIN roles ON roles.id = role_id WHERE roles.name = 'Newsroom'");
      expect(grants).toEqual([{ list_id: news, permissions: ['list:get'] }]);
      expect(p.cspViolations).toEqual([]);
      expect(p.errors()).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('adds a list row without JavaScript (the form is posted and shown again)', async () => {
    const p = await signedIn('/admin/users/roles/lists/new', 'phone', 'light', false);
    try {
      const { page } = p;
      await page.getByLabel('Name').fill('Plain');
      await page.getByLabel('List 1', { exact: true }).selectOption({ label: 'Offers' });
      await page.locator('[data-cy=btn-add-list]').click();
      await page.locator('select[name=list_3]').waitFor();
      expect(await page.getByLabel('Name').inputValue()).toBe('Plain');
      expect(await page.getByLabel('List 1', { exact: true }).locator('option:checked').textContent()).toBe('Offers');
      expect((await t.deps.db.sql("SELECT 1 FROM roles WHERE name = 'Plain'")).length).toBe(0);
    } finally {
      await p.close();
    }
  });

  it('the audit log shows both actions, and filters by action', async () => {
    await t.deps.audit.drain();
    const p = await signedIn('/admin/users/audit');
    try {
      const { page } = p;
      const actions = page.locator('[data-cy=audit-action]');
      await actions.first().waitFor();
      const all = await actions.allTextContents();
      expect(all).toContain('roles.create_user_role');
      expect(all).toContain('roles.create_list_role');
      // Newest first: the list role was made after the user role.
      expect(all.indexOf('roles.create_list_role')).toBeLessThan(all.indexOf('roles.create_user_role'));
      await page.getByLabel('Action').fill('roles.create_list_role');
      await page.locator('[data-cy=btn-search]').click();
      await page.waitForURL((u) => u.searchParams.get('action') === 'roles.create_list_role');
      expect(await page.locator('[data-cy=audit-action]').allTextContents()).toEqual(['roles.create_list_role']);
      expect(await page.locator('[data-cy=audit-log]').textContent()).toContain('ada');
    } finally {
      await p.close();
    }
  });

  it('every page: accessible, CSP-clean, screenshotted at both sizes in both schemes', async () => {
    const [writers] = await t.deps.db.sql<{ id: number }>("SELECT id FROM roles WHERE name = 'Writers'");
    const [newsroom] = await t.deps.db.sql<{ id: number }>("SELECT id FROM roles WHERE name = 'Newsroom'");
    const pages: [string, string][] = [
      ['roles-users', '/admin/users/roles'],
      ['roles-user-edit', `/admin/users/roles/${writers!.id}`],
      ['roles-super-admin', '/admin/users/roles/1'],
      ['roles-lists', '/admin/users/roles/lists'],
      ['roles-list-edit', `/admin/users/roles/lists/${newsroom!.id}`],
      ['audit', '/admin/users/audit'],
    ];
    const variants: [ViewportName, Scheme][] = [['desktop', 'light'], ['desktop', 'dark'], ['phone', 'light'], ['phone', 'dark']];
    for (const [size, scheme] of variants) {
      const p = await signedIn('/admin/users/roles', size, scheme);
      try {
        for (const [name, path] of pages) {
          await p.page.goto(`${base}${path}`, { waitUntil: 'load' });
          await p.page.locator('main h1').waitFor();
          await expectAccessible(p.page, `${name} ${size} ${scheme}`);
          await screenshot(p.page, `${name}-${size}-${scheme}`);
        }
        expect(p.cspViolations).toEqual([]);
        expect(p.errors()).toEqual([]);
      } finally {
        await p.close();
      }
    }
  });
});
