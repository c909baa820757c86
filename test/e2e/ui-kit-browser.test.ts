/**
 * The UI kit in Chromium (issue 16): the demo page (every component, in the shell) and the sign-in
 * views, served by the real app, at phone and desktop size, light and dark: no CSP violation, no
 * console error, no serious or critical axe violation, and a screenshot of each into ./screenshots/
 * (look at them). Also the kit's behaviour as a user meets it: skip link, menu toggle, select all,
 * confirm dialog, notice after a form post, errors beside fields, and the phone menu without JavaScript.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type Scheme, type ViewportName } from '../helpers/browser.js';
import { demoRoutes } from '../helpers/ui-demo.js';

if (!browserAvailable) console.warn('skipping the UI kit browser tests: no Chromium (apt-get install chromium, or set MAILROOM_TEST_CHROMIUM)');

describe.skipIf(!browserAvailable)('UI kit in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ routes: demoRoutes });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t?.close());

  const pages = [
    ['demo', '/admin/kit-demo'],
    ['login', '/admin/kit-login?oidc=1&error=1'],
    ['setup', '/admin/kit-setup'],
    ['not-found', '/admin/nowhere'],
  ] as const;
  const variants: [ViewportName, Scheme][] = [['desktop', 'light'], ['desktop', 'dark'], ['phone', 'light'], ['phone', 'dark']];

  for (const [name, url] of pages) {
    it(`${name}: accessible, CSP-clean, screenshotted at both sizes in both schemes`, async () => {
      for (const [size, scheme] of variants) {
        const p = await openPage(browser(), base + url, { size, scheme });
        try {
          await p.page.locator('html.js').waitFor();
          await expectAccessible(p.page, `${name} ${size} ${scheme}`);
          await screenshot(p.page, `kit-${name}-${size}-${scheme}`);
          expect(p.cspViolations).toEqual([]);
          expect(p.errors.filter((e) => !e.includes('status of 4'))).toEqual([]);
        } finally {
          await p.close();
        }
      }
    });
  }

  it('skip link, menu toggle on a phone, select all, confirm, notice and field errors work', async () => {
    const phone = await openPage(browser(), `${base}/admin/kit-demo`, { size: 'phone' });
    try {
      const { page } = phone;
      await page.keyboard.press('Tab');
      const skip = page.getByRole('link', { name: 'Skip to content' });
      expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('true');
      expect(await nav.isVisible()).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'kit-demo-phone-menu-open');
    } finally {
      await phone.close();
    }

    const plain = await openPage(browser(), `${base}/admin/kit-demo`, { size: 'phone', javaScript: false });
    try {
      const nav = plain.page.getByRole('navigation', { name: 'Main' });
      expect(await nav.isVisible()).toBe(false);
      await plain.page.getByRole('link', { name: 'Menu' }).click();
      await nav.waitFor();
    } finally {
      await plain.close();
    }

    const { page, close, cspViolations } = await openPage(browser(), `${base}/admin/kit-demo`);
    try {
      await page.locator('[data-cy=btn-echo]').click();
      await page.locator('#echoed').waitFor();
      expect(await page.locator('#echoed').textContent()).toBe('htmx sent X-CSRF-Token: csrf-token-123');

      await page.getByLabel('Select every row on this page').check();
      expect(await page.locator('input[data-select-row]:checked').count()).toBe(3);
      await page.locator('[data-cy=select-all-lists]').check();
      await page.getByLabel('Select Product updates').uncheck();
      expect(await page.locator('[data-cy=select-all-lists]').isChecked()).toBe(false);

      await page.locator('[data-cy=btn-delete]').click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('Delete this list?');
      expect(await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value)).toBe('ok');
      await screenshot(page, 'kit-demo-desktop-light-confirm', { fullPage: false });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });

      await page.getByLabel('List name').fill('');
      await page.locator('form[data-guard]').evaluate((f) => ((f as HTMLFormElement).noValidate = true));
      await page.locator('[data-cy=btn-save]').click();
      await page.locator('#f-name-error').waitFor();
      expect(await page.getByLabel('List name').getAttribute('aria-invalid')).toBe('true');
      await screenshot(page, 'kit-demo-desktop-light-errors');

      await page.getByLabel('List name').fill('Monthly <news>');
      await page.locator('form[data-guard]').evaluate((f) => ((f as HTMLFormElement).noValidate = true));
      await page.locator('[data-cy=btn-save]').click();
      const notice = page.getByRole('status');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('“Monthly <news>” was saved.');
      await page.reload();
      expect(await page.getByRole('status').count()).toBe(0);
      expect(cspViolations).toEqual([]);
    } finally {
      await close();
    }
  });
});
