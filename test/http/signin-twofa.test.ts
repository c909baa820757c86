/**
 * TOTP two-factor sign-in (issue 16 "Sign-in" item 4): enrolment over listmonk's API routes
 * (`GET /api/users/:id/twofa/totp`, `PUT` and `DELETE /api/users/:id/twofa`) for the user's own id only,
 * with the session cookie and its CSRF token; the sign-in step that turns a session waiting for its
 * code into a full one; single-use codes; failures counted like wrong passwords. Codes are computed
 * here with otpauth from the secret the API gave, as an authenticator app would.
 */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MAX_FAILURES, LoginService } from '../../src/modules/auth/login.js';
import { TwofaService } from '../../src/modules/auth/twofa.js';
import { hashPassword } from '../../src/modules/users/service.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let login: LoginService;
const PASSWORD = 'correct horse battery';
let passwordHash: string;

beforeAll(async () => {
  t = await buildTestApp();
  login = new LoginService(t.deps.db, t.deps.sessions);
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** A sign-in user with a password (role `roleId`). */
async function newUser(roleId = 1, type: 'user' | 'api' = 'user') {
  seq += 1;
  const username = `tfa-${seq}`;
  const [row] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email, name) VALUES ($1, $2, $3, $4, $5, $1) RETURNING id`,
    [username, passwordHash, type, roleId, `${username}@example.com`],
  );
  return { id: row!.id, username };
}

/** A full session of `userId`: its cookie header and CSRF token. */
async function session(userId: number) {
  const token = await t.deps.sessions.start(userId, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { token, cookie: `session=${token}`, csrf: found!.principal.session!.csrf };
}

const inject = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

/** The code an authenticator app shows for `secret` at `ms`. */
function codeAt(secret: string, ms = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });
}

/** Enrols `userId` through the API with its own session; returns the secret. */
async function enrol(userId: number, s: { cookie: string; csrf: string }): Promise<string> {
  const gen = await inject('GET', `/api/users/${userId}/twofa/totp`, { cookie: s.cookie });
  expect(gen.statusCode, gen.body).toBe(200);
  const { secret } = gen.json().data as { secret: string };
  const res = await inject('PUT', `/api/users/${userId}/twofa`, { cookie: s.cookie, 'x-csrf-token': s.csrf }, { type: 'totp', secret, code: codeAt(secret) });
  expect(res.statusCode, res.body).toBe(200);
  return secret;
}

/** A service on the same database whose clock is `offsetMs` ahead, so a sign-in uses a later step than the enrolment. */
function laterService(offsetMs: number): TwofaService {
  return new TwofaService(t.deps.db, t.deps.sessions, { issuer: () => 'Mailroom', now: () => Date.now() + offsetMs });
}

describe('enrolment', () => {
  it('gives the own user a base32 secret and a QR code PNG; another user gets 403, the Super Admin may generate', async () => {
    const u = await newUser();
    const s = await session(u.id);
    const res = await inject('GET', `/api/users/${u.id}/twofa/totp`, { cookie: s.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { secret, qr } = res.json().data as { secret: string; qr: string };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/u);
    expect(Buffer.from(qr, 'base64').subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', 'tfa viewer', '{lists:get_all}') RETURNING id`);
    const other = await newUser(role!.id);
    const os = await session(other.id);
    expect((await inject('GET', `/api/users/${u.id}/twofa/totp`, { cookie: os.cookie })).statusCode).toBe(403);
    const put = await inject('PUT', `/api/users/${u.id}/twofa`, { cookie: os.cookie, 'x-csrf-token': os.csrf }, { secret, code: codeAt(secret) });
    expect(put.statusCode).toBe(403);
    expect(put.json().message).toMatch(/own user/);
    // The Super Admin (here the legacy API admin) may generate for anyone, but not turn it on for them.
    expect((await inject('GET', `/api/users/${other.id}/twofa/totp`, { authorization: AUTH })).statusCode).toBe(200);
    expect((await inject('PUT', `/api/users/${other.id}/twofa`, { authorization: AUTH }, { secret, code: codeAt(secret) })).statusCode).toBe(403);
  });

  it('refuses a malformed secret, a wrong code and a missing CSRF token, naming the field', async () => {
    const u = await newUser();
    const s = await session(u.id);
    const secret = new Secret({ size: 20 }).base32;
    const h = { cookie: s.cookie, 'x-csrf-token': s.csrf };
    const bad = await inject('PUT', `/api/users/${u.id}/twofa`, h, { secret: 'not base32!', code: '123456' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^secret: /);
    const wrongCode = String((Number(codeAt(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    const wrong = await inject('PUT', `/api/users/${u.id}/twofa`, h, { secret, code: wrongCode });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toMatch(/^code: is not the current code/);
    const short = await inject('PUT', `/api/users/${u.id}/twofa`, h, { secret, code: '12345' });
    expect(short.json().message).toMatch(/^code: must be the 6-digit code/);
    const noCsrf = await inject('PUT', `/api/users/${u.id}/twofa`, { cookie: s.cookie }, { secret, code: codeAt(secret) });
    expect(noCsrf.statusCode).toBe(403);
    const [row] = await t.deps.db.sql<{ twofa_type: string }>('SELECT twofa_type FROM users WHERE id = $1', [u.id]);
    expect(row!.twofa_type).toBe('none');
  });

  it('turns TOTP on with a current code (form fields too), ends the other sessions, and refuses a second enrolment', async () => {
    const u = await newUser();
    const s = await session(u.id);
    const other = await session(u.id);
    const secret = (await inject('GET', `/api/users/${u.id}/twofa/totp`, { cookie: s.cookie })).json().data.secret as string;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/users/${u.id}/twofa`,
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ type: 'totp', secret, code: codeAt(secret), _csrf: s.csrf }).toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: true });
    const [row] = await t.deps.db.sql<{ twofa_type: string; twofa_key: string }>('SELECT twofa_type, twofa_key FROM users WHERE id = $1', [u.id]);
    expect(row).toEqual({ twofa_type: 'totp', twofa_key: secret });
    expect((await inject('GET', '/api/lists', { cookie: s.cookie })).statusCode).toBe(200);
    expect((await inject('GET', '/api/lists', { cookie: other.cookie })).statusCode).toBe(401);
    const again = await inject('GET', `/api/users/${u.id}/twofa/totp`, { cookie: s.cookie });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/already on/);
  });

  it('is only for users who sign in with a password: an API user gets 400', async () => {
    const api = await newUser(1, 'api');
    const res = await inject('GET', `/api/users/${api.id}/twofa/totp`, { authorization: AUTH });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/sign in with a password/);
  });
});

describe('signing in with a code', () => {
  it('a correct password leaves a session that reaches nothing until the code; the code gives a new, full session', async () => {
    const u = await newUser();
    const secret = await enrol(u.id, await session(u.id));
    const signed = await login.signIn(u.username, PASSWORD, { ip: '198.51.100.1', userAgent: 'test' });
    expect(signed.twofaPending).toBe(true);
    expect((await inject('GET', '/api/lists', { cookie: `session=${signed.token}` })).statusCode).toBe(401);

    const later = laterService(60_000);
    const code = codeAt(secret, Date.now() + 60_000);
    const next = await later.completeSignIn(signed.token, code, { ip: '198.51.100.1', userAgent: 'test' });
    expect(next).not.toBe(signed.token);
    expect((await inject('GET', '/api/lists', { cookie: `session=${next}` })).statusCode).toBe(200);
    expect((await inject('GET', '/api/lists', { cookie: `session=${signed.token}` })).statusCode).toBe(401);
    await expect(later.completeSignIn(next, code, { ip: '198.51.100.1', userAgent: 'test' })).rejects.toThrow(/sign in again/);
  });

  it('takes each code once: the same code, or an earlier step inside the window, is refused', async () => {
    const u = await newUser();
    const secret = await enrol(u.id, await session(u.id));
    const origin = { ip: '198.51.100.2', userAgent: 'test' };
    const later = laterService(90_000);
    const first = await login.signIn(u.username, PASSWORD, origin);
    await later.completeSignIn(first.token, codeAt(secret, Date.now() + 90_000), origin);

    const second = await login.signIn(u.username, PASSWORD, origin);
    await expect(later.completeSignIn(second.token, codeAt(secret, Date.now() + 90_000), origin)).rejects.toThrow(/^code: was used already/);
    await expect(later.completeSignIn(second.token, codeAt(secret, Date.now() + 60_000), origin)).rejects.toThrow(/^code: was used already/);
    // The code the enrolment used (step of now) is older still; and it is outside the window of now + 90 s.
    await expect(later.completeSignIn(second.token, codeAt(secret), origin)).rejects.toThrow(/^code: /);
    // The next step is fine.
    const ok = await laterService(120_000).completeSignIn(second.token, codeAt(secret, Date.now() + 120_000), origin);
    expect((await inject('GET', '/api/lists', { cookie: `session=${ok}` })).statusCode).toBe(200);
  });

  it('counts wrong codes like wrong passwords, per user: past the limit even the right code gets 429', async () => {
    const u = await newUser();
    const secret = await enrol(u.id, await session(u.id));
    const signed = await login.signIn(u.username, PASSWORD, { ip: '198.51.100.3', userAgent: 'test' });
    const later = laterService(60_000);
    const right = codeAt(secret, Date.now() + 60_000);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
      // A different address each time: the per-user count still adds up.
      await expect(later.completeSignIn(signed.token, wrong, { ip: `203.0.113.${i + 1}`, userAgent: 'test' })).rejects.toThrow(/^code: is not the current code/);
    }
    await expect(later.completeSignIn(signed.token, right, { ip: '203.0.113.200', userAgent: 'test' })).rejects.toMatchObject({ statusCode: 429 });
  });

  it('gives the code five minutes after the password: an older pending session must sign in again', async () => {
    const u = await newUser();
    const secret = await enrol(u.id, await session(u.id));
    const signed = await login.signIn(u.username, PASSWORD, { ip: '198.51.100.4', userAgent: 'test' });
    await t.deps.db.sql(`UPDATE sessions SET created_at = now() - interval '6 minutes' WHERE user_id = $1 AND twofa_pending`, [u.id]);
    await expect(laterService(60_000).completeSignIn(signed.token, codeAt(secret, Date.now() + 60_000), { ip: '198.51.100.4', userAgent: 'test' })).rejects.toMatchObject({ statusCode: 401 });
  });
});

describe('turning it off', () => {
  it('needs the password: 400 without one, 403 for a wrong one; then off, and the other sessions end', async () => {
    const u = await newUser();
    const s = await session(u.id);
    await enrol(u.id, s);
    const other = await session(u.id);
    const h = { cookie: s.cookie, 'x-csrf-token': s.csrf };
    const missing = await inject('DELETE', `/api/users/${u.id}/twofa`, h, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/password/);
    const wrong = await inject('DELETE', `/api/users/${u.id}/twofa`, h, { password: 'wrong password' });
    expect(wrong.statusCode).toBe(403);
    expect((await inject('GET', '/api/lists', { cookie: other.cookie })).statusCode).toBe(200);
    const ok = await inject('DELETE', `/api/users/${u.id}/twofa`, h, { password: PASSWORD });
    expect(ok.statusCode, ok.body).toBe(200);
    const [row] = await t.deps.db.sql<{ twofa_type: string; twofa_key: string | null }>('SELECT twofa_type, twofa_key FROM users WHERE id = $1', [u.id]);
    expect(row).toEqual({ twofa_type: 'none', twofa_key: null });
    expect((await inject('GET', '/api/lists', { cookie: s.cookie })).statusCode).toBe(200);
    expect((await inject('GET', '/api/lists', { cookie: other.cookie })).statusCode).toBe(401);
    const signed = await login.signIn(u.username, PASSWORD, { ip: '198.51.100.5', userAgent: 'test' });
    expect(signed.twofaPending).toBe(false);
    const twice = await inject('DELETE', `/api/users/${u.id}/twofa`, h, { password: PASSWORD });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().message).toMatch(/not on/);
  });
});
