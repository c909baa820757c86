/**
 * Principals for tests that need a user with limited rights (issue 16 "Identity"): a user role (and a
 * list role when lists are given) and an API user holding them, all created through the users and
 * roles APIs as the legacy admin, so the helper exercises the same paths a client would.
 */
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** What {@link createApiUser} creates. */
export interface ApiUserSpec {
  /** User-role permissions, e.g. `['lists:get_all']`. */
  permissions: string[];
  /** Per-list permissions for a list role, e.g. `[{ id: 3, permissions: ['list:get'] }]`. */
  lists?: { id: number; permissions: string[] }[];
}

/** An API user made by {@link createApiUser}: its ids, token and ready `Authorization` value. */
export interface ApiUser {
  id: number;
  username: string;
  token: string;
  /** `token <username>:<token>` (listmonk's form; Basic `username:token` works too). */
  authorization: string;
  userRoleId: number;
  listRoleId: number | null;
}

let seq = 0;

/**
 * Creates a user role with `permissions` (and a list role with `lists`), then an API user with them,
 * through `POST /api/roles/users`, `POST /api/roles/lists` and `POST /api/users` as the legacy admin
 * (`t.api`). Fails the test when any call is refused.
 */
export async function createApiUser(t: TestApp, spec: ApiUserSpec): Promise<ApiUser> {
  seq += 1;
  const tag = `${process.pid}-${seq}-${Date.now().toString(36)}`;
  const role = await t.api('POST', '/api/roles/users', { name: `test role ${tag}`, permissions: spec.permissions });
  expect(role.status, JSON.stringify(role.body)).toBe(200);
  let listRoleId: number | null = null;
  if (spec.lists !== undefined) {
    const listRole = await t.api('POST', '/api/roles/lists', { name: `test list role ${tag}`, lists: spec.lists });
    expect(listRole.status, JSON.stringify(listRole.body)).toBe(200);
    listRoleId = listRole.body.data.id as number;
  }
  const username = `api-${tag}`;
  const user = await t.api('POST', '/api/users', { username, type: 'api', user_role_id: role.body.data.id, list_role_id: listRoleId });
  expect(user.status, JSON.stringify(user.body)).toBe(200);
  const token = user.body.data.password as string;
  return { id: user.body.data.id, username, token, authorization: `token ${username}:${token}`, userRoleId: role.body.data.id, listRoleId };
}
