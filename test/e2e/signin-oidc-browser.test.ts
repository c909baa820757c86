/**
 * OIDC sign-in in Chromium (issue 16 "Done when": OIDC login): the browser starts at `/auth/oidc`
 * (what the login page's button does), signs in at a real `oidc-provider` on another port through the
 * provider's own login and consent pages, comes back to `<root_url>/auth/oidc` and lands signed in on
 * `next`. A second browser opening the first one's callback URL is refused with the error page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, useBrowser } from '../helpers/browser.js';

if (!browserAvailable) console.warn('skipping the OIDC browser test: no Chromium (apt-get install chromium, or set MAILROOM_TEST_CHROMIUM)');

describe.skipIf(!browserAvailable)('OIDC sign-in in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let base: string;
  let idp: Server;
  let issuer: string;

  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    idp = createServer();
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'mailroom', client_secret: 'browser-secret', redirect_uris: [`${base}/auth/oidc`], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['browser-test-key'] },
      findAccount: (_ctx, sub) => (sub === 'lin' ? { accountId: sub, claims: () => ({ sub, email: 'lin@example.com', email_verified: true, name: 'Lin' }) } : undefined),
    });
    idp.on('request', provider.callback());
    await t.deps.settings.update({
      'app.root_url': base,
      'security.oidc': { enabled: true, provider_url: issuer, provider_name: 'Test IdP', client_id: 'mailroom', client_secret: 'browser-secret', auto_create_users: false, default_user_role_id: null, default_list_role_id: null },
    });
    await t.deps.db.sql(`INSERT INTO users (username, password_hash, type, user_role_id, email, name, password_login) VALUES ('lin', NULL, 'user', 1, 'lin@example.com', 'Lin', false)`);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => idp?.close(() => resolve()));
  });

  it('signs in at the provider and lands signed in on next; the callback URL in another browser is refused', async () => {
    const p = await openPage(browser(), `${base}/auth/oidc?next=/admin/settings`);
    try {
      const { page } = p;
      expect(page.url().startsWith(`${issuer}/interaction/`)).toBe(true);
      let callback = '';
      page.on('request', (r) => {
        if (r.url().startsWith(`${base}/auth/oidc?`)) callback = r.url();
      });
      await page.locator('input[name="login"]').fill('lin');
      await page.locator('input[name="password"]').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${base}/admin/settings`);
      const session = (await p.context.cookies(base)).find((c) => c.name === 'session');
      expect(session?.httpOnly).toBe(true);
      expect(session?.sameSite).toBe('Lax');
      expect((await t.app.inject({ method: 'GET', url: '/api/lists', headers: { cookie: `session=${session!.value}` } })).statusCode).toBe(200);
      expect(callback).not.toBe('');

      const other = await openPage(browser(), callback);
      try {
        await other.page.getByText('invalid or expired sign-in request').waitFor();
        await expectAccessible(other.page, 'oidc refused');
        expect(other.cspViolations).toEqual([]);
        expect((await other.context.cookies(base)).find((c) => c.name === 'session')).toBeUndefined();
      } finally {
        await other.close();
      }
    } finally {
      await p.close();
    }
  });
});
