/**
 * The sign-in pages after the password (issue 16 "Sign-in" item 4), through real HTTP semantics
 * (`app.inject`) with the page kit: the 2FA code step turns a pending session into a full one under a
 * new cookie; the forgot-password form mails a link (real SMTP test server) whose reset page sets the
 * password once; dead links get the error page; failed forms re-render with the error beside the field.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginService } from '../../src/modules/auth/login.js';
import { hashPassword } from '../../src/modules/users/service.js';
import { NOTICE_COOKIE } from '../../src/ui/notice.js';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { expectCspSafe } from '../helpers/ui.js';

let sink: SmtpSink;
let t: TestApp;
let login: LoginService;
const PASSWORD = 'the first password';

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
  login = new LoginService(t.deps.db, t.deps.sessions);
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

let seq = 0;
async function newUser(secret: string | null = null) {
  seq += 1;
  const username = `page-${seq}`;
  const [row] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email, name, twofa_type, twofa_key) VALUES ($1, $2, 'user', 1, $3, $1, $4, $5) RETURNING id`,
    [username, await hashPassword(PASSWORD), `${username}@example.com`, secret === null ? 'none' : 'totp', secret],
  );
  return { id: row!.id, username, email: `${username}@example.com` };
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
const cookieOf = (res: { cookies: Array<{ name: string; value: string }> }, name: string) => res.cookies.find((c) => c.name === name)?.value;
const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate();

describe('/admin/login/twofa', () => {
  it('shows the code form to a pending sign-in, and sends anyone else to the login page', async () => {
    const secret = new Secret({ size: 20 }).base32;
    const u = await newUser(secret);
    const pending = await login.signIn(u.username, PASSWORD, { ip: '192.0.2.50', userAgent: 'test' });
    expect(pending.twofaPending).toBe(true);
    const page = await get('/admin/login/twofa?next=/admin/lists', { cookie: `session=${pending.token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/u);
    expect(page.body).toContain('data-cy="twofa-form"');
    expect(page.body).toContain('value="/admin/lists"');
    expectCspSafe(page.body);
    const none = await get('/admin/login/twofa');
    expect(none.statusCode).toBe(303);
    expect(none.headers.location).toBe('/admin/login');
    expect(cookieOf(none, NOTICE_COOKIE)).toBeDefined();
  });

  it('re-renders a wrong code with the error beside the field; the right one gives a new session cookie and 303 to next', async () => {
    const secret = new Secret({ size: 20 }).base32;
    const u = await newUser(secret);
    const pending = await login.signIn(u.username, PASSWORD, { ip: '192.0.2.51', userAgent: 'test' });
    const cookie = `session=${pending.token}`;
    const right = codeOf(secret);
    const wrong = await post('/admin/login/twofa', { code: String((Number(right) + 500_000) % 1_000_000).padStart(6, '0'), next: '/admin/lists' }, { cookie });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toMatch(/Is not the current code/u);
    expect(wrong.body).toContain('aria-invalid="true"');
    const ok = await post('/admin/login/twofa', { code: right, next: '/admin/lists' }, { cookie });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(ok.headers.location).toBe('/admin/lists');
    const fresh = cookieOf(ok, 'session');
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(pending.token);
    expect(String(ok.headers['set-cookie'])).toMatch(/HttpOnly/u);
    expect((await get('/api/lists', { cookie: `session=${fresh}` })).statusCode).toBe(200);
    // The same code for the next sign-in: used already.
    const other = await login.signIn(u.username, PASSWORD, { ip: '192.0.2.51', userAgent: 'test' });
    const reused = await post('/admin/login/twofa', { code: right, next: 'https://evil.example/' }, { cookie: `session=${other.token}` });
    expect(reused.statusCode).toBe(422);
    expect(reused.body).toMatch(/Was used already/u);
  });
});

describe('/admin/forgot and /admin/reset', () => {
  it('mails a link whose page sets the password once, then sends the user to sign in with a notice', async () => {
    const u = await newUser();
    const form = await get('/admin/forgot');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('data-cy="forgot-form"');
    const bad = await post('/admin/forgot', { email: 'not an address' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/Is not a valid e-mail address/u);

    const before = sink.messages.length;
    const unknown = await post('/admin/forgot', { email: 'nobody@example.com' });
    const known = await post('/admin/forgot', { email: u.email });
    for (const res of [unknown, known]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('data-cy="reset-sent"');
    }
    // The page says the same whatever the address (the CSP nonce aside).
    const strip = (html: string) => html.replace(/nonce-[^"' ]+|nonce="[^"]*"/gu, '');
    expect(strip(unknown.body)).toBe(strip(known.body));
    await sink.waitFor(before + 1);
    const mail = sink.messages[before]!;
    expect(mail.envelope.to).toEqual([u.email]);
    const link = new URL((/href="([^"]+)"/u.exec(String(mail.parsed.html))?.[1] ?? '').replace(/&amp;/gu, '&'));
    expect(link.origin).toBe(ROOT_URL);
    const resetUrl = `${link.pathname}${link.search}`;
    const token = link.searchParams.get('token')!;

    const page = await get(resetUrl);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-cy="reset-form"');
    expectCspSafe(page.body);
    const mismatch = await post('/admin/reset', { token, password: 'the new password', password2: 'something else' });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toMatch(/Does not match the password/u);
    const done = await post('/admin/reset', { token, password: 'the new password', password2: 'the new password' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/admin/login');
    expect(cookieOf(done, NOTICE_COOKIE)).toBeDefined();
    await expect(login.signIn(u.username, 'the new password', { ip: '192.0.2.52', userAgent: 'test' })).resolves.toMatchObject({ userId: u.id });

    const used = await get(resetUrl);
    expect(used.statusCode).toBe(400);
    expect(used.body).toContain('this password reset link was used already');
    const again = await post('/admin/reset', { token, password: 'a third password', password2: 'a third password' });
    expect(again.statusCode).toBe(400);
    expect((await get('/admin/reset?token=nonsense')).statusCode).toBe(400);
  });
});
