/**
 * Every admin page in Chromium (issue 16 "Done when"), read from the real route table so pages that land
 * later are covered without edits:
 *
 * 1. As a signed-in Super Admin, every `GET /admin…` page (sign-in pages without a session, as they are
 *    met) at desktop-light and phone-dark: it answers below 400, with no CSP violation, no console error
 *    and no serious or critical axe violation. With `SCREENSHOTS=1` (or under `npm run screenshots`)
 *    every page is also opened at desktop-dark and phone-light and each variant is saved into
 *    ./screenshots/ as `page-<url>-<size>-<scheme>.png`.
 * 2. A limited user (a role with only `subscribers:get` and `lists:get_all`) cannot see or reach what its
 *    role forbids: each admin page renders when the role holds the page's permission and is otherwise the
 *    HTML 403 page; no link on a page it may open (navigation, profile menu, tiles, buttons) leads to a
 *    page it may not open, and the navigation hides the groups its role lacks; every API
 *    route it lacks answers 403 to its session cookie.
 *
 * One app and one Chromium for the file, one browser context per variant, pages in sequence. Failures
 * are collected per variant and reported together, each naming its page.
 */
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allows, type Principal } from '../../src/http/access.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { adminGetPages, adminPageUrl, createLoginUser, pageSlug, prepareAdminPage, routeForPath, seedAdminData, type SeededIds } from '../helpers/admin-pages.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { axeViolations, browserAvailable, screenshot, useBrowser, VIEWPORTS, type Scheme, type ViewportName } from '../helpers/browser.js';
import { concreteUrl } from '../helpers/routes.js';

if (!browserAvailable) console.warn('skipping the admin pages browser sweep: no Chromium');

/** Whether to take all four variants and save screenshots (`npm run screenshots` or SCREENSHOTS=1). */
const SHOOT = process.env.SCREENSHOTS === '1' || process.env.npm_lifecycle_event === 'screenshots';
const VARIANTS: [ViewportName, Scheme][] = SHOOT
  ? [['desktop', 'light'], ['desktop', 'dark'], ['phone', 'light'], ['phone', 'dark']]
  : [['desktop', 'light'], ['phone', 'dark']];

/** One browser context with its page and what the page reported since the last {@link visit}. */
interface Tab {
  context: BrowserContext;
  page: Page;
  csp: string[];
  errors: string[];
}

/** A context at `size`/`scheme`, with the session cookie `session` when given. */
async function newTab(browser: import('playwright-core').Browser, base: string, size: ViewportName, scheme: Scheme, session?: string): Promise<Tab> {
  const context = await browser.newContext({ viewport: VIEWPORTS[size], colorScheme: scheme, reducedMotion: 'reduce' });
  if (session !== undefined) await context.addCookies([{ name: 'session', value: session, url: base }]);
  const page = await context.newPage();
  const tab: Tab = { context, page, csp: [], errors: [] };
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/Content.Security.Policy/iu.test(m.text())) tab.csp.push(m.text());
    else tab.errors.push(m.text());
  });
  page.on('pageerror', (e) => tab.errors.push(String(e)));
  return tab;
}

/** Opens `url` in `tab` (clearing what it reported before); returns the final answer's status and type. */
async function visit(tab: Tab, url: string): Promise<{ status: number; type: string }> {
  tab.csp.length = 0;
  tab.errors.length = 0;
  const res = await tab.page.goto(url, { waitUntil: 'load' });
  return { status: res?.status() ?? 0, type: res?.headers()['content-type'] ?? '' };
}

