/**
 * The settings page in Chromium, as an administrator uses it (issue 16 "Settings"): change a setting
 * and save (the notice shows, the value is stored), cause a validation error and find it beside the
 * field, leave with unsaved changes and be asked, send an SMTP test through a real SMTP server and see
 * it succeed, and switch tabs with and without JavaScript. axe on the page at both sizes and in both
 * colour schemes, with screenshots into ./screenshots/ (look at them).
 */
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type OpenedPage, type Scheme, type ViewportName } from '../helpers/browser.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

if (!browserAvailable) console.warn('skipping the admin settings browser tests: no Chromium');

describe.skipIf(!browserAvailable)('the settings page in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let sink: SmtpSink;
  let base: string;
  let session: string;
  beforeAll(async () => {
    t = await buildTestApp();
    sink = await startSmtpSink();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const [smtp] = t.deps.settings.get(t.deps.core.smtp);
    await t.deps.settings.update({ smtp: [{ ...smtp!, auth_protocol: 'login', username: 'mailer', password: 'stored-smtp-secret' }] });
    const [user] = await t.deps.db.sql<{ id: number }>(
      `INSERT INTO users (username, password_hash, type, user_role_id, email, name) VALUES ('ops', NULL, 'user', 1, 'ops@example.com', 'Olive Ops') RETURNING id`,
    );
    session = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'browser test' });
  });
  afterAll(async () => {
    await sink?.close();
    await t?.close();
  });

  /** Opens `path` signed in. */
  async function open(path: string, opts: { size?: ViewportName; scheme?: Scheme; javaScript?: boolean } = {}): Promise<OpenedPage> {
    const p = await openPage(browser(), `${base}/admin/login`, opts);
    await p.context.addCookies([{ name: 'session', value: session, url: base }]);
    await p.page.goto(`${base}${path}`, { waitUntil: 'load' });
    return p;
  }

  /** Console and page errors, without the browser's own /favicon.ico 404 (the kit serves no icon). */
  const scriptErrors = (p: OpenedPage) => p.errors.filter((e) => !e.includes('status of 404'));

  const tab = (page: Page, name: string) => page.getByRole('tab', { name });

  it('changes a setting and saves it: the notice shows and the value is stored', async () => {
    const p = await open('/admin/settings');
    try {
      const { page } = p;
      await tab(page, 'Performance').click();
      expect(new URL(page.url()).searchParams.get('tab')).toBe('performance');
      await page.getByLabel('Concurrency').fill('6');
      await page.locator('[data-cy=btn-save]').click();
      await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      expect(t.deps.settings.get(t.deps.core.concurrency)).toBe(6);
      // Back on the tab of the change, showing the stored value.
      expect(await tab(page, 'Performance').getAttribute('aria-selected')).toBe('true');
      expect(await page.getByLabel('Concurrency').inputValue()).toBe('6');
      expect(t.deps.settings.get(t.deps.core.smtp)[0]!.password).toBe('stored-smtp-secret');
      expect(await page.content()).not.toContain('stored-smtp-secret');
      expect(p.cspViolations).toEqual([]);
      expect(scriptErrors(p)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('shows a refused value beside its field, keeps what was typed and saves nothing; leaving asks first', async () => {
    const p = await open('/admin/settings?tab=smtp', { size: 'desktop' });
    try {
      const { page } = p;
      const port = page.locator('[name="smtp.0.port"]');
      await port.fill('70000');
      await page.locator('[data-cy=btn-save]').click();
      const error = page.locator('[id="f-smtp.0.port-error"]');
      await error.waitFor();
      expect(await error.textContent()).toContain('65535');
      expect(await port.getAttribute('aria-invalid')).toBe('true');
      expect(await port.inputValue()).toBe('70000');
      expect(t.deps.settings.get(t.deps.core.smtp)[0]!.port).toBe(9);
      await expectAccessible(page, 'settings with an error');
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'settings-error-desktop-light');
      // The re-rendered form holds unsaved changes: leaving asks first.
      const asked = new Promise<string>((resolve) => page.once('dialog', (d) => { resolve(d.type()); void d.dismiss(); }));
      await page.getByRole('link', { name: 'Logs' }).click({ noWaitAfter: true }).catch(() => undefined);
      expect(await asked).toBe('beforeunload');
      expect(new URL(page.url()).pathname).toBe('/admin/settings');
    } finally {
      await p.close();
    }
  });

  it('sends an SMTP test through the server as filled in and shows that it worked', async () => {
    const p = await open('/admin/settings?tab=smtp');
    try {
      const { page } = p;
      await page.locator('[name="smtp.0.host"]').fill('127.0.0.1');
      await page.locator('[name="smtp.0.port"]').fill(String(sink.port));
      await page.locator('[name="smtp.0.auth_protocol"]').selectOption('none');
      await page.locator('[name="smtp.0.tls_type"]').selectOption('none');
      await page.getByLabel('Send a test e-mail to').fill('editor@example.com');
      const before = sink.messages.length;
      await page.locator('[data-cy=btn-test-smtp]').click();
      await page.locator('[data-cy=smtp-test-result] .notice-success').waitFor();
      expect(await page.locator('[data-cy=smtp-test-result]').textContent()).toContain('editor@example.com');
      await sink.waitFor(before + 1);
      expect(sink.messages.at(-1)!.envelope.to).toEqual(['editor@example.com']);
      // htmx swapped the result in place: the typed host is still in the form, nothing was saved.
      expect(await page.locator('[name="smtp.0.port"]').inputValue()).toBe(String(sink.port));
      expect(t.deps.settings.get(t.deps.core.smtp)[0]!.port).toBe(9);
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'settings-smtp-test-desktop-light');
      expect(scriptErrors(p)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('works without JavaScript: tabs are links, the SMTP test posts the form and shows its result', async () => {
    const p = await open('/admin/settings', { javaScript: false });
    try {
      const { page } = p;
      await tab(page, 'SMTP').click();
      await page.waitForURL((u) => u.searchParams.get('tab') === 'smtp');
      await page.locator('[name="smtp.0.host"]').fill('127.0.0.1');
      await page.locator('[name="smtp.0.port"]').fill(String(sink.port));
      await page.locator('[name="smtp.0.auth_protocol"]').selectOption('none');
      await page.locator('[name="smtp.0.tls_type"]').selectOption('none');
      await page.getByLabel('Send a test e-mail to').fill('nojs@example.com');
      await page.locator('[data-cy=btn-test-smtp]').click();
      await page.locator('[data-cy=smtp-test-result] .notice-success').waitFor();
      expect(await page.locator('[name="smtp.0.port"]').inputValue()).toBe(String(sink.port));
    } finally {
      await p.close();
    }
  });

  for (const size of ['desktop', 'phone'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`passes axe at ${size} size in ${scheme} (screenshots of the General and SMTP tabs)`, async () => {
        const p = await open('/admin/settings', { size, scheme });
        try {
          await expectAccessible(p.page, `settings ${size} ${scheme}`);
          await screenshot(p.page, `settings-${size}-${scheme}`);
          await tab(p.page, 'SMTP').click();
          await p.page.evaluate(() => window.scrollTo(0, 0));
          await expectAccessible(p.page, `settings smtp ${size} ${scheme}`);
          await screenshot(p.page, `settings-smtp-${size}-${scheme}`);
          expect(p.cspViolations).toEqual([]);
        } finally {
          await p.close();
        }
      });
    }
  }
});
