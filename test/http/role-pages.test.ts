/**
 * The roles and audit log admin pages through the whole stack (issue 16; listmonk admin UI map rows
 * 16–19): user roles created, edited and deleted with the permission matrix; list roles with list rows
 * (add/remove without JavaScript and with htmx); errors beside their fields (422); role 1 read-only and
 * refused; 403 without `roles:manage`; the CSRF token required; the audit page lists the form posts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** A login user with a user role holding `permissions` (role 1 when null), signed in. */
async function signedIn(permissions: string[] | null) {
  seq += 1;
  let roleId = 1;
  if (permissions !== null) {
    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`pages role ${seq}`, permissions]);
    roleId = role!.id;
  }
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id`,
    [`pages-${seq}`, roleId, `pages-${seq}@example.com`],
  );
  const token = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { userId: user!.id, username: `pages-${seq}`, roleId, cookie: `session=${token}`, csrf: found!.principal.session!.csrf };
}

type Session = Awaited<ReturnType<typeof signedIn>>;

const get = (s: Session, url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie, ...headers } });

/** Posts a form (`fields` as pairs, so a name can repeat), with the session's CSRF token unless `csrf` is false. */
function post(s: Session, url: string, fields: [string, string][], opts: { csrf?: boolean; headers?: Record<string, string> } = {}) {
  const body = new URLSearchParams([...(opts.csrf === false ? [] : [['_csrf', s.csrf] as [string, string]]), ...fields]).toString();
  return t.app.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', ...opts.headers }, payload: body });
}

const roleByName = async (name: string) => (await t.deps.db.sql<{ id: number; type: string; permissions: string[] }>(`SELECT id, type, permissions FROM roles WHERE name = $1`, [name]))[0];

let admin: Session;
beforeAll(async () => {
  admin = await signedIn(null);
});

describe('user roles pages', () => {
  it('lists the user roles with their permission counts; v6 URL redirects; the new form starts with listmonk defaults', async () => {
    const res = await get(admin, '/admin/users/roles');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('data-cy="user-roles"');
    expect(res.body).toContain('Super Admin');
    expect(res.body).toContain('data-cy="btn-new"');
    const v6 = await get(admin, '/admin/users/roles/users');
    expect(v6.statusCode).toBe(303);
    expect(v6.headers.location).toBe('/admin/users/roles');
    const form = await get(admin, '/admin/users/roles/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toMatch(/<input[^>]*value="campaigns:get"[^>]*checked/u);
    expect(form.body).not.toMatch(/<input[^>]*value="subscribers:sql_query"[^>]*checked/u);
    expect(form.body).not.toMatch(/<input[^>]*value="settings:manage"[^>]*checked/u);
    expect(form.body).toContain('data-cy="btn-save"');
  });

  it('creates a role from the matrix (303 with a notice), then edits it', async () => {
    const res = await post(admin, '/admin/users/roles', [['name', 'Editors'], ['permissions', 'campaigns:get'], ['permissions', 'campaigns:manage'], ['permissions', 'lists:get_all']]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/users/roles');
    expect(String(res.headers['set-cookie'])).toContain('mailroom_notice=');
    const role = await roleByName('Editors');
    expect(role).toMatchObject({ type: 'user', permissions: ['lists:get_all', 'campaigns:get', 'campaigns:manage'] });
    const page = await get(admin, `/admin/users/roles/${role!.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<input[^>]*value="campaigns:manage"[^>]*checked/u);
    expect(page.body).toContain('data-cy="btn-delete"');
    const edit = await post(admin, `/admin/users/roles/${role!.id}`, [['name', 'Editors'], ['permissions', 'subscribers:get']]);
    expect(edit.statusCode).toBe(303);
    expect((await roleByName('Editors'))!.permissions).toEqual(['subscribers:get']);
  });

  it('re-renders with the error beside the field (422): empty name, unknown permission, a taken name', async () => {
    const empty = await post(admin, '/admin/users/roles', [['name', '  '], ['permissions', 'campaigns:get']]);
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toMatch(/id="f-name-error"[^>]*>[\s\S]*Give the role a name/u);
    expect(empty.body).toMatch(/aria-invalid="true"/u);
    expect(empty.body).toMatch(/<input[^>]*value="campaigns:get"[^>]*checked/u); // what was ticked stays ticked
    const unknown = await post(admin, '/admin/users/roles', [['name', 'Bad perms'], ['permissions', 'campaigns:fly']]);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toMatch(/id="f-permissions-error"[^>]*>[\s\S]*unknown permission &quot;campaigns:fly&quot;/u);
    expect(await roleByName('Bad perms')).toBeUndefined();
    const taken = await post(admin, '/admin/users/roles', [['name', 'Editors']]);
    expect(taken.statusCode).toBe(422);
    expect(taken.body).toMatch(/id="f-name-error"[^>]*>[\s\S]*Another role already has this name/u);
  });

  it('shows role 1 read-only with the reason, and refuses a post to it', async () => {
    const page = await get(admin, '/admin/users/roles/1');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-cy="read-only"');
    expect(page.body).toContain('always has every permission');
    expect(page.body).not.toContain('data-cy="btn-save"');
    expect(page.body).toMatch(/<input[^>]*value="settings:maintain"[^>]*checked[^>]*disabled|<input[^>]*value="settings:maintain"[^>]*disabled[^>]*checked/u);
    const res = await post(admin, '/admin/users/roles/1', [['name', 'Hacked'], ['permissions', 'lists:get_all']]);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Super Admin');
    const del = await post(admin, '/admin/users/roles/1/delete', []);
    expect(del.statusCode).toBe(400);
    const [role] = await t.deps.db.sql<{ name: string }>('SELECT name FROM roles WHERE id = 1');
    expect(role!.name).not.toBe('Hacked');
  });

  it('without roles:manage: read-only pages, no New or Save, and every post refused with 403', async () => {
    const viewer = await signedIn(['roles:get']);
    const index = await get(viewer, '/admin/users/roles');
    expect(index.statusCode).toBe(200);
    expect(index.body).not.toContain('data-cy="btn-new"');
    const role = await roleByName('Editors');
    const page = await get(viewer, `/admin/users/roles/${role!.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('needs the roles:manage permission');
    expect(page.body).not.toContain('data-cy="btn-save"');
    expect((await get(viewer, '/admin/users/roles/new')).statusCode).toBe(403);
    expect((await post(viewer, '/admin/users/roles', [['name', 'Sneaky']])).statusCode).toBe(403);
    expect((await post(viewer, `/admin/users/roles/${role!.id}`, [['name', 'Sneaky']])).statusCode).toBe(403);
    expect((await post(viewer, `/admin/users/roles/${role!.id}/delete`, [])).statusCode).toBe(403);
    expect(await roleByName('Sneaky')).toBeUndefined();
    const nobody = await signedIn(['lists:get_all']);
    expect((await get(nobody, '/admin/users/roles')).statusCode).toBe(403);
  });

  it('refuses a form post without the CSRF token', async () => {
    const res = await post(admin, '/admin/users/roles', [['name', 'No token']], { csrf: false });
    expect(res.statusCode).toBe(403);
    expect(await roleByName('No token')).toBeUndefined();
  });

  it('makes a copy of a role (role 1 too) and opens it; a second copy asks for a rename', async () => {
    const editors = await roleByName('Editors');
    const res = await post(admin, `/admin/users/roles/${editors!.id}/clone`, []);
    expect(res.statusCode).toBe(303);
    const copy = await roleByName('Copy of Editors');
    expect(res.headers.location).toBe(`/admin/users/roles/${copy!.id}`);
    expect(copy!.permissions).toEqual(editors!.permissions);
    const again = await post(admin, `/admin/users/roles/${editors!.id}/clone`, []);
    expect(again.statusCode).toBe(422);
    expect(again.body).toMatch(/id="f-name-error"[^>]*>[\s\S]*rename it first/u);
    const sa = await post(admin, '/admin/users/roles/1/clone', []);
    expect(sa.statusCode).toBe(303);
    expect((await roleByName('Copy of Super Admin'))!.permissions.length).toBe((await import('../../src/http/access.js')).PERMISSIONS.length);
    const superPage = await get(admin, '/admin/users/roles/1');
    expect(superPage.body).toContain('data-cy="btn-clone"');
    expect(superPage.body).not.toContain('data-cy="btn-delete"');
    const viewer = await signedIn(['roles:get']);
    expect((await post(viewer, `/admin/users/roles/${editors!.id}/clone`, [])).statusCode).toBe(403);
  });

  it('an unknown or non-numeric id is a 404 page', async () => {
    expect((await get(admin, '/admin/users/roles/999999')).statusCode).toBe(404);
    expect((await get(admin, '/admin/users/roles/abc')).statusCode).toBe(404);
  });

  it('deletes a role no one has; a role in use is shown as an error and kept', async () => {
    await post(admin, '/admin/users/roles', [['name', 'In use'], ['permissions', 'lists:get_all']]);
    const inUse = await roleByName('In use');
    await t.deps.db.sql(`INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ('holder', NULL, 'user', $1, 'holder@example.com')`, [inUse!.id]);
    const refused = await post(admin, `/admin/users/roles/${inUse!.id}/delete`, []);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('role is in use');
    expect(await roleByName('In use')).toBeDefined();
    const editors = await roleByName('Editors');
    const done = await post(admin, `/admin/users/roles/${editors!.id}/delete`, []);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/admin/users/roles');
    expect(await roleByName('Editors')).toBeUndefined();
  });
});

describe('list roles pages', () => {
  let news: number;
  let offers: number;
  beforeAll(async () => {
    news = (await t.api('POST', '/api/lists', { name: 'News' })).body.data.id;
    offers = (await t.api('POST', '/api/lists', { name: 'Offers' })).body.data.id;
  });

  it('the new form offers empty rows with every list in the picker', async () => {
    const res = await get(admin, '/admin/users/roles/lists/new');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('name="list_0"');
    expect(res.body).toContain('name="list_2"');
    expect(res.body).toContain('>News</option>');
    expect(res.body).toContain('data-cy="btn-add-list"');
  });

  it('"Add another list" and "Remove" re-render the rows, keeping what was chosen; nothing is saved', async () => {
    const fields: [string, string][] = [['name', 'Draft'], ['rows', '2'], ['list_0', String(news)], ['get_0', 'true'], ['list_1', String(offers)], ['manage_1', 'true']];
    const added = await post(admin, '/admin/users/roles/lists/rows', [...fields, ['add', '1']]);
    expect(added.statusCode).toBe(200);
    expect(added.body).toContain('name="list_2"');
    expect(added.body).toMatch(new RegExp(`<option value="${news}" selected>News`, 'u'));
    expect(added.body).toContain('value="Draft"');
    const removed = await post(admin, '/admin/users/roles/lists/rows', [...fields, ['remove', '0']], { headers: { 'hx-request': 'true' } });
    expect(removed.statusCode).toBe(200);
    expect(removed.body.startsWith('<div id="list-rows"')).toBe(true); // the fragment alone
    expect(removed.body).not.toContain('name="list_1"');
    expect(removed.body).toMatch(new RegExp(`<option value="${offers}" selected>Offers`, 'u'));
    expect(await roleByName('Draft')).toBeUndefined();
  });

  it('creates a list role from its rows (rows without a list are left out), edits and deletes it', async () => {
    const res = await post(admin, '/admin/users/roles/lists', [['name', 'Newsroom'], ['rows', '3'], ['list_0', String(news)], ['get_0', 'true'], ['manage_0', 'true'], ['list_1', ''], ['get_1', 'true'], ['list_2', String(offers)], ['get_2', 'true']]);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/users/roles/lists');
    const role = await roleByName('Newsroom');
    const grants = await t.deps.db.sql<{ list_id: number; permissions: string[] }>('SELECT list_id, permissions FROM role_lists WHERE role_id = $1 ORDER BY list_id', [role!.id]);
    expect(grants).toEqual([{ list_id: news, permissions: ['list:get', 'list:manage'] }, { list_id: offers, permissions: ['list:get'] }]);
    const index = await get(admin, '/admin/users/roles/lists');
    expect(index.body).toContain('Newsroom');
    expect(index.body).toContain('News, Offers');
    const edit = await post(admin, `/admin/users/roles/lists/${role!.id}`, [['name', 'Newsroom'], ['rows', '1'], ['list_0', String(offers)], ['manage_0', 'true']]);
    expect(edit.statusCode).toBe(303);
    const after = await t.deps.db.sql<{ list_id: number; permissions: string[] }>('SELECT list_id, permissions FROM role_lists WHERE role_id = $1', [role!.id]);
    expect(after).toEqual([{ list_id: offers, permissions: ['list:manage'] }]);
    const del = await post(admin, `/admin/users/roles/lists/${role!.id}/delete`, []);
    expect(del.statusCode).toBe(303);
    expect(await roleByName('Newsroom')).toBeUndefined();
  });

  it('makes a copy of a list role with the same lists', async () => {
    await post(admin, '/admin/users/roles/lists', [['name', 'Desk'], ['rows', '1'], ['list_0', String(news)], ['get_0', 'true']]);
    const desk = await roleByName('Desk');
    const res = await post(admin, `/admin/users/roles/lists/${desk!.id}/clone`, []);
    expect(res.statusCode).toBe(303);
    const copy = await roleByName('Copy of Desk');
    expect(res.headers.location).toBe(`/admin/users/roles/lists/${copy!.id}`);
    const grants = await t.deps.db.sql<{ list_id: number; permissions: string[] }>('SELECT list_id, permissions FROM role_lists WHERE role_id = $1', [copy!.id]);
    expect(grants).toEqual([{ list_id: news, permissions: ['list:get'] }]);
  });

  it('shows errors beside the row: no permission ticked, an unknown list, the same list twice, no name', async () => {
    const noPerm = await post(admin, '/admin/users/roles/lists', [['name', 'Bad'], ['rows', '2'], ['list_0', String(news)], ['get_0', 'true'], ['list_1', String(offers)]]);
    expect(noPerm.statusCode).toBe(422);
    expect(noPerm.body).toMatch(/id="f-list-1-error"[^>]*>[\s\S]*Tick View or Manage/u);
    const unknown = await post(admin, '/admin/users/roles/lists', [['name', 'Bad'], ['rows', '1'], ['list_0', '987654'], ['get_0', 'true']]);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toMatch(/id="f-list-0-error"[^>]*>[\s\S]*does not exist/u);
    const twice = await post(admin, '/admin/users/roles/lists', [['name', 'Bad'], ['rows', '2'], ['list_0', String(news)], ['get_0', 'true'], ['list_1', String(news)], ['get_1', 'true']]);
    expect(twice.statusCode).toBe(422);
    expect(twice.body).toMatch(/id="f-list-1-error"[^>]*>[\s\S]*appears more than once/u);
    const noName = await post(admin, '/admin/users/roles/lists', [['name', ''], ['rows', '0']]);
    expect(noName.statusCode).toBe(422);
    expect(noName.body).toContain('id="f-name-error"');
    expect(await roleByName('Bad')).toBeUndefined();
  });

  it('refuses posts without roles:manage (403) and without the CSRF token (403)', async () => {
    const viewer = await signedIn(['roles:get']);
    expect((await get(viewer, '/admin/users/roles/lists')).statusCode).toBe(200);
    expect((await post(viewer, '/admin/users/roles/lists', [['name', 'Sneaky'], ['rows', '0']])).statusCode).toBe(403);
    expect((await post(viewer, '/admin/users/roles/lists/rows', [['rows', '0'], ['add', '1']])).statusCode).toBe(403);
    expect((await post(admin, '/admin/users/roles/lists', [['name', 'Sneaky'], ['rows', '0']], { csrf: false })).statusCode).toBe(403);
    expect(await roleByName('Sneaky')).toBeUndefined();
  });
});

describe('audit log page', () => {
  it('lists the form posts newest first, with who, what and the created role id', async () => {
    await post(admin, '/admin/users/roles', [['name', 'Audited'], ['permissions', 'media:get']]);
    const role = await roleByName('Audited');
    await t.deps.audit.drain();
    const res = await get(admin, '/admin/users/audit');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('data-cy="audit-log"');
    expect(res.body).toContain('roles.create_user_role');
    expect(res.body).toContain(`roles ${role!.id}`);
    expect(res.body).toContain(admin.username);
    const found = await t.deps.audit.query({ action: 'roles.create_user_role', resource_id: String(role!.id) });
    expect(found.total).toBe(1);
  });

  it('filters by action and resource type, and pages', async () => {
    const res = await get(admin, '/admin/users/audit?action=roles.delete&resource_type=roles');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('roles.delete');
    expect(res.body).not.toContain('roles.create_user_role</code>');
    expect(res.body).toContain('value="roles.delete"');
    for (let i = 0; i < 21; i++) await post(admin, '/admin/users/roles', [['name', `Bulk ${i}`]]);
    await t.deps.audit.drain();
    const first = await get(admin, '/admin/users/audit?action=roles.create_user_role');
    expect(first.body).toMatch(/aria-label="[^"]*2"/u);
    expect(first.body).toContain('href="/admin/users/audit?action=roles.create_user_role&amp;page=2"');
    const second = await get(admin, '/admin/users/audit?action=roles.create_user_role&page=2');
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('roles.create_user_role');
  });

  it('a bad date is a 422 beside the field; without users:get the page is 403', async () => {
    const bad = await get(admin, '/admin/users/audit?from=2026-02-30');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-from-error"/u);
    const backwards = await get(admin, '/admin/users/audit?from=2026-03-02&to=2026-03-01');
    expect(backwards.statusCode).toBe(422);
    expect(backwards.body).toMatch(/id="f-to-error"[^>]*>[\s\S]*before the start date/u);
    const limited = await signedIn(['roles:get']);
    expect((await get(limited, '/admin/users/audit')).statusCode).toBe(403);
    const reader = await signedIn(['users:get']);
    expect((await get(reader, '/admin/users/audit')).statusCode).toBe(200);
  });
});