describe.skipIf(!browserAvailable)('every admin page in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  let ids: SeededIds;
  let pages: RouteEntry[];

  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    ids = await seedAdminData(t);
    pages = adminGetPages(t.app.routeTable);
  });
  afterAll(async () => t?.close());

  const origin = { ip: '127.0.0.1', userAgent: 'admin pages sweep' };

  it('the route table has admin pages to sweep', () => {
    expect(pages.map((r) => r.url)).toContain('/admin/login');
    console.info(`admin pages swept: ${pages.map((r) => r.url).join(' ')}`);
  });

  for (const [size, scheme] of VARIANTS) {
    it(`as Super Admin at ${size} ${scheme}: every page answers, CSP-clean, no console error, accessible`, async () => {
      const session = await t.deps.sessions.start(ids.loginUser, origin);
      const signedIn = await newTab(browser(), base, size, scheme, session);
      const anonymous = await newTab(browser(), base, size, scheme);
      const problems: string[] = [];
      try {
        for (const route of pages) {
          const setup = await prepareAdminPage(t, route, ids);
          const url = adminPageUrl(route, ids, setup);
          const tab = route.public ? anonymous : signedIn;
          if (setup.session !== undefined) await tab.context.addCookies([{ name: 'session', value: setup.session, url: base }]);
          const { status } = await visit(tab, base + url);
          const at = `${url} (${size} ${scheme})`;
          const expected = setup.status ?? null;
          if (expected !== null ? status !== expected : status >= 400 || status === 0) problems.push(`${at}: answered ${status}`);
          if (tab.csp.length > 0) problems.push(`${at}: CSP violation: ${tab.csp.join(' | ')}`);
          // Chromium logs any 4xx document as a failed resource; an expected one is not an error.
          const errors = tab.errors.filter((e) => expected === null || !e.includes(`status of ${expected}`));
          if (errors.length > 0) problems.push(`${at}: console error: ${errors.join(' | ')}`);
          for (const v of await axeViolations(tab.page)) problems.push(`${at}: axe ${v.id} (${v.impact}): ${v.help} at ${v.targets.slice(0, 3).join(', ')}`);
          if (SHOOT) await screenshot(tab.page, `page-${pageSlug(url.split('?')[0]!)}-${size}-${scheme}`);
          if (setup.session !== undefined) {
            await tab.context.clearCookies();
            if (tab === signedIn) await tab.context.addCookies([{ name: 'session', value: session, url: base }]);
          }
        }
      } finally {
        await signedIn.context.close();
        await anonymous.context.close();
      }
      expect(problems).toEqual([]);
    });
  }

  describe('a limited user cannot see or reach what its role forbids', () => {
    let session: string;
    let principal: Principal;

    beforeAll(async () => {
      const id = await createLoginUser(t, 'lee', 'Subscriber readers', ['subscribers:get', 'lists:get_all']);
      session = await t.deps.sessions.start(id, origin);
      principal = (await t.deps.sessions.find(session))!.principal;
    });

    it('pages: each renders when the role holds its permission, else the HTML 403 page; no link to a page it may not open', async () => {
      const tab = await newTab(browser(), base, 'desktop', 'light', session);
      const problems: string[] = [];
      const links = new Set<string>();
      const linkedFrom = new Map<string, string>();
      try {
        for (const route of pages.filter((r) => !r.public)) {
          const setup = await prepareAdminPage(t, route, ids);
          const url = adminPageUrl(route, ids, setup);
          const { status, type } = await visit(tab, base + url);
          const held = allows(principal, route.permission ?? 'authenticated');
          if (held) {
            if (setup.status !== undefined ? status !== setup.status : status >= 400) problems.push(`${url}: permission ${JSON.stringify(route.permission)} is held but the page answered ${status}`);
          } else {
            if (status !== 403) problems.push(`${url}: needs ${JSON.stringify(route.permission)}, which the role lacks, but answered ${status}`);
            else if (!type.startsWith('text/html')) problems.push(`${url}: 403 is not the HTML error page (${type})`);
            else if (!(await tab.page.locator('.error-page').isVisible())) problems.push(`${url}: 403 without the error page`);
          }
          if (status < 400 && tab.csp.length > 0) problems.push(`${url}: CSP violation: ${tab.csp.join(' | ')}`);
          // The shell's navigation and profile menu: what the role shows.
          const nav = await tab.page.locator('#sidebar a[href], .profile-menu a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
          for (const href of nav) links.add(href);
          // Every link of the page (navigation, tiles, buttons) must lead to a page the user may open.
          if (status < 400) for (const href of await tab.page.locator('a[href^="/admin"]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))) linkedFrom.set(href, url);
        }
      } finally {
        await tab.context.close();
      }
      for (const href of links) if (!linkedFrom.has(href)) linkedFrom.set(href, 'the navigation');
      expect(links.size, 'no page showed the navigation').toBeGreaterThan(0);
      // What the role shows and hides, whether or not those pages are in this build yet.
      expect([...links]).toEqual(expect.arrayContaining(['/admin', '/admin/subscribers', '/admin/lists']));
      for (const hidden of ['/admin/settings', '/admin/users', '/admin/campaigns', '/admin/subscribers/import', '/admin/settings/maintenance']) {
        expect([...links], `the navigation shows ${hidden}`).not.toContain(hidden);
      }
      for (const [href, from] of linkedFrom) {
        const path = new URL(href, base).pathname;
        const route = routeForPath(t.app.routeTable, path);
        // A link to a page not in this build yet (the audience and campaign pages come with issues 17–18)
        // cannot be checked against a permission; the HTTP sweep of each page covers it when it lands.
        if (route === undefined) continue;
        if (!route.public && !allows(principal, route.permission ?? 'authenticated')) {
          problems.push(`${from} links ${href}, which needs ${JSON.stringify(route.permission)}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('API: every route whose permission the role lacks answers 403 to its session; held ones answer', async () => {
      const csrf = principal.session!.csrf;
      const headers = { cookie: `session=${session}`, 'x-csrf-token': csrf };
      const problems: string[] = [];
      const api = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && !r.public && r.method !== 'OPTIONS');
      for (const route of api) {
        if (route.permission === null || allows(principal, route.permission)) continue;
        // Ids of nothing, so no request could change a seeded row even if it got through.
        const url = concreteUrl(route).replace(/\/1(?=\/|$)/gu, '/987654');
        const res = await t.app.inject({ method: route.method as 'GET', url, headers: { ...headers, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) }, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: '{}' }) });
        if (res.statusCode !== 403 || !res.body.includes('permission denied')) problems.push(`${route.method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
      expect(problems).toEqual([]);
      expect(api.length).toBeGreaterThan(50);
      for (const url of ['/api/subscribers', '/api/lists']) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
      }
    });
  });
});
