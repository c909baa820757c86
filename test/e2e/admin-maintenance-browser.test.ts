/**
 * The Logs and Maintenance pages in Chromium, as an operator uses them (issue 16), on the store the
 * run uses: signed in as a Super Admin, delete the orphan subscribers through the confirm dialog and
 * read the notice with the count; open Logs and find the line that delete wrote, from this instance;
 * tick "Follow" and watch a new line arrive without reloading; without JavaScript, the delete goes
 * through the confirm step page instead. axe on both pages; screenshots at phone and desktop size,
 * light and dark (screenshots/maintenance-*.png, logs-*.png).
 *
 * The app is built here as main.ts builds it, with its logger writing to log_lines through the
 * batched writer (flushed by hand, so no test waits on its timer).
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildDeps, type Deps } from '../../src/deps.js';
import type { App } from '../../src/http/types.js';
import { createLogger } from '../../src/modules/logs/logger.js';
import { LogLineWriter } from '../../src/modules/logs/writer.js';
import { AUTH, ROOT_URL, TEST_PASSWORD, TEST_USER } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type OpenedPage, type Scheme, type ViewportName } from '../helpers/browser.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

if (!browserAvailable) console.warn('skipping the maintenance/logs browser tests: no Chromium');

const INSTANCE = 'node-e2e';
const quiet = new Writable({ write: (_c, _e, done) => done() });

describe.skipIf(!browserAvailable)('Logs and Maintenance pages in a browser', () => {
  const browser = useBrowser();
  let testDb: TestDb;
  let app: App;
  let deps: Deps;
  let logger: Logger;
  let writer: LogLineWriter;
  let base: string;
  let session = '';
  /** Paths answered 404 to the browser (Chromium asks for /favicon.ico, which the kit does not serve). */
  const notFound: string[] = [];
  /** Console errors other than the 404s counted in notFound. */
  const errorsOf = (p: OpenedPage) => p.errors.filter((e) => !/status of 404/u.test(e));

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await app.inject({ method: method as 'POST', url, headers: { authorization: AUTH }, ...(body === undefined ? {} : { payload: body as object }) });
    return JSON.parse(res.body) as { data: any };
  };
  const count = async (sql: string) => ((await deps.db.sql<{ n: number }>(sql))[0]!).n;

  beforeAll(async () => {
    testDb = await openTestDb();
    const config = loadConfig({
      MAILROOM_ADMIN_USER: TEST_USER, MAILROOM_ADMIN_PASSWORD: TEST_PASSWORD, MAILROOM_ROOT_URL: ROOT_URL, MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9',
      MAILROOM_FROM_EMAIL: 'Mailroom Test <news@mailroom.test>', MAILROOM_DATA_DIR: '/tmp/mailroom-test-unused', MAILROOM_INSTANCE_ID: INSTANCE,
    });
    writer = new LogLineWriter({ keep: 1000, flushMs: 3_600_000 });
    logger = createLogger('info', { instance: INSTANCE }, writer, quiet);
    deps = await buildDeps(config, logger, { db: testDb.db, logLines: writer });
    await deps.settings.update({ 'app.message_rate': 0, 'app.send_optin_confirmation': false });
    app = await buildApp(deps);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const list = (await api('POST', '/api/lists', { name: 'Weekly', type: 'public', optin: 'single' })).data.id as number;
    for (const [name, lists] of [['ann', [list]], ['orphan-1', []], ['orphan-2', []]] as const) await api('POST', '/api/subscribers', { email: `${name}@example.com`, name, lists });
    // A signed-in Super Admin (the sign-in form has its own browser test).
    const [user] = await deps.db.sql<{ id: number }>(`INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ('operator', NULL, 'user', 1, 'operator@example.com') RETURNING id`);
    session = await deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'browser test' });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await deps?.close();
    await testDb?.destroy();
  });

  /** Opens `path` signed in. */
  async function open(path: string, opts: { size?: ViewportName; scheme?: Scheme; javaScript?: boolean } = {}): Promise<OpenedPage> {
    const p = await openPage(browser(), `${base}/admin/login`, opts);
    await p.context.addCookies([{ name: 'session', value: session, url: base }]);
    p.page.on('response', (r) => {
      if (r.status() === 404) notFound.push(new URL(r.url()).pathname);
    });
    await p.page.goto(`${base}${path}`, { waitUntil: 'load' });
    return p;
  }

  it('deletes the orphans through the confirm dialog and says how many; the Logs page shows the line it wrote', async () => {
    const p = await open('/admin/settings/maintenance');
    try {
      const { page } = p;
      await page.getByRole('heading', { name: 'Maintenance', level: 1 }).waitFor();
      await page.getByLabel('Data').first().selectOption('orphan');
      await page.locator('[data-cy=btn-delete-subscribers]').click();
      const dialog = page.locator('#confirm-dialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('Delete the chosen subscribers');
      await screenshot(page, 'maintenance-confirm-desktop-light', { fullPage: false });
      await dialog.getByRole('button', { name: 'OK' }).click();
      const notice = page.locator('.notice-success');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('Deleted 2 orphan subscribers.');
      expect(new URL(page.url()).pathname).toBe('/admin/settings/maintenance');
      expect(await count('SELECT count(*)::int AS n FROM subscribers')).toBe(1);
      expect(p.cspViolations).toEqual([]);
      expect(errorsOf(p)).toEqual([]);
      expect(notFound.filter((x) => x !== '/favicon.ico')).toEqual([]);

      await writer.flush();
      await page.locator('[data-cy=logs]').click();
      await page.getByRole('heading', { name: 'Logs', level: 1 }).waitFor();
      const mine = page.locator('.log-line', { hasText: 'maintenance: Deleted 2 orphan subscribers.' });
      await mine.waitFor();
      expect(await mine.locator('.log-instance').textContent()).toBe(INSTANCE);
      expect(await mine.locator('.log-level').textContent()).toBe('INFO');
      expect(await mine.textContent()).toContain('"user":"operator"');
    } finally {
      await p.close();
    }
  });

  it('"Follow" reloads the lines in place: a new line arrives without a page load', async () => {
    const p = await open('/admin/settings/logs');
    try {
      const { page } = p;
      let loads = 0;
      page.on('load', () => (loads += 1));
      await page.getByLabel('Follow').check();
      await page.locator('#log-lines[data-follow=on]').waitFor();
      logger.warn({ component: 'health' }, 'a line written while following');
      await writer.flush();
      await page.locator('.log-line', { hasText: 'health: a line written while following' }).waitFor();
      expect(loads).toBe(0);
      expect(await page.getByLabel('Follow').isChecked()).toBe(true);
      expect(await page.locator('[data-cy=refresh]').getAttribute('href')).toBe('/admin/settings/logs?follow=1');
      expect(p.cspViolations).toEqual([]);
      expect(errorsOf(p)).toEqual([]);
      expect(notFound.filter((x) => x !== '/favicon.ico')).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('without JavaScript a delete asks on a confirm step page first', async () => {
    await api('POST', '/api/subscribers', { email: 'blocked@example.com', name: 'blocked', status: 'blocklisted', lists: [] });
    const p = await open('/admin/settings/maintenance', { javaScript: false, size: 'phone' });
    try {
      const { page } = p;
      await page.locator('#f-subscribers-type').selectOption('blocklisted');
      await page.locator('[data-cy=btn-delete-subscribers]').click();
      await page.locator('h1', { hasText: 'Confirm the delete' }).waitFor();
      expect(await count(`SELECT count(*)::int AS n FROM subscribers WHERE status = 'blocklisted'`)).toBe(1);
      await screenshot(page, 'maintenance-confirm-step-phone-light');
      await page.locator('[data-cy=btn-confirm-delete]').click();
      await page.locator('.notice-success').waitFor();
      expect(await page.locator('.notice-success').textContent()).toContain('Deleted 1 blocklisted subscribers.');
      expect(await count(`SELECT count(*)::int AS n FROM subscribers WHERE status = 'blocklisted'`)).toBe(0);
    } finally {
      await p.close();
    }
  });

  it('the confirm step page passes axe (reached with JavaScript by a form.submit() that skips the dialog)', async () => {
    const p = await open('/admin/settings/maintenance', { size: 'phone', scheme: 'dark' });
    try {
      const { page } = p;
      await page.locator('form[action$="/analytics"]').evaluate((f) => (f as HTMLFormElement).submit());
      await page.locator('h1', { hasText: 'Confirm the delete' }).waitFor();
      await expectAccessible(page, 'confirm step');
      await screenshot(page, 'maintenance-confirm-step-phone-dark');
      expect(p.cspViolations).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('a bad date shows its error beside the field', async () => {
    const p = await open('/admin/settings/maintenance');
    try {
      const { page } = p;
      // A date input holds only real dates; a text input stands in for a browser without date inputs.
      await page.locator('#f-analytics-before').evaluate((el) => el.setAttribute('type', 'text'));
      await page.locator('#f-analytics-before').fill('31/02/2026');
      await page.locator('[data-cy=btn-delete-analytics]').click();
      await page.locator('#confirm-dialog').getByRole('button', { name: 'OK' }).click();
      const error = page.locator('#f-analytics-before-error');
      await error.waitFor();
      expect(await error.textContent()).toContain('Enter a real date');
      expect(await page.locator('#f-analytics-before').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page, 'maintenance with an error');
      await screenshot(page, 'maintenance-error-desktop-light');
    } finally {
      await p.close();
    }
  });

  for (const size of ['desktop', 'phone'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`passes axe and is photographed: ${size}, ${scheme}`, async () => {
        for (const [name, path] of [['maintenance', '/admin/settings/maintenance'], ['logs', '/admin/settings/logs']] as const) {
          const p = await open(path, { size, scheme });
          try {
            await p.page.getByRole('heading', { name: name === 'logs' ? 'Logs' : 'Maintenance', level: 1 }).waitFor();
            await expectAccessible(p.page, `${name} ${size} ${scheme}`);
            await screenshot(p.page, `${name}-${size}-${scheme}`);
            expect(p.cspViolations).toEqual([]);
          } finally {
            await p.close();
          }
        }
      });
    }
  }
});
