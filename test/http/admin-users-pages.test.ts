/**
 * The users admin pages over HTTP (issue 16 "Users", "profile"; src/modules/users/pages.tsx): the
 * table, creating a user through the form (POST → 303 → the table with a notice), a validation error
 * re-rendered (422) beside its field, an API user's token shown once in the POST's answer and nowhere
 * after, editing, deleting, the last Super Admin refusal as a form error, 403 for a user without
 * `users:manage` on every POST (and no Save button), the CSRF token required, and the profile form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { hashPassword } from '../../src/modules/users/service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

let seq = 0;
interface Session { userId: number; cookie: string; csrf: string }

/** A sign-in user with role `roleId` and a session: its cookie and CSRF token. */
async function signedIn(roleId = 1): Promise<Session> {
  seq += 1;
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id`,
    [`admin-${seq}`, roleId, `admin-${seq}@example.com`],
  );
  const token = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { userId: user!.id, cookie: `session=${token}`, csrf: found!.principal.session!.csrf };
}

/** A user role holding `permissions`; its id. */
async function role(name: string, permissions: string[]): Promise<number> {
  const [r] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [name, permissions]);
  return r!.id;
}

const get = (s: Session, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
/** Posts `form` as a browser does, with the session's CSRF token unless `_csrf` is given. */
const post = (s: Session, url: string, form: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: s.csrf, ...form }).toString(),
  });
/** The notice cookie a 303 set, as a Cookie header part. */
const noticeOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0] as string;
const userId = async (username: string) => (await t.deps.db.sql<{ id: number }>('SELECT id FROM users WHERE username = $1', [username]))[0]?.id;

let admin: Session;
beforeAll(async () => {
  admin = await signedIn(1);
});

describe('the users table', () => {
  it('lists users with their fields, a New button and row actions for a Super Admin', async () => {
    const res = await get(admin, '/admin/users');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('data-cy="btn-new"');
    expect(res.body).toContain(`href="/admin/users/${admin.userId}"`);
    expect(res.body).toContain('admin-1@example.com');
    expect(res.body).toContain('Super Admin');
    expect(res.body).toContain('data-cy="btn-delete"');
  });

  it('filters by the search text', async () => {
    await signedIn(1);
    const res = await get(admin, '/admin/users?query=ADMIN-2');
    expect(res.body).toContain('admin-2@example.com');
    expect(res.body).not.toContain('admin-1@example.com');
    expect((await get(admin, '/admin/users?query=nobody-at-all')).body).toContain('No user matches this search.');
  });
});

describe('creating a user', () => {
  const valid = { type: 'user', status: 'enabled', username: 'wren', name: 'Wren Writer', email: 'Wren@Example.com', password_login: 'true', password: 'a long password', password2: 'a long password', user_role: '1', list_role: '' };

  it('a valid form creates it and leads to the table with a notice', async () => {
    const res = await post(admin, '/admin/users', valid);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/users');
    const page = await t.app.inject({ method: 'GET', url: '/admin/users', headers: { cookie: `${admin.cookie}; ${noticeOf(res)}` } });
    expect(page.body).toContain('“wren” was created.');
    expect(page.body).toContain('wren@example.com');
    const id = await userId('wren');
    expect((await t.deps.accounts.get(id!)).name).toBe('Wren Writer');
  });

  it('a bad user name is a 422 with the message beside the field, and the typed values kept', async () => {
    const res = await post(admin, '/admin/users', { ...valid, username: 'ab', name: 'Kept <name>' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/id="f-username-error"[^>]*>.*must be 3 to 2000 characters long/su);
    expect(res.body).toMatch(/aria-invalid="true"[^>]*data-cy="username"|data-cy="username"[^>]*aria-invalid="true"|aria-describedby="f-username-hint f-username-error"/u);
    expect(res.body).toContain('value="Kept &lt;name>"');
    expect(res.body).not.toContain('a long password');
    expect(await userId('ab')).toBeUndefined();
  });

  it('a duplicate user name, a password mismatch and a missing role are shown beside their fields', async () => {
    const dup = await post(admin, '/admin/users', { ...valid, email: 'other@example.com' });
    expect(dup.statusCode).toBe(422);
    expect(dup.body).toMatch(/id="f-username-error"[^>]*>.*already exists/su);
    const mismatch = await post(admin, '/admin/users', { ...valid, username: 'wren2', password2: 'something else' });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toMatch(/id="f-password2-error"[^>]*>.*do not match/su);
    const noRole = await post(admin, '/admin/users', { ...valid, username: 'wren3', user_role: '' });
    expect(noRole.statusCode).toBe(422);
    expect(noRole.body).toMatch(/id="f-user_role-error"[^>]*>.*Choose a user role/su);
    const unknownRole = await post(admin, '/admin/users', { ...valid, username: 'wren4', email: 'w4@example.com', user_role: '999' });
    expect(unknownRole.statusCode).toBe(422);
    expect(unknownRole.body).toMatch(/id="f-user_role-error"[^>]*>.*no user role with id 999/su);
  });

  it('an API user: its token is in the POST answer once, works, and is never shown again', async () => {
    const res = await post(admin, '/admin/users', { type: 'api', status: 'enabled', username: 'robot', name: '', email: '', password: '', password2: '', user_role: '1', list_role: '' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const token = /data-cy="api-token"[^>]*value="([A-Za-z0-9]{48})"|value="([A-Za-z0-9]{48})"[^>]*data-cy="api-token"/u.exec(res.body);
    const value = token?.[1] ?? token?.[2];
    expect(value).toBeDefined();
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain(value!);
    const api = await t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization: `token robot:${value}` } });
    expect(api.statusCode).toBe(200);
    const id = await userId('robot');
    for (const url of ['/admin/users', `/admin/users/${id}`]) expect((await get(admin, url)).body).not.toContain(value!);
    // A new token replaces it, shown once the same way; the old one stops working.
    const again = await post(admin, `/admin/users/${id}/regenerate-token`, {});
    expect(again.statusCode).toBe(200);
    const fresh = /value="([A-Za-z0-9]{48})"/u.exec(again.body)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(value);
    expect((await t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization: `token robot:${value}` } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization: `token robot:${fresh}` } })).statusCode).toBe(200);
  });
});

describe('editing and deleting', () => {
  it('the edit form saves changes and leads back to the user with a notice', async () => {
    const id = await userId('wren');
    const form = await get(admin, `/admin/users/${id}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('data-cy="btn-save"');
    expect(form.body).toContain('value="wren"');
    const res = await post(admin, `/admin/users/${id}`, { status: 'disabled', username: 'wren', name: 'Wren Renamed', email: 'wren@example.com', password_login: 'true', password: '', password2: '', user_role: '1', list_role: '' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/users/${id}`);
    const user = await t.deps.accounts.get(id!);
    expect([user.name, user.status]).toEqual(['Wren Renamed', 'disabled']);
  });

  it('an unknown or non-numeric id is the 404 page', async () => {
    expect((await get(admin, '/admin/users/99999')).statusCode).toBe(404);
    expect((await get(admin, '/admin/users/abc')).statusCode).toBe(404);
  });

  it('delete removes the user and leads to the table with a notice', async () => {
    const id = await userId('wren');
    const res = await post(admin, `/admin/users/${id}/delete`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/users');
    expect(await userId('wren')).toBeUndefined();
  });

  it('the last enabled Super Admin cannot demote itself: a form error above the form, nothing changed', async () => {
    const editor = await role('Editors', ['lists:get_all']);
    await t.deps.db.sql(`UPDATE users SET user_role_id = $1 WHERE user_role_id = 1 AND type = 'user' AND id <> $2 AND NOT legacy`, [editor, admin.userId]);
    const res = await post(admin, `/admin/users/${admin.userId}`, { status: 'enabled', username: 'admin-1', name: 'admin-1', email: 'admin-1@example.com', password_login: '', password: '', password2: '', user_role: String(editor), list_role: '' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/data-cy="form-error"[^>]*>.*last enabled Super Admin/su);
    expect((await t.deps.accounts.get(admin.userId)).user_role_id).toBe(1);
    const del = await post(admin, `/admin/users/${admin.userId}/delete`, {});
    expect(del.statusCode).toBe(422);
    expect(del.body).toContain('last enabled Super Admin');
  });
});

describe('permissions and CSRF', () => {
  it('without users:manage: the pages show no New, Save or Delete, and every POST is 403', async () => {
    const viewer = await signedIn(await role('Viewers', ['users:get']));
    const list = await get(viewer, '/admin/users');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('data-cy="btn-new"');
    expect(list.body).not.toContain('data-cy="btn-delete"');
    const form = await get(viewer, `/admin/users/${admin.userId}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).not.toContain('data-cy="btn-save"');
    expect(form.body).toContain('data-cy="read-only"');
    const create = await post(viewer, '/admin/users', { type: 'user', username: 'sneaky', email: 's@example.com', user_role: '1', status: 'enabled' });
    expect(create.statusCode).toBe(403);
    expect(create.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await post(viewer, `/admin/users/${admin.userId}`, { username: 'x' })).statusCode).toBe(403);
    expect((await post(viewer, `/admin/users/${admin.userId}/delete`, {})).statusCode).toBe(403);
    expect(await userId('sneaky')).toBeUndefined();
    const nobody = await signedIn(await role('Nobody', []));
    expect((await get(nobody, '/admin/users')).statusCode).toBe(403);
    expect((await get(nobody, '/admin/user/profile')).statusCode).toBe(200);
  });

  it('a form posted without the session\'s CSRF token is refused and changes nothing', async () => {
    const res = await post(admin, '/admin/users', { _csrf: 'forged', type: 'user', username: 'forged', email: 'f@example.com', user_role: '1', status: 'enabled', password_login: 'true', password: 'a long password', password2: 'a long password' });
    expect(res.statusCode).toBe(403);
    expect(await userId('forged')).toBeUndefined();
  });
});

