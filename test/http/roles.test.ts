/**
 * The roles API (issue 16 "Identity" item 2; listmonk reference §3.4): user roles with the catalogue's
 * permissions, list roles with `list:get` / `list:manage` per list, role 1 untouchable, a user role in
 * use refused with a 400 (listmonk answers 500), and a deleted list role leaving its users in place
 * (listmonk deletes them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/http/access.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { createApiUser } from '../helpers/principals.js';

let t: TestApp;
let listA: { id: number; name: string };
let listB: { id: number; name: string };
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  listA = (await t.api('POST', '/api/lists', { name: 'Alpha' })).body.data;
  listB = (await t.api('POST', '/api/lists', { name: 'Beta' })).body.data;
});
afterAll(async () => t?.close());

let seq = 0;
const fresh = (prefix = 'role') => `${prefix} ${++seq}`;
const count = async (table: string) => (await t.testDb.db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

describe('user roles', () => {
  it('role 1 is the Super Admin with every permission; roles answer listmonk\'s shape', async () => {
    const res = await t.api('GET', '/api/roles/users');
    expect(res.status).toBe(200);
    const su = res.body.data[0];
    expect(Object.keys(su).sort()).toEqual(['created_at', 'id', 'name', 'permissions', 'type', 'updated_at']);
    expect(su).toMatchObject({ id: 1, name: 'Super Admin', type: 'user' });
    expect(su.permissions).toEqual([...PERMISSIONS]);
  });

  it('are created with known permissions, de-duplicated, in catalogue order', async () => {
    const name = fresh();
    const res = await t.api('POST', '/api/roles/users', { name: `  ${name}  `, permissions: ['subscribers:get', 'lists:get_all', 'subscribers:get'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name, type: 'user', permissions: ['lists:get_all', 'subscribers:get'] });
    const listed = (await t.api('GET', '/api/roles/users')).body.data;
    expect(listed.find((r: { id: number }) => r.id === res.body.data.id)).toEqual(res.body.data);
    // Without permissions (or with null) the role holds none.
    expect((await t.api('POST', '/api/roles/users', { name: fresh(), permissions: null })).body.data.permissions).toEqual([]);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['an unknown permission', { name: 'x', permissions: ['lists:get_all', 'lists:delete_everything'] }, /^permissions: unknown permission "lists:delete_everything"/u],
    ['a list permission in a user role', { name: 'x', permissions: ['list:get'] }, /^permissions: unknown permission "list:get"/u],
    ['a blank name', { name: '   ', permissions: [] }, /^name\b/u],
    ['a name of 2001 characters', { name: 'n'.repeat(2001) }, /^name\b/u],
    ['a huge name', { name: 'n'.repeat(300_000) }, /^name\b/u],
    ['no name', { permissions: [] }, /name/u],
    ['a null name', { name: null }, /name/u],
    ['permissions as a string', { name: 'x', permissions: 'lists:get_all' }, /permissions/u],
    ['a permission that is not a string', { name: 'x', permissions: [1] }, /permissions/u],
    ['an empty body', '', /name/u],
  ];
  for (const [what, body, message] of bad) {
    it(`400 for ${what}, and nothing stored`, async () => {
      const before = await count('roles');
      const res = typeof body === 'string'
        ? await t.app.inject({ method: 'POST', url: '/api/roles/users', headers: { authorization: AUTH, 'content-type': 'application/json' }, payload: body }).then((r) => ({ status: r.statusCode, body: r.json() }))
        : await t.api('POST', '/api/roles/users', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await count('roles')).toBe(before);
    });
  }

  it('409 naming the name for a duplicate within user roles', async () => {
    const name = fresh();
    expect((await t.api('POST', '/api/roles/users', { name })).status).toBe(200);
    const dup = await t.api('POST', '/api/roles/users', { name });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/^name\b/u);
    // A list role may share the name of a user role (unique per type).
    expect((await t.api('POST', '/api/roles/lists', { name })).status).toBe(200);
  });

  it('are updated (name and permissions replaced); role 1 and unknown ids are refused', async () => {
    const role = (await t.api('POST', '/api/roles/users', { name: fresh(), permissions: ['lists:get_all'] })).body.data;
    const name = fresh('renamed');
    const res = await t.api('PUT', `/api/roles/users/${role.id}`, { name, permissions: ['campaigns:get'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: role.id, name, permissions: ['campaigns:get'] });
    const su = await t.api('PUT', '/api/roles/users/1', { name: 'Mine now', permissions: [] });
    expect(su.status).toBe(400);
    expect(su.body.message).toMatch(/Super Admin/u);
    expect((await t.api('GET', '/api/roles/users')).body.data[0].permissions).toEqual([...PERMISSIONS]);
    expect((await t.api('PUT', '/api/roles/users/999999', { name: 'x' })).status).toBe(404);
    const listRole = (await t.api('POST', '/api/roles/lists', { name: fresh() })).body.data;
    expect((await t.api('PUT', `/api/roles/users/${listRole.id}`, { name: 'x' })).status).toBe(404);
    const unknown = await t.api('PUT', `/api/roles/users/${role.id}`, { name, permissions: ['nope'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/"nope"/u);
  });

  it('a role change applies at the holder\'s next request', async () => {
    const bot = await createApiUser(t, { permissions: ['roles:get'] });
    const as = (method: string, url: string, payload?: object) =>
      t.app.inject({ method: method as 'GET', url, headers: { authorization: bot.authorization }, ...(payload ? { payload } : {}) });
    expect((await as('GET', '/api/roles/users')).statusCode).toBe(200);
    const denied = await as('POST', '/api/roles/users', { name: fresh() });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toBe('permission denied: roles:manage');
    await t.api('PUT', `/api/roles/users/${bot.userRoleId}`, { name: fresh(), permissions: ['roles:get', 'roles:manage'] });
    expect((await as('POST', '/api/roles/users', { name: fresh() })).statusCode).toBe(200);
  });
});

describe('list roles', () => {
  it('answer listmonk\'s shape, each list with its name and permissions; empty grants are dropped', async () => {
    const name = fresh('readers');
    const res = await t.api('POST', '/api/roles/lists', {
      name,
      lists: [{ id: listB.id, permissions: ['list:manage', 'list:get'] }, { id: listA.id, permissions: ['list:get'] }, { id: listA.id + 1000, permissions: [] }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'id', 'lists', 'name', 'updated_at']);
    expect(res.body.data).toMatchObject({
      name,
      lists: [{ id: listA.id, name: 'Alpha', permissions: ['list:get'] }, { id: listB.id, name: 'Beta', permissions: ['list:get', 'list:manage'] }],
    });
    const listed = (await t.api('GET', '/api/roles/lists')).body.data;
    expect(listed.find((r: { id: number }) => r.id === res.body.data.id)).toEqual(res.body.data);
    // User roles and list roles are listed apart.
    expect((await t.api('GET', '/api/roles/users')).body.data.map((r: { id: number }) => r.id)).not.toContain(res.body.data.id);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['an unknown list', { name: 'x', lists: [{ id: 999_999, permissions: ['list:get'] }] }, /^lists: list 999999 not found/u],
    ['an unknown list permission', { name: 'x', lists: [{ id: 1, permissions: ['list:get', 'list:delete'] }] }, /^lists\.0\.permissions: unknown list permission "list:delete"/u],
    ['a user permission in a list role', { name: 'x', lists: [{ id: 1, permissions: ['lists:get_all'] }] }, /unknown list permission "lists:get_all"/u],
    ['a list twice', { name: 'x', lists: [{ id: 1, permissions: ['list:get'] }, { id: 1, permissions: ['list:manage'] }] }, /^lists\.1\.id\b/u],
    ['a list id of 0', { name: 'x', lists: [{ id: 0, permissions: ['list:get'] }] }, /lists/u],
    ['a list without permissions field', { name: 'x', lists: [{ id: 1 }] }, /lists/u],
    ['a blank name', { name: '', lists: [] }, /^name\b/u],
  ];
  for (const [what, body, message] of bad) {
    it(`400 for ${what}, and nothing stored`, async () => {
      const before = [await count('roles'), await count('role_lists')];
      const res = await t.api('POST', '/api/roles/lists', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(message);
      expect([await count('roles'), await count('role_lists')]).toEqual(before);
    });
  }

  it('are updated with their lists replaced; a failed update changes nothing', async () => {
    const role = (await t.api('POST', '/api/roles/lists', { name: fresh(), lists: [{ id: listA.id, permissions: ['list:get'] }] })).body.data;
    const name = fresh('renamed');
    const res = await t.api('PUT', `/api/roles/lists/${role.id}`, { name, lists: [{ id: listB.id, permissions: ['list:manage'] }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: role.id, name, lists: [{ id: listB.id, name: 'Beta', permissions: ['list:manage'] }] });
    const failed = await t.api('PUT', `/api/roles/lists/${role.id}`, { name: 'other', lists: [{ id: 999_999, permissions: ['list:get'] }] });
    expect(failed.status).toBe(400);
    const after = (await t.api('GET', '/api/roles/lists')).body.data.find((r: { id: number }) => r.id === role.id);
    expect(after).toEqual(res.body.data);
    expect((await t.api('PUT', '/api/roles/lists/1', { name: 'x' })).status).toBe(400);
    expect((await t.api('PUT', '/api/roles/lists/999999', { name: 'x' })).status).toBe(404);
    const userRole = (await t.api('POST', '/api/roles/users', { name: fresh() })).body.data;
    expect((await t.api('PUT', `/api/roles/lists/${userRole.id}`, { name: 'x' })).status).toBe(404);
  });

  it('lose a deleted list', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Short-lived' })).body.data;
    const role = (await t.api('POST', '/api/roles/lists', { name: fresh(), lists: [{ id: list.id, permissions: ['list:get'] }, { id: listA.id, permissions: ['list:get'] }] })).body.data;
    expect((await t.api('DELETE', `/api/lists/${list.id}`)).status).toBe(200);
    const after = (await t.api('GET', '/api/roles/lists')).body.data.find((r: { id: number }) => r.id === role.id);
    expect(after.lists.map((l: { id: number }) => l.id)).toEqual([listA.id]);
  });
});

describe('deleting roles', () => {
  it('role 1 cannot be deleted; an unknown role is a 404', async () => {
    const res = await t.api('DELETE', '/api/roles/1');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Super Admin/u);
    expect((await t.api('DELETE', '/api/roles/999999')).status).toBe(404);
  });

  it('a user role in use is a 400 "role is in use", never a 500; once unused it goes', async () => {
    const bot = await createApiUser(t, { permissions: ['lists:get_all'] });
    const res = await t.api('DELETE', `/api/roles/${bot.userRoleId}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^role is in use/u);
    const other = (await t.api('POST', '/api/roles/users', { name: fresh() })).body.data;
    expect((await t.api('PUT', `/api/users/${bot.id}`, { user_role_id: other.id })).status).toBe(200);
    expect((await t.api('DELETE', `/api/roles/${bot.userRoleId}`)).status).toBe(200);
    expect((await t.api('GET', '/api/roles/users')).body.data.map((r: { id: number }) => r.id)).not.toContain(bot.userRoleId);
  });

  it('deleting a list role never deletes its users: they keep their accounts without a list role', async () => {
    const bot = await createApiUser(t, { permissions: ['lists:get_all'], lists: [{ id: listA.id, permissions: ['list:get'] }] });
    const before = await t.api('GET', `/api/users/${bot.id}`);
    expect(before.body.data.list_role).toMatchObject({ id: bot.listRoleId, lists: [{ id: listA.id, name: 'Alpha', permissions: ['list:get'] }] });
    expect((await t.api('DELETE', `/api/roles/${bot.listRoleId}`)).status).toBe(200);
    const after = await t.api('GET', `/api/users/${bot.id}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ id: bot.id, list_role_id: null, list_role: null });
    const me = await t.app.inject({ method: 'GET', url: '/api/profile', headers: { authorization: bot.authorization } });
    expect(me.statusCode).toBe(200);
    expect((await t.testDb.db.sql('SELECT 1 FROM role_lists WHERE role_id = $1', [bot.listRoleId])).length).toBe(0);
  });
});
