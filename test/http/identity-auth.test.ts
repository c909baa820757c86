/**
 * Who a request is (issue 16 "Identity"): API users by token (`token user:token` and Basic), stored
 * only as a SHA-256 hash; the legacy MAILROOM_ADMIN_USER as Super Admin; session cookies from the
 * database with idle and absolute expiry; route permissions answered with 403; the CSRF token on every
 * cookie request that changes state. Users and roles are written with SQL here so this file does not
 * depend on the users API it protects.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailureCounter } from '../../src/modules/auth/failures.js';
import { SignInHousekeeping } from '../../src/modules/auth/housekeeping.js';
import { hashToken } from '../../src/modules/users/service.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** An API user with a user role holding `permissions`; returns its token header forms. */
async function apiUser(permissions: string[], status = 'enabled') {
  seq += 1;
  const token = randomBytes(24).toString('hex');
  const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`role ${seq}`, permissions]);
  const username = `api-${seq}`;
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, status, email) VALUES ($1, $2, 'api', $3, $4, $5) RETURNING id`,
    [username, hashToken(token), role!.id, status, `${username}@api`],
  );
  return { id: user!.id, username, token, header: `token ${username}:${token}`, basic: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}` };
}

/** A login user with role `roleId`, signed in: returns its cookie and CSRF token. */
async function signedIn(roleId = 1) {
  seq += 1;
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id`,
    [`user-${seq}`, roleId, `user-${seq}@example.com`],
  );
  const token = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { userId: user!.id, cookie: `session=${token}`, csrf: found!.principal.session!.csrf, token };
}

const inject = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('API users', () => {
  it('authenticate with `token user:token` and with Basic user:token; the table holds only the hash', async () => {
    const u = await apiUser(['lists:get_all']);
    expect((await inject('GET', '/api/lists', { authorization: u.header })).statusCode).toBe(200);
    expect((await inject('GET', '/api/lists', { authorization: u.basic })).statusCode).toBe(200);
    const [row] = await t.deps.db.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [u.id]);
    expect(row!.password_hash).toMatch(/^sha256\$[0-9a-f]{64}$/u);
    expect(row!.password_hash).not.toContain(u.token);
  });

  it('refuse a wrong token, a token of another user, and a disabled user with 401', async () => {
    const a = await apiUser(['lists:get_all']);
    const b = await apiUser(['lists:get_all']);
    const off = await apiUser(['lists:get_all'], 'disabled');
    for (const header of [`token ${a.username}:${b.token}`, `token ${a.username}:${a.token}x`, off.header, `token ${a.username}:`]) {
      expect((await inject('GET', '/api/lists', { authorization: header, 'x-forwarded-for': '' })).statusCode).toBe(401);
    }
  });

  it('answer 403 naming the permission when the role lacks it, and work once it is granted', async () => {
    const u = await apiUser(['campaigns:get']);
    const denied = await inject('GET', '/api/settings', { authorization: u.header });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toMatch(/^permission denied: /u);
    await t.deps.db.sql(`UPDATE roles SET permissions = array_append(permissions, 'settings:get') WHERE id = (SELECT user_role_id FROM users WHERE id = $1)`, [u.id]);
    expect((await inject('GET', '/api/settings', { authorization: u.header })).statusCode).toBe(200);
  });

  it('loses its rights at the next request when disabled (nothing cached between requests)', async () => {
    const u = await apiUser(['lists:get_all']);
    expect((await inject('GET', '/api/lists', { authorization: u.header })).statusCode).toBe(200);
    await t.deps.db.sql(`UPDATE users SET status = 'disabled' WHERE id = $1`, [u.id]);
    expect((await inject('GET', '/api/lists', { authorization: u.header })).statusCode).toBe(401);
  });
});

describe('the legacy MAILROOM_ADMIN_USER', () => {
  it('is the Super Admin, as before', async () => {
    expect((await inject('GET', '/api/settings', { authorization: AUTH })).statusCode).toBe(200);
    const [row] = await t.deps.db.sql<{ user_role_id: number; legacy: boolean }>(`SELECT user_role_id, legacy FROM users WHERE username = 'admin'`);
    expect(row).toEqual({ user_role_id: 1, legacy: true });
  });
});

describe('session cookies', () => {
  it('sign a user in to the API; a state change needs the CSRF token (header or _csrf field)', async () => {
    const s = await signedIn();
    expect((await inject('GET', '/api/lists', { cookie: s.cookie })).statusCode).toBe(200);
    const body = { name: 'From the page', type: 'private', optin: 'single' };
    const noToken = await inject('POST', '/api/lists', { cookie: s.cookie, 'content-type': 'application/json' }, body);
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().message).toMatch(/CSRF/u);
    const wrong = await inject('POST', '/api/lists', { cookie: s.cookie, 'x-csrf-token': `${s.csrf}x` }, body);
    expect(wrong.statusCode).toBe(403);
    const other = await signedIn();
    expect((await inject('POST', '/api/lists', { cookie: s.cookie, 'x-csrf-token': other.csrf }, body)).statusCode).toBe(403);
    expect((await inject('POST', '/api/lists', { cookie: s.cookie, 'x-csrf-token': s.csrf }, body)).statusCode).toBe(200);
    const [{ n }] = (await t.deps.db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM lists WHERE name = 'From the page'`)) as [{ n: number }];
    expect(n).toBe(1);
  });

  it('are refused once ended, idle too long or past their absolute expiry', async () => {
    const ended = await signedIn();
    await t.deps.sessions.end(ended.token);
    expect((await inject('GET', '/api/lists', { cookie: ended.cookie })).statusCode).toBe(401);
    const idle = await signedIn();
    await t.deps.db.sql(`UPDATE sessions SET seen_at = now() - interval '13 hours' WHERE user_id = $1`, [idle.userId]);
    expect((await inject('GET', '/api/lists', { cookie: idle.cookie })).statusCode).toBe(401);
    const old = await signedIn();
    await t.deps.db.sql(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [old.userId]);
    expect((await inject('GET', '/api/lists', { cookie: old.cookie })).statusCode).toBe(401);
    for (const junk of ['session=', 'session=x', `session=${'a'.repeat(5000)}`, 'session=%00%ff', 'session="quoted"']) {
      expect((await inject('GET', '/api/lists', { cookie: junk })).statusCode).toBe(401);
    }
  });

  it('store only the SHA-256 of the cookie token', async () => {
    const s = await signedIn();
    const rows = await t.deps.db.sql<{ id: string }>('SELECT id FROM sessions WHERE user_id = $1', [s.userId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toBe(s.token);
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{64}$/u);
  });

  it('give way to an Authorization header sent with them', async () => {
    const s = await signedIn();
    const u = await apiUser(['campaigns:get']);
    expect((await inject('GET', '/api/settings', { cookie: s.cookie, authorization: u.header })).statusCode).toBe(403);
    // A header-authenticated request needs no CSRF token, even with a cookie beside it.
    expect((await inject('POST', '/api/lists', { cookie: s.cookie, authorization: AUTH }, { name: 'By header', type: 'private', optin: 'single' })).statusCode).toBe(200);
  });

  it('of a user with a limited role get 403 on what the role lacks', async () => {
    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', 'viewer', '{lists:get_all}') RETURNING id`);
    const s = await signedIn(role!.id);
    expect((await inject('GET', '/api/lists', { cookie: s.cookie })).statusCode).toBe(200);
    expect((await inject('GET', '/api/settings', { cookie: s.cookie })).statusCode).toBe(403);
  });

  it('end with POST /api/logout (CSRF token required), after which the cookie is refused', async () => {
    const s = await signedIn();
    expect((await inject('POST', '/api/logout', { cookie: s.cookie })).statusCode).toBe(403);
    const out = await inject('POST', '/api/logout', { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^session=;/u);
    expect((await inject('GET', '/api/lists', { cookie: s.cookie })).statusCode).toBe(401);
    expect((await t.deps.db.sql('SELECT 1 FROM sessions WHERE user_id = $1', [s.userId])).length).toBe(0);
  });

  it('are deleted by the hourly housekeeping once expired or idle, with old failure counts; live ones stay', async () => {
    const live = await signedIn();
    const idle = await signedIn();
    const old = await signedIn();
    await t.deps.db.sql(`UPDATE sessions SET seen_at = now() - interval '13 hours' WHERE user_id = $1`, [idle.userId]);
    await t.deps.db.sql(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [old.userId]);
    await t.deps.db.sql(`INSERT INTO login_failures (key, failures, window_start) VALUES ('ip:192.0.2.1', 3, now() - interval '3 days'), ('ip:192.0.2.2', 3, now())`);
    const warnings: unknown[] = [];
    await new SignInHousekeeping([t.deps.sessions, t.deps.passwordReset, new FailureCounter(t.deps.db)], { warn: (x: unknown) => void warnings.push(x) } as never).runOnce();
    expect((await t.deps.db.sql<{ key: string }>(`SELECT key FROM login_failures WHERE key LIKE 'ip:192.0.2.%'`)).map((r) => r.key)).toEqual(['ip:192.0.2.2']);
    expect(warnings).toEqual([]);
    const left = await t.deps.db.sql<{ user_id: number }>('SELECT user_id FROM sessions WHERE user_id = ANY($1)', [[live.userId, idle.userId, old.userId]]);
    expect(left.map((r) => r.user_id)).toEqual([live.userId]);
    expect((await inject('GET', '/api/lists', { cookie: live.cookie })).statusCode).toBe(200);
  });
});
