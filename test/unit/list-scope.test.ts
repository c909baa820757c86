/**
 * The list-scope rules (src/http/list-scope.ts; issue 16, listmonk reference §3.2), table-driven on
 * plain principals.
 */
import { describe, expect, it } from 'vitest';
import type { ListPermission, Permission, Principal } from '../../src/http/access.js';
import {
  campaignScope, listManageScope, listReadScope, manageableLists, maskMemberships, requireListAccess, subscriberScope,
} from '../../src/http/list-scope.js';

/** A principal with user-role `permissions` and list role `lists` (list id → permissions). */
function principal(permissions: Permission[], lists: Record<number, ListPermission[]> = {}, roleId = 7): Principal {
  return {
    userId: 2, username: 'u', name: 'u', email: null, type: 'api', userRoleId: roleId, userRoleName: 'r', permissions,
    listRoleId: 3, lists: new Map(Object.entries(lists).map(([id, p]) => [Number(id), p])), method: 'token', session: null,
  };
}

const roleOn1and2 = { 1: ['list:get', 'list:manage'], 2: ['list:get'] } as Record<number, ListPermission[]>;

describe('scopes', () => {
  it.each([
    ['no principal (internal caller)', undefined, null],
    ['Super Admin', principal([], {}, 1), null],
    ['subscribers:get_all', principal(['subscribers:get_all'], roleOn1and2), null],
    ['lists:get_all', principal(['lists:get_all']), null],
    ['list role', principal(['subscribers:get'], roleOn1and2), [1, 2]],
    ['no list role', principal(['subscribers:get']), []],
  ])('subscriberScope: %s', (_name, p, want) => {
    expect(subscriberScope(p)).toEqual(want);
  });

  it.each([
    ['campaigns:get_all reads all', principal(['campaigns:get_all'], roleOn1and2), 'get', null],
    ['campaigns:get_all does not manage all', principal(['campaigns:get_all'], roleOn1and2), 'manage', [1]],
    ['campaigns:manage_all', principal(['campaigns:manage_all']), 'manage', null],
    ['list role, get', principal(['campaigns:get'], roleOn1and2), 'get', [1, 2]],
    ['list role, manage', principal(['campaigns:manage'], roleOn1and2), 'manage', [1]],
    ['lists:manage_all', principal(['lists:manage_all']), 'manage', null],
  ] as const)('campaignScope: %s', (_name, p, need, want) => {
    expect(campaignScope(p, need)).toEqual(want);
  });

  it('lists: read and manage scopes follow the list role', () => {
    const p = principal([], roleOn1and2);
    expect(listReadScope(p)).toEqual([1, 2]);
    expect(listManageScope(p)).toEqual([1]);
    expect(listReadScope(principal(['lists:get_all']))).toBeNull();
    expect(listManageScope(principal(['lists:get_all']))).toEqual([]);
  });
});

describe('checks', () => {
  it('requireListAccess answers 403 permission denied for a list without access', () => {
    const p = principal([], roleOn1and2);
    expect(() => requireListAccess(p, 'list:get', [1, 2])).not.toThrow();
    expect(() => requireListAccess(p, 'list:manage', [2])).toThrow(expect.objectContaining({ statusCode: 403, message: 'permission denied' }));
    expect(() => requireListAccess(undefined, 'list:manage', [9])).not.toThrow();
  });

  it('manageableLists keeps the manageable lists and refuses when none is left', () => {
    const p = principal([], roleOn1and2);
    expect(manageableLists(p, [3, 1, 2])).toEqual([1]);
    expect(manageableLists(p, [])).toEqual([]);
    expect(() => manageableLists(p, [2, 3])).toThrow(expect.objectContaining({ statusCode: 403, message: 'Permission denied: lists' }));
    expect(manageableLists(principal(['lists:manage_all']), [2, 3])).toEqual([2, 3]);
  });

  it('maskMemberships renames unreadable lists, flags them and drops their description', () => {
    const lists = [
      { id: 1, name: 'One', description: 'd1' },
      { id: 5, name: 'Five', description: 'd5' },
    ];
    expect(maskMemberships(principal([], roleOn1and2), lists)).toEqual([
      { id: 1, name: 'One', description: 'd1' },
      { id: 5, name: '*Unknown', restricted: true },
    ]);
    expect(maskMemberships(principal(['lists:get_all']), lists)).toEqual(lists);
    expect(maskMemberships(undefined, lists)).toEqual(lists);
  });
});
