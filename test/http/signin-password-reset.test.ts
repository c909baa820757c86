/**
 * Forgot/reset password by e-mail (issue 16 "Sign-in" item 4), end to end with the real SMTP test
 * server: the `forgot-password` mail arrives with a `<root_url>/admin/reset?token=…` link; its token sets
 * a new password once, ends the user's sessions and every other outstanding link; an unknown, disabled
 * or OIDC-only address gets the same answer and no mail; used and expired links are refused with a
 * clear message. The pages (`/admin/forgot`, `/admin/reset`) call these service methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginService } from '../../src/modules/auth/login.js';
import { RESET_MAX_PER_WINDOW, RESET_MIN_MS, ResetLinkError } from '../../src/modules/auth/password-reset.js';
import { hashPassword } from '../../src/modules/users/service.js';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let sink: SmtpSink;
let t: TestApp;
let login: LoginService;
const OLD_PASSWORD = 'the old password';
const NEW_PASSWORD = 'a brand new password';

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
async function newUser(opts: { status?: string; passwordLogin?: boolean } = {}) {
  seq += 1;
  const username = `reset-${seq}`;
  const email = `Reset.${seq}@Example.com`;
  const [row] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email, name, status, password_login) VALUES ($1, $2, 'user', 1, $3, $1, $4, $5) RETURNING id`,
    [username, await hashPassword(OLD_PASSWORD), email, opts.status ?? 'enabled', opts.passwordLogin ?? true],
  );
  return { id: row!.id, username, email };
}

/** Asks for a link as the forgot-password form does; returns how long the answer took (ms). */
async function forgot(email: string): Promise<number> {
  const started = Date.now();
  await t.deps.passwordReset.request(email);
  return Date.now() - started;
}

/** The reset token of the newest mail to `address` (after waiting for `count` mails in all). */
async function tokenFromMail(count: number, address: string): Promise<string> {
  await sink.waitFor(count);
  const mail = sink.messages[count - 1]!;
  expect(mail.envelope.to.map((a) => a.toLowerCase())).toEqual([address.toLowerCase()]);
  const link = /href="([^"]+)"/u.exec(String(mail.parsed.html))?.[1] ?? '';
  const url = new URL(link.replace(/&amp;/gu, '&'));
  expect(`${url.origin}${url.pathname}`).toBe(`${ROOT_URL}/admin/reset`);
  expect(mail.parsed.text).toContain(link.replace(/&amp;/gu, '&'));
  return url.searchParams.get('token')!;
}

