/**
 * The users and profile API (issue 16 "Identity" items 1–2; listmonk reference §3.3): listmonk's JSON
 * shape without the hash, validation with 400s naming the field and 409s for duplicates, API tokens
 * shown once and stored only as a hash, the legacy MAILROOM_ADMIN_USER kept out of reach, the last
 * enabled Super Admin protected, and sessions wiped when a password changes or a user is disabled.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';
import { createApiUser } from '../helpers/principals.js';

let t: TestApp;
/** A user role without the Super Admin's id, so most tests leave the last-Super-Admin rule alone. */
let editorRole: number;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  editorRole = (await t.api('POST', '/api/roles/users', { name: 'Editor', permissions: ['lists:get_all', 'subscribers:get'] })).body.data.id;
});
afterAll(async () => t?.close());

const sql = <R = Record<string, unknown>>(text: string, params: unknown[] = []) => t.testDb.db.sql<R>(text, params);
let seq = 0;
const fresh = (prefix = 'user') => `${prefix}${++seq}`;

/** Creates a login user through the API and returns its body. */
async function newUser(fields: Record<string, unknown> = {}) {
  const username = fields.username ?? fresh();
  const res = await t.api('POST', '/api/users', {
    username, email: `${String(username)}@example.com`, password: 'correct-horse-1', password_login: true, user_role_id: editorRole, ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Inserts a session row for `userId` directly, as the sign-in would; returns its id. */
async function addSession(userId: number): Promise<string> {
  const id = createHash('sha256').update(`${userId}-${++seq}`).digest('hex');
  await sql(`INSERT INTO sessions (id, user_id, csrf, expires_at) VALUES ($1, $2, 'csrf', now() + interval '1 day')`, [id, userId]);
  return id;
}
const sessionCount = async (userId: number) => (await sql<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [userId]))[0]!.n;

const USER_KEYS = ['id', 'created_at', 'updated_at', 'username', 'password_login', 'email', 'name', 'type', 'status', 'avatar', 'twofa_type',
  'loggedin_at', 'user_role_id', 'list_role_id', 'user_role', 'list_role'].sort();

describe('shapes', () => {
  it('a created user answers listmonk\'s fields, never a password or its hash', async () => {
    const u = await newUser({ username: 'Shape.User-1@x', email: 'ada@example.com', name: '  Ada  ' });
    expect(Object.keys(u).sort()).toEqual(USER_KEYS);
    expect(u).toMatchObject({
      username: 'Shape.User-1@x', email: 'ada@example.com', name: 'Ada', type: 'user', status: 'enabled',
      password_login: true, avatar: null, twofa_type: 'none', loggedin_at: null, user_role_id: editorRole, list_role_id: null, list_role: null,
      user_role: { id: editorRole, name: 'Editor', permissions: ['lists:get_all', 'subscribers:get'] },
    });
    expect(JSON.stringify(u)).not.toMatch(/scrypt|password"/u);
    const [row] = await sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [u.id]);
    expect(row!.password_hash).toMatch(/^scrypt\$/u);
    const got = await t.api('GET', `/api/users/${u.id}`);
    expect(got.body.data).toEqual(u);
    const all = await t.api('GET', '/api/users');
    expect(all.status).toBe(200);
    expect(all.body.data.find((x: { id: number }) => x.id === u.id)).toEqual(u);
    expect(JSON.stringify(all.body)).not.toMatch(/scrypt|sha256\$/u);
  });

  it('the name defaults to the username; a list role comes with its lists', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Role list' })).body.data;
    const lr = (await t.api('POST', '/api/roles/lists', { name: 'Readers', lists: [{ id: list.id, permissions: ['list:get'] }] })).body.data;
    const u = await newUser({ name: '   ', list_role_id: lr.id });
    expect(u.name).toBe(u.username);
    expect(u.list_role_id).toBe(lr.id);
    expect(u.list_role).toEqual({ id: lr.id, name: 'Readers', lists: [{ id: list.id, name: 'Role list', permissions: ['list:get'] }] });
  });

  it('404 for an unknown user', async () => {
    expect((await t.api('GET', '/api/users/999999')).status).toBe(404);
    expect((await t.api('PUT', '/api/users/999999', { name: 'x' })).status).toBe(404);
    expect((await t.api('DELETE', '/api/users/999999')).status).toBe(404);
  });
});

describe('validation', () => {
  const base = () => ({ username: fresh('valid'), email: `${fresh('v')}@example.com`, password: 'long-enough-1', password_login: true, user_role_id: editorRole });
  const cases: Array<[string, Record<string, unknown> | string, string]> = [
    ['too short a username', { username: 'ab' }, 'username'],
    ['a username of 2001 characters', { username: 'a'.repeat(2001) }, 'username'],
    ['a huge username', { username: 'a'.repeat(200_000) }, 'username'],
    ['a username with a space', { username: 'a b c' }, 'username'],
    ['a username with markup', { username: '<script>alert(1)</script>' }, 'username'],
    ['a username with SQL', { username: "x' OR 1=1 --" }, 'username'],
    ['a username with a path', { username: '../../etc/passwd' }, 'username'],
    ['a non-ASCII username', { username: 'zoë-user' }, 'username'],
    ['a username of spaces', { username: '      ' }, 'username'],
    ['a username sent as null', { username: null }, 'username'],
    ['a username sent as a number', { username: 12345 }, 'username'],
    ['no e-mail for a user', { email: undefined }, 'email'],
    ['an e-mail sent as null', { email: null }, 'email'],
    ['an invalid e-mail', { email: 'not-an-address' }, 'email'],
    ['a display-name e-mail', { email: 'Ada <ada@example.com>' }, 'email'],
    ['a huge e-mail', { email: `${'a'.repeat(5000)}@example.com` }, 'email'],
    ['a short password', { password: 'short' }, 'password'],
    ['a password of 2001 bytes', { password: 'p'.repeat(2001) }, 'password'],
    ['password login without a password', { password: undefined }, 'password'],
    ['a name of 2001 characters', { name: 'n'.repeat(2001) }, 'name'],
    ['an unknown type', { type: 'root' }, 'type'],
    ['an unknown status', { status: 'blocklisted' }, 'status'],
    ['no user role', { user_role_id: undefined }, 'user_role_id'],
    ['an unknown user role', { user_role_id: 999_999 }, 'user_role_id'],
    ['a user role id of 0', { user_role_id: 0 }, 'user_role_id'],
    ['a user role id as a string', { user_role_id: '1' }, 'user_role_id'],
    ['an unknown list role', { list_role_id: 999_999 }, 'list_role_id'],
  ];
  for (const [what, change, field] of cases) {
    it(`400 naming ${field}: ${what}`, async () => {
      const before = (await sql<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n;
      const body = { ...base(), ...(change as object) };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete (body as Record<string, unknown>)[k];
      const res = await t.api('POST', '/api/users', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}\\b`, 'u'));
      expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n).toBe(before);
    });
  }

  it('400 naming the role field when a role of the other type is given', async () => {
    const lr = (await t.api('POST', '/api/roles/lists', { name: fresh('lr'), lists: [] })).body.data;
    expect((await t.api('POST', '/api/users', { ...base(), user_role_id: lr.id })).body.message).toMatch(/^user_role_id\b/u);
    expect((await t.api('POST', '/api/users', { ...base(), list_role_id: editorRole })).body.message).toMatch(/^list_role_id\b/u);
  });

  it('an empty body with a JSON content type is a 400 naming a required field, not a 500', async () => {
    for (const payload of ['', '{}']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/users', headers: { authorization: AUTH, 'content-type': 'application/json' }, payload });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(/username|user_role_id/u);
    }
    const put = await t.app.inject({ method: 'PUT', url: '/api/profile', headers: { authorization: AUTH, 'content-type': 'application/json' }, payload: '' });
    expect(put.statusCode).toBeLessThan(500);
  });

  it('trims and lower-cases the e-mail and trims the username', async () => {
    const username = fresh('trim');
    const u = await newUser({ username: `  ${username}  `, email: '  Mixed.Case@Example.COM ' });
    expect(u.username).toBe(username);
    expect(u.email).toBe('mixed.case@example.com');
  });

  it('409 naming the field for a duplicate username or e-mail (e-mails compared without case)', async () => {
    const u = await newUser();
    const dupName = await t.api('POST', '/api/users', { username: u.username, email: `${fresh()}@example.com`, user_role_id: editorRole });
    expect(dupName.status).toBe(409);
    expect(dupName.body.message).toMatch(/^username\b/u);
    const dupEmail = await t.api('POST', '/api/users', { username: fresh(), email: u.email.toUpperCase(), user_role_id: editorRole });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body.message).toMatch(/^email\b/u);
    const other = await newUser();
    const rename = await t.api('PUT', `/api/users/${other.id}`, { username: u.username });
    expect(rename.status).toBe(409);
    expect(rename.body.message).toMatch(/^username\b/u);
  });

  it('a user without password login needs no password, and keeps no hash', async () => {
    const u = await newUser({ password: undefined, password_login: false });
    expect(u.password_login).toBe(false);
    const [row] = await sql<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [u.id]);
    expect(row!.password_hash).toBeNull();
    // Turning password login on then needs a password.
    const on = await t.api('PUT', `/api/users/${u.id}`, { password_login: true });
    expect(on.status).toBe(400);
    expect(on.body.message).toMatch(/^password\b/u);
  });

  it('PUT keeps omitted fields, refuses a type change, and treats null as not given', async () => {
    const u = await newUser();
    const res = await t.api('PUT', `/api/users/${u.id}`, { name: 'Renamed', email: null, status: null, password: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed', email: u.email, status: 'enabled', username: u.username, password_login: true });
    const type = await t.api('PUT', `/api/users/${u.id}`, { type: 'api' });
    expect(type.status).toBe(400);
    expect(type.body.message).toMatch(/^type\b/u);
    const bad = await t.api('PUT', `/api/users/${u.id}`, { username: 'no spaces allowed' });
    expect(bad.body.message).toMatch(/^username\b/u);
  });
});

describe('API users', () => {
  it('get a 48-character token once; only its SHA-256 is stored; the token works with both header forms', async () => {
    const res = await t.api('POST', '/api/users', { username: fresh('bot'), type: 'api', user_role_id: editorRole, email: 'ignored@example.com', password: 'ignored' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const u = res.body.data;
    expect(u.password).toMatch(/^[A-Za-z0-9]{48}$/u);
    expect(u).toMatchObject({ type: 'api', email: null, password_login: false });
    const [row] = await sql<{ password_hash: string; email: string }>('SELECT password_hash, email FROM users WHERE id = $1', [u.id]);
    expect(row!.password_hash).toBe(`sha256$${createHash('sha256').update(u.password).digest('hex')}`);
    expect(row!.email).toBe(`${u.username}@api`);
    expect(JSON.stringify((await t.api('GET', `/api/users/${u.id}`)).body)).not.toContain(u.password);
    expect((await t.api('GET', `/api/users/${u.id}`)).body.data.password).toBeUndefined();
    const basic = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;
    for (const authorization of [`token ${u.username}:${u.password}`, basic]) {
      const me = await t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization } });
      expect(me.statusCode).toBe(200);
      expect(me.json().data.id).toBe(u.id);
    }
  });

  it('keep their token on PUT (a password is ignored, as listmonk does) and get a new one with regenerate_token', async () => {
    const bot = await createApiUser(t, { permissions: ['lists:get_all'] });
    const asBot = (authorization: string) => t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization } });
    const kept = await t.api('PUT', `/api/users/${bot.id}`, { name: 'Bot', password: 'another-password' });
    expect(kept.status).toBe(200);
    expect(kept.body.data.password).toBeUndefined();
    expect((await asBot(bot.authorization)).statusCode).toBe(200);
    const renewed = await t.api('PUT', `/api/users/${bot.id}`, { regenerate_token: true });
    expect(renewed.status).toBe(200);
    const token = renewed.body.data.password as string;
    expect(token).toMatch(/^[A-Za-z0-9]{48}$/u);
    expect(token).not.toBe(bot.token);
    expect((await asBot(bot.authorization)).statusCode).toBe(401);
    expect((await asBot(`token ${bot.username}:${token}`)).statusCode).toBe(200);
    const notApi = await t.api('PUT', `/api/users/${(await newUser()).id}`, { regenerate_token: true });
    expect(notApi.status).toBe(400);
    expect(notApi.body.message).toMatch(/^regenerate_token\b/u);
  });

  it('lose access when disabled or deleted', async () => {
    const bot = await createApiUser(t, { permissions: ['lists:get_all'] });
    const asBot = () => t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization: bot.authorization } });
    expect((await t.api('PUT', `/api/users/${bot.id}`, { status: 'disabled' })).status).toBe(200);
    expect((await asBot()).statusCode).toBe(401);
    expect((await t.api('PUT', `/api/users/${bot.id}`, { status: 'enabled' })).status).toBe(200);
    expect((await asBot()).statusCode).toBe(200);
    expect((await t.api('DELETE', `/api/users/${bot.id}`)).status).toBe(200);
    expect((await asBot()).statusCode).toBe(401);
  });
});

describe('permissions', () => {
  it('users:get reads, users:manage writes; others get 403 naming the permission', async () => {
    const reader = await createApiUser(t, { permissions: ['users:get'] });
    const nobody = await createApiUser(t, { permissions: ['lists:get_all'] });
    const as = (who: { authorization: string }, method: string, url: string, payload?: object) =>
      t.app.inject({ method: method as 'GET', url, headers: { authorization: who.authorization }, ...(payload ? { payload } : {}) });
    expect((await as(reader, 'GET', '/api/users')).statusCode).toBe(200);
    const denied = await as(reader, 'POST', '/api/users', { username: fresh(), type: 'api', user_role_id: editorRole });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('permission denied: users:manage');
    expect((await as(nobody, 'GET', '/api/users')).json().message).toBe('permission denied: users:get');
    // The profile needs nothing but a signed-in principal.
    const profile = await as(nobody, 'GET', '/api/profile');
    expect(profile.statusCode).toBe(200);
    expect(profile.json().data).toMatchObject({ id: nobody.id, username: nobody.username, type: 'api', email: null });
  });
});

describe('the legacy MAILROOM_ADMIN_USER', () => {
  it('is not listed, reads as 404, and refuses PUT and DELETE with a 400 naming the environment', async () => {
    const [legacy] = await sql<{ id: number }>('SELECT id FROM users WHERE legacy');
    const id = legacy!.id;
    const all = await t.api('GET', '/api/users');
    expect(all.body.data.map((u: { id: number }) => u.id)).not.toContain(id);
    expect((await t.api('GET', `/api/users/${id}`)).status).toBe(404);
    for (const [method, url, body] of [['PUT', `/api/users/${id}`, { name: 'x' }], ['DELETE', `/api/users/${id}`, undefined], ['DELETE', `/api/users?id=${id}`, undefined]] as const) {
      const res = await t.api(method, url, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/MAILROOM_ADMIN_USER/u);
    }
    expect((await sql('SELECT id FROM users WHERE legacy')).length).toBe(1);
  });

  it('reads its own profile but cannot change it here', async () => {
    const me = await t.api('GET', '/api/profile');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ username: 'admin', type: 'api', user_role_id: 1, user_role: { id: 1, name: 'Super Admin' } });
    const put = await t.api('PUT', '/api/profile', { name: 'Someone else' });
    expect(put.status).toBe(400);
    expect(put.body.message).toMatch(/MAILROOM_ADMIN_USER/u);
  });
});

describe('sessions', () => {
  it('a password change by an admin or disabling a user deletes all its sessions; other changes keep them', async () => {
    const u = await newUser();
    await addSession(u.id);
    await addSession(u.id);
    expect((await t.api('PUT', `/api/users/${u.id}`, { name: 'Still signed in' })).status).toBe(200);
    expect(await sessionCount(u.id)).toBe(2);
    expect((await t.api('PUT', `/api/users/${u.id}`, { password: 'a-new-password-2' })).status).toBe(200);
    expect(await sessionCount(u.id)).toBe(0);
    await addSession(u.id);
    expect((await t.api('PUT', `/api/users/${u.id}`, { status: 'disabled' })).status).toBe(200);
    expect(await sessionCount(u.id)).toBe(0);
    const other = await newUser();
    await addSession(other.id);
    expect((await t.api('PUT', `/api/users/${other.id}`, { password_login: false })).status).toBe(200);
    expect(await sessionCount(other.id)).toBe(0);
  });

  it('the profile changes the caller\'s name, e-mail and password; the other sessions go, the caller\'s stays', async () => {
    const u = await newUser();
    const token = await t.deps.sessions.start(u.id, { ip: '127.0.0.1', userAgent: 'test' });
    const found = await t.deps.sessions.find(token);
    const other = await addSession(u.id);
    const headers = { cookie: `session=${token}`, 'x-csrf-token': found!.principal.session!.csrf, 'content-type': 'application/json' };
    const me = await t.app.inject({ method: 'GET', url: '/api/profile', headers });
    expect(me.json().data).toMatchObject({ id: u.id, username: u.username, email: u.email });
    const bad = await t.app.inject({ method: 'PUT', url: '/api/profile', headers, payload: { password: 'short' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^password\b/u);
    const res = await t.app.inject({ method: 'PUT', url: '/api/profile', headers, payload: { name: 'New Name', email: 'New.Mail@Example.com', password: 'brand-new-password' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: u.id, name: 'New Name', email: 'new.mail@example.com' });
    const left = await sql<{ id: string }>('SELECT id FROM sessions WHERE user_id = $1', [u.id]);
    expect(left.map((r) => r.id)).toEqual([found!.principal.session!.id]);
    expect(left.map((r) => r.id)).not.toContain(other);
  });
});

describe('the last enabled Super Admin', () => {
  // A separate database: the rule counts every Super Admin, so nothing else may create or remove one.
  let s: TestApp;
  beforeAll(async () => {
    s = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  });
  afterAll(async () => s?.close());
  const admin = async (username: string) => {
    const res = await s.api('POST', '/api/users', { username, email: `${username}@example.com`, password: 'super-secret-1', user_role_id: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id as number;
  };
  const superAdmins = async () => (await s.testDb.db.sql<{ id: number }>(`SELECT id FROM users WHERE user_role_id = 1 AND type = 'user' AND status = 'enabled' ORDER BY id`)).map((r) => r.id);

  it('cannot be deleted, disabled or moved to another role; with a second one, it can', async () => {
    const role = (await s.api('POST', '/api/roles/users', { name: 'Viewer', permissions: ['lists:get_all'] })).body.data.id;
    // An API user with role 1 does not count: it cannot sign in to the admin.
    expect((await s.api('POST', '/api/users', { username: 'root-bot', type: 'api', user_role_id: 1 })).status).toBe(200);
    const first = await admin('first-admin');
    const sid = createHash('sha256').update('first').digest('hex');
    await s.testDb.db.sql(`INSERT INTO sessions (id, user_id, csrf, expires_at) VALUES ($1, $2, 'c', now() + interval '1 day')`, [sid, first]);
    for (const [method, url, body] of [
      ['DELETE', `/api/users/${first}`, undefined],
      ['DELETE', `/api/users?id=${first}`, undefined],
      ['PUT', `/api/users/${first}`, { status: 'disabled' }],
      ['PUT', `/api/users/${first}`, { user_role_id: role }],
    ] as const) {
      const res = await s.api(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body.message).toMatch(/last enabled Super Admin/u);
    }
    expect(await superAdmins()).toEqual([first]);
    // The refused disable rolled back its session wipe too.
    expect((await s.testDb.db.sql('SELECT id FROM sessions WHERE user_id = $1', [first])).length).toBe(1);
    // Other changes to it are fine.
    expect((await s.api('PUT', `/api/users/${first}`, { name: 'First' })).status).toBe(200);

    const second = await admin('second-admin');
    // Both at once would leave none: all or nothing.
    const both = await s.api('DELETE', `/api/users?id=${first}&id=${second}`);
    expect(both.status).toBe(400);
    expect(await superAdmins()).toEqual([first, second]);
    expect((await s.api('PUT', `/api/users/${first}`, { user_role_id: role })).status).toBe(200);
    expect(await superAdmins()).toEqual([second]);
    expect((await s.api('PUT', `/api/users/${second}`, { status: 'disabled' })).status).toBe(400);
    const third = await admin('third-admin');
    expect((await s.api('DELETE', `/api/users?id=${second}`)).status).toBe(200);
    expect(await superAdmins()).toEqual([third]);
  });

  // PostgreSQL only: the embedded store runs one transaction at a time, so there is no race to lose.
  it.skipIf(storeKind !== 'postgres')('a change waits for a concurrent change to a Super Admin, then sees its outcome', async () => {
    const a = await admin('race-a');
    const b = await admin('race-b');
    for (const id of await superAdmins()) if (id !== a && id !== b) await s.api('PUT', `/api/users/${id}`, { user_role_id: (await s.api('POST', '/api/roles/users', { name: `demoted ${id}` })).body.data.id });
    expect(await superAdmins()).toEqual([a, b]);
    let answered = false;
    let refused: Promise<{ status: number; body: { message: string } }> | null = null;
    // Another writer disables A and has not committed yet: it holds A's row only.
    await s.testDb.db.tx(async (q) => {
      await q.sql(`UPDATE users SET status = 'disabled' WHERE id = $1`, [a]);
      refused = s.api('PUT', `/api/users/${b}`, { status: 'disabled' }).finally(() => {
        answered = true;
      });
      // Until the request waits on A's row (or, had it not locked the Super Admins first, has answered).
      for (;;) {
        const [row] = await s.testDb.db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
        if (row!.n > 0 || answered) break;
        await new Promise((r) => setImmediate(r));
      }
    });
    const res = await refused!;
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/last enabled Super Admin/u);
    expect(await superAdmins()).toEqual([b]);
  });
});
