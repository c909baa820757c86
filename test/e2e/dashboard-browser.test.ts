/**
 * The dashboard page in Chromium (issue 16; listmonk's `dashboard.cy.js`): after a user creates lists,
 * subscribers and a campaign and views are recorded, `/admin` shows listmonk's tiles with the numbers
 * its browser test reads through `data-cy`, and both charts; at phone and desktop size, light and dark:
 * no CSP violation, no console error, no serious or critical axe violation, a screenshot of each into
 * ./screenshots/ (look at them).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type Scheme, type ViewportName } from '../helpers/browser.js';

describe.skipIf(!browserAvailable)('dashboard page in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  let session: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const pub = (await t.api('POST', '/api/lists', { name: 'News', type: 'public', optin: 'single' })).body.data.id;
    const priv = (await t.api('POST', '/api/lists', { name: 'Staff', type: 'private', optin: 'double' })).body.data.id;
    await t.api('POST', '/api/subscribers', { email: 'ann@example.com', name: 'Ann', lists: [pub] });
    await t.api('POST', '/api/subscribers', { email: 'bob@example.com', name: 'Bob', lists: [priv], status: 'blocklisted' });
    await t.api('POST', '/api/subscribers', { email: 'cat@example.com', name: 'Cat', lists: [] });
    const campaign = (await t.api('POST', '/api/campaigns', { name: 'Hello', subject: 'Hello', lists: [pub], content_type: 'html', body: '<p>x</p>' })).body.data.id;
    await t.testDb.db.sql(`INSERT INTO campaign_views (campaign_id, created_at)
      SELECT $1, now() - (g % 30) * interval '1 day' - (g % 7) * interval '1 hour' FROM generate_series(1, 400) g`, [campaign]);
    const [user] = await t.testDb.db.sql<{ id: number }>("INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ('dash', NULL, 'user', 1, 'dash@example.com') RETURNING id");
    session = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  }, 120_000);
  afterAll(async () => t?.close());

  const variants: [ViewportName, Scheme][] = [['desktop', 'light'], ['desktop', 'dark'], ['phone', 'light'], ['phone', 'dark']];

  it("shows listmonk's tiles and the charts; accessible, CSP-clean, screenshotted at both sizes in both schemes", async () => {
    for (const [size, scheme] of variants) {
      // Any page of the site first, so the context can take the session cookie; only /admin is checked.
      const p = await openPage(browser(), `${base}/health`, { size, scheme });
      try {
        await p.context.addCookies([{ name: 'session', value: session, url: base }]);
        p.errors.length = 0;
        const failed: string[] = [];
        p.page.on('response', (r) => {
          if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) failed.push(`${r.status()} ${r.url()}`);
        });
        await p.page.goto(`${base}/admin`, { waitUntil: 'load' });
        const { page } = p;
        await page.locator('main [data-cy=lists]').waitFor();
        expect(await page.locator('main [data-cy=lists] .title').textContent()).toBe('2');
        expect(await page.locator('main [data-cy=campaigns] .title').textContent()).toBe('1');
        expect(await page.locator('main [data-cy=campaigns-draft]').textContent()).toBe('1');
        expect(await page.locator('main [data-cy=subscribers] .title').textContent()).toBe('3');
        expect(await page.locator('main [data-cy=messages] .title').textContent()).toBe('0');
        const subs = (await page.locator('main [data-cy=subscribers]').textContent()) ?? '';
        expect(subs).toMatch(/Blocklisted\s*1/u);
        expect(subs).toMatch(/Orphans\s*1/u);
        expect(await page.getByRole('img', { name: /Campaign views/u }).count()).toBe(1);
        expect(await page.locator('main [data-cy=chart-views] circle').count()).toBe(30);
        await expectAccessible(page, `dashboard ${size} ${scheme}`);
        await screenshot(page, `dashboard-${size}-${scheme}`, { fullPage: true });
        expect(p.cspViolations).toEqual([]);
        // The browser's own favicon request (there is none) is the only 404 it may log.
        expect(failed).toEqual([]);
        expect(p.errors.filter((e) => !e.includes('status of 404'))).toEqual([]);
      } finally {
        await p.close();
      }
    }
  });
});