describe('forgot password', () => {
  it('mails a single-use link that sets the password, ends the sessions, and works once', async () => {
    const u = await newUser();
    const before = await t.deps.sessions.start(u.id, { ip: '127.0.0.1', userAgent: 'test' });
    const took = await forgot(`  ${u.email.toUpperCase()} `);
    expect(took).toBeGreaterThanOrEqual(RESET_MIN_MS - 5);
    const token = await tokenFromMail(1, u.email);
    const mail = sink.messages[0]!;
    expect(mail.parsed.subject).toBe('Password reset');
    expect(mail.parsed.from?.text).toContain('news@mailroom.test');
    expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    // Only the hash is stored.
    const [row] = await t.deps.db.sql<{ id: string; left_s: number }>(
      `SELECT id, EXTRACT(EPOCH FROM (expires_at - now()))::float8 AS left_s FROM password_resets WHERE user_id = $1`, [u.id]);
    expect(row!.id).toMatch(/^[0-9a-f]{64}$/u);
    expect(row!.id).not.toContain(token);
    expect(row!.left_s).toBeGreaterThan(3500);
    expect(row!.left_s).toBeLessThanOrEqual(3600);

    expect(await t.deps.passwordReset.check(token)).toBe(u.id);
    await expect(t.deps.passwordReset.reset(token, 'short', 'short')).rejects.toThrow(/^password: must be 8 to 2000/);
    await expect(t.deps.passwordReset.reset(token, NEW_PASSWORD, 'something else')).rejects.toThrow(/^password2: does not match/);
    expect(await t.deps.passwordReset.reset(token, NEW_PASSWORD, NEW_PASSWORD)).toBe(u.id);

    expect(await t.deps.sessions.find(before)).toBeNull();
    await expect(login.signIn(u.username, OLD_PASSWORD, { ip: '192.0.2.10', userAgent: 'test' })).rejects.toThrow(/wrong user name or password/);
    const signed = await login.signIn(u.username, NEW_PASSWORD, { ip: '192.0.2.10', userAgent: 'test' });
    expect((await t.app.inject({ method: 'GET', url: '/api/lists', headers: { cookie: `session=${signed.token}` } })).statusCode).toBe(200);

    const again = t.deps.passwordReset.reset(token, 'yet another password', 'yet another password');
    await expect(again).rejects.toBeInstanceOf(ResetLinkError);
    await expect(t.deps.passwordReset.reset(token, 'yet another password', 'yet another password')).rejects.toThrow('this password reset link was used already: ask for a new one');
    await expect(t.deps.passwordReset.check(token)).rejects.toMatchObject({ problem: 'used', statusCode: 400 });
  });

  it('answers an unknown, a disabled and a password-less address the same, and mails none of them', async () => {
    const disabled = await newUser({ status: 'disabled' });
    const oidcOnly = await newUser({ passwordLogin: false });
    const sent = sink.messages.length;
    for (const email of ['nobody@example.com', disabled.email, oidcOnly.email]) {
      const took = await forgot(email);
      expect(took, email).toBeGreaterThanOrEqual(RESET_MIN_MS - 5);
    }
    const [n] = await t.deps.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM password_resets WHERE user_id IN ($1, $2)', [disabled.id, oidcOnly.id]);
    expect(n!.n).toBe(0);
    // A real user's mail sent afterwards is the next one to arrive: none was queued before it.
    const u = await newUser();
    await forgot(u.email);
    await sink.waitFor(sent + 1);
    expect(sink.messages[sent]!.envelope.to.map((a) => a.toLowerCase())).toEqual([u.email.toLowerCase()]);
    await expect(t.deps.passwordReset.request('not an address')).rejects.toThrow(/^email: is not a valid e-mail address/);
  });

  it('refuses an expired link and an unknown one with their own messages; a new password voids the other links', async () => {
    const u = await newUser();
    const first = sink.messages.length;
    await forgot(u.email);
    await forgot(u.email);
    const a = await tokenFromMail(first + 1, u.email);
    const b = await tokenFromMail(first + 2, u.email);
    expect(a).not.toBe(b);
    await t.deps.db.sql(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE id = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, [a]);
    await expect(t.deps.passwordReset.reset(a, NEW_PASSWORD, NEW_PASSWORD)).rejects.toThrow('this password reset link has expired (links work for one hour): ask for a new one');
    await expect(t.deps.passwordReset.check('x'.repeat(43))).rejects.toThrow('this password reset link is not valid: ask for a new one');
    await expect(t.deps.passwordReset.check('../../etc')).rejects.toMatchObject({ problem: 'unknown' });
    await forgot(u.email);
    const c = await tokenFromMail(first + 3, u.email);
    await t.deps.passwordReset.reset(b, NEW_PASSWORD, NEW_PASSWORD);
    await expect(t.deps.passwordReset.check(c)).rejects.toMatchObject({ problem: 'used' });
  });

  it(`sends at most ${RESET_MAX_PER_WINDOW} links per user per hour, answering the same`, async () => {
    const u = await newUser();
    const first = sink.messages.length;
    for (let i = 0; i < RESET_MAX_PER_WINDOW + 2; i++) await forgot(u.email);
    await sink.waitFor(first + RESET_MAX_PER_WINDOW);
    const [n] = await t.deps.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM password_resets WHERE user_id = $1', [u.id]);
    expect(n!.n).toBe(RESET_MAX_PER_WINDOW);
  });

  it('refuses a link whose user was disabled since', async () => {
    const u = await newUser();
    const first = sink.messages.length;
    await forgot(u.email);
    const token = await tokenFromMail(first + 1, u.email);
    await t.deps.db.sql(`UPDATE users SET status = 'disabled' WHERE id = $1`, [u.id]);
    await expect(t.deps.passwordReset.reset(token, NEW_PASSWORD, NEW_PASSWORD)).rejects.toMatchObject({ problem: 'unusable' });
  });
});
