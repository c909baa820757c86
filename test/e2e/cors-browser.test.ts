/**
 * A signup form on another website, in a real browser (Debian's Chromium driven by playwright-core):
 * its `fetch` to `POST /api/public/subscription` works once the site is in `security.trusted_urls`, is
 * blocked by the browser (and subscribes nobody) while it is not, and even a trusted site cannot call the
 * authenticated API with credentials.
 *
 * Needs /usr/bin/chromium (or MAILROOM_TEST_CHROMIUM); .ci/run installs it. Outside CI, a machine without
 * it skips this file and says so; in CI its absence fails the run.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';

const CHROMIUM = process.env.MAILROOM_TEST_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`browser tests need Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`);
if (!available) console.warn(`skipping the browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set MAILROOM_TEST_CHROMIUM)`);

let t: TestApp;
let site: Server;
let browser: Browser;
let mailroom: string;
let siteOrigin: string;
let listUuid: string;

/** The other website's page: on load, it runs `script` and writes what happened into <output>. */
const page = (script: string) => `<!doctype html><html><body><output id="result"></output><script>
(async () => { const out = document.getElementById('result');
  try { out.textContent = await (async () => { ${script} })(); } catch (e) { out.textContent = 'blocked: ' + e.name; }
  out.dataset.done = '1'; })();
</script></body></html>`;

const scripts: Record<string, (mailroomUrl: string) => string> = {
  signup: (m) => `const email = new URLSearchParams(location.search).get('email');
    const res = await fetch('${m}/api/public/subscription', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, name: 'From the website', list_uuids: [new URLSearchParams(location.search).get('list')] }) });
    return res.status + ' ' + await res.text();`,
  admin: (m) => `const res = await fetch('${m}/api/subscribers', { headers: { authorization: '${AUTH}' } });
    return res.status + ' ' + (await res.text()).slice(0, 200);`,
};

beforeAll(async () => {
  if (!available) return;
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  mailroom = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  listUuid = (await t.api('POST', '/api/lists', { name: 'Website signups', type: 'public', optin: 'single' })).body.data.uuid;
  site = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    const script = scripts[name];
    if (!script) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(script(mailroom)));
  });
  await new Promise<void>((resolve) => site.listen(0, 'localhost', resolve));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});
afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await new Promise((r) => site?.close(r));
  await t?.close();
});

/** Opens the other site's page `name` in a fresh browser context and answers what it wrote. */
async function run(name: string, query = ''): Promise<string> {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    await tab.goto(`${siteOrigin}/${name}${query}`);
    await tab.waitForSelector('#result[data-done="1"]', { state: 'attached', timeout: 20_000 });
    return (await tab.textContent('#result')) ?? '';
  } finally {
    await context.close();
  }
}

const subscriberCount = async (email: string): Promise<number> =>
  (await t.api('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = '${email}'`)}`)).body.data.total;

describe.skipIf(!available)('a signup form on another website', () => {
  it('is blocked by the browser, and subscribes nobody, while the site is not trusted', async () => {
    expect((await t.api('PUT', '/api/settings', { 'security.trusted_urls': [] })).status).toBe(200);
    expect(await run('signup', `?email=untrusted@example.org&list=${listUuid}`)).toBe('blocked: TypeError');
    expect(await subscriberCount('untrusted@example.org')).toBe(0);
  });

  it('subscribes the reader once the site is in security.trusted_urls', async () => {
    expect((await t.api('PUT', '/api/settings', { 'security.trusted_urls': [`${siteOrigin}/signup`] })).status).toBe(200);
    expect(await run('signup', `?email=reader@example.org&list=${listUuid}`)).toBe('200 {"data":true}');
    expect(await subscriberCount('reader@example.org')).toBe(1);
    const lists = await t.api('GET', `/api/subscribers?query=${encodeURIComponent("subscribers.email = 'reader@example.org'")}`);
    expect(lists.body.data.results[0].lists.map((l: { uuid: string }) => l.uuid)).toEqual([listUuid]);
  });

  it('cannot reach the authenticated API, even from a trusted site and with credentials', async () => {
    expect((await t.api('PUT', '/api/settings', { 'security.trusted_urls': ['*'] })).status).toBe(200);
    expect(await run('admin')).toBe('blocked: TypeError');
  });
});