describe('the profile', () => {
  it('shows the user, saves the name, and refuses mismatched passwords beside the field', async () => {
    const me = await signedIn(1);
    const page = await get(me, '/admin/user/profile');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`@admin-${seq}`);
    expect(page.body).toContain('data-cy="btn-twofa-setup"');
    const res = await post(me, '/admin/user/profile', { name: 'New <Name>', email: `admin-${seq}@example.com`, password: '', password2: '' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/user/profile');
    expect((await t.deps.accounts.get(me.userId)).name).toBe('New <Name>');
    const bad = await post(me, '/admin/user/profile', { name: 'x', password: 'one long password', password2: 'another long one' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-password2-error"[^>]*>.*do not match/su);
    const badEmail = await post(me, '/admin/user/profile', { name: 'x', email: 'not an address' });
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.body).toContain('id="f-email-error"');
  });
});

describe('two-step sign-in from the profile', () => {
  const codeOf = (secret: string, ms = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });

  it('shows a QR code and secret, refuses a wrong code keeping the same secret, turns on with the right one and off with the password', async () => {
    const me = await signedIn(1);
    await t.deps.db.sql('UPDATE users SET password_hash = $1 WHERE id = $2', [await hashPassword('my long password'), me.userId]);
    const other = await t.deps.sessions.start(me.userId, { ip: '127.0.0.1', userAgent: 'other browser' });
    const setup = await get(me, '/admin/user/profile?twofa=setup');
    expect(setup.statusCode).toBe(200);
    expect(setup.body).toContain('data-cy="twofa-qr"');
    expect(setup.body).toMatch(/src="data:image\/png;base64,[A-Za-z0-9+/=]+"/u);
    const secret = /name="secret" value="([A-Z2-7]+)"/u.exec(setup.body)![1]!;
    const wrong = await post(me, '/admin/user/profile/twofa', { secret, code: codeOf(secret, Date.now() - 10 * 60_000) === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain(`value="${secret}"`);
    expect(wrong.body).toMatch(/aria-invalid="true"[^>]*name="code"|name="code"[^>]*aria-invalid="true"/u);
    expect((await t.deps.accounts.get(me.userId)).twofa_type).toBe('none');
    const on = await post(me, '/admin/user/profile/twofa', { secret, code: codeOf(secret) });
    expect(on.statusCode).toBe(303);
    expect((await t.deps.accounts.get(me.userId)).twofa_type).toBe('totp');
    // The other browser's session ended; this one lives on.
    expect(await t.deps.sessions.find(other)).toBeNull();
    const page = await get(me, '/admin/user/profile');
    expect(page.body).toContain('data-cy="twofa-disable-form"');
    const badOff = await post(me, '/admin/user/profile/twofa/disable', { password: 'not my password' });
    expect(badOff.statusCode).toBe(422);
    expect((await t.deps.accounts.get(me.userId)).twofa_type).toBe('totp');
    const off = await post(me, '/admin/user/profile/twofa/disable', { password: 'my long password' });
    expect(off.statusCode).toBe(303);
    expect((await t.deps.accounts.get(me.userId)).twofa_type).toBe('none');
  });

  it('needs the CSRF token', async () => {
    const me = await signedIn(1);
    const res = await t.app.inject({ method: 'POST', url: '/admin/user/profile/twofa', headers: { cookie: me.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'secret=AAAA&code=123456' });
    expect(res.statusCode).toBe(403);
  });
});
