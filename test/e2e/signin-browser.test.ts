/**
 * The sign-in pages after the password in Chromium (issue 16 "Sign-in" item 4), as a user meets them:
 * the 2FA code step after a correct password (the login page itself is the lead's: the test starts from
 * the pending session it leaves), and forgot → e-mail (real SMTP test server) → reset → sign in with
 * the new password. Every page: no serious or critical axe violation, no CSP violation, screenshots at
 * desktop and phone size in light and dark (./screenshots/, look at them).
 */
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginService } from '../../src/modules/auth/login.js';
import { hashPassword } from '../../src/modules/users/service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, expectAccessible, openPage, screenshot, useBrowser, type OpenedPage, type Scheme, type ViewportName } from '../helpers/browser.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

if (!browserAvailable) console.warn('skipping the sign-in browser tests: no Chromium (apt-get install chromium, or set MAILROOM_TEST_CHROMIUM)');

const PASSWORD = 'the first password';
const VARIANTS: [ViewportName, Scheme][] = [['desktop', 'light'], ['desktop', 'dark'], ['phone', 'light'], ['phone', 'dark']];

describe.skipIf(!browserAvailable)('sign-in pages in a browser', () => {
  const browser = useBrowser();
  let t: TestApp;
  let sink: SmtpSink;
  let base: string;
  let login: LoginService;
  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    login = new LoginService(t.deps.db, t.deps.sessions);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  async function newUser(username: string, secret: string | null) {
    const [row] = await t.deps.db.sql<{ id: number }>(
      `INSERT INTO users (username, password_hash, type, user_role_id, email, name, twofa_type, twofa_key) VALUES ($1, $2, 'user', 1, $3, $1, $4, $5) RETURNING id`,
      [username, await hashPassword(PASSWORD), `${username}@example.com`, secret === null ? 'none' : 'totp', secret],
    );
    return { id: row!.id, username, email: `${username}@example.com` };
  }

  /** Checks the open page in every size and scheme: axe, CSP, console; screenshots. */
  async function checkEverywhere(p: OpenedPage, name: string): Promise<void> {
    for (const [size, scheme] of VARIANTS) {
      await p.page.setViewportSize({ width: size === 'phone' ? 390 : 1440, height: size === 'phone' ? 844 : 900 });
      await p.page.emulateMedia({ colorScheme: scheme });
      await expectAccessible(p.page, `${name} ${size} ${scheme}`);
      await screenshot(p.page, `signin-${name}-${size}-${scheme}`);
    }
    expect(p.cspViolations).toEqual([]);
    expect(p.errors.filter((e) => !e.includes('status of 4'))).toEqual([]);
  }

  it('the code step: a wrong code shows beside the field, the right one signs in and goes to next', async () => {
    const secret = new Secret({ size: 20 }).base32;
    const u = await newUser('browser-tfa', secret);
    const pending = await login.signIn(u.username, PASSWORD, { ip: '127.0.0.1', userAgent: 'test' });
    const p = await openPage(browser(), `${base}/admin/forgot`);
    try {
      await p.context.addCookies([{ name: 'session', value: pending.token, url: base, httpOnly: true, sameSite: 'Lax' }]);
      await p.page.goto(`${base}/admin/login/twofa?next=/admin/settings`);
      const code = p.page.getByLabel('One-time code');
      await checkEverywhere(p, 'twofa');
      const right = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
      await code.fill(String((Number(right) + 500_000) % 1_000_000).padStart(6, '0'));
      await p.page.getByRole('button', { name: 'Verify' }).click();
      await p.page.getByText('Is not the current code').waitFor();
      expect(await p.page.getByLabel('One-time code').getAttribute('aria-invalid')).toBe('true');
      await checkEverywhere(p, 'twofa-error');
      await p.page.getByLabel('One-time code').fill(right);
      await p.page.getByRole('button', { name: 'Verify' }).click();
      await p.page.waitForURL(`${base}/admin/settings`);
      const session = (await p.context.cookies(base)).find((c) => c.name === 'session')!;
      expect(session.value).not.toBe(pending.token);
      expect(session.httpOnly).toBe(true);
      expect((await t.app.inject({ method: 'GET', url: '/api/lists', headers: { cookie: `session=${session.value}` } })).statusCode).toBe(200);
    } finally {
      await p.close();
    }
  });

  it('forgot → the e-mail → reset → the new password signs in', async () => {
    const u = await newUser('browser-reset', null);
    const p = await openPage(browser(), `${base}/admin/forgot`);
    try {
      await checkEverywhere(p, 'forgot');
      await p.page.getByLabel('E-mail').fill(u.email);
      await p.page.getByRole('button', { name: 'Send the link' }).click();
      await p.page.locator('[data-cy="reset-sent"]').waitFor();
      await checkEverywhere(p, 'forgot-sent');
      await sink.waitFor(1);
      const link = (/href="([^"]+)"/u.exec(String(sink.messages[0]!.parsed.html))?.[1] ?? '').replace(/&amp;/gu, '&');
      const url = new URL(link);
      await p.page.goto(`${base}${url.pathname}${url.search}`);
      await checkEverywhere(p, 'reset');
      await p.page.getByLabel('New password').fill('a brand new password');
      await p.page.getByLabel('Password again').fill('a brand new password');
      await p.page.getByRole('button', { name: 'Reset the password' }).click();
      await p.page.waitForURL(`${base}/admin/login`);
      await expect(login.signIn(u.username, 'a brand new password', { ip: '127.0.0.2', userAgent: 'test' })).resolves.toMatchObject({ userId: u.id });
      // The link again: the error page says it was used.
      await p.page.goto(`${base}${url.pathname}${url.search}`);
      await p.page.getByText('this password reset link was used already').waitFor();
      await checkEverywhere(p, 'reset-used');
    } finally {
      await p.close();
    }
  });
});
