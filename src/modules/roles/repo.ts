/**
 * SQL access for user roles and list roles (queries.sql). A duplicate name within a type is a 409
 * naming `name` (roles_type_name_key), mapped here at the repo edge (conventions §3).
 */
import { violates, type Db, type Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { BadRequestError, ConflictError, FieldError } from '../../errors.js';
import type { ListRole, UserRole } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'role-user-view',
  'role-list-view',
  'role-type',
  'role-insert',
  'role-update',
  'role-lists-clear',
  'role-lists-insert',
  'role-existing-lists',
  'role-users-count',
  'role-delete',
]);

/** A role's type. */
export type RoleType = 'user' | 'list';

/** One list a list role grants, as written. */
export interface ListGrant {
  id: number;
  permissions: string[];
}

/** The refusal to delete a user role that users still have. */
export function roleInUse(id: number, users?: number): BadRequestError {
  const who = users === undefined ? 'users have it' : `${users} user${users === 1 ? ' has' : 's have'} it`;
  return new BadRequestError(`role is in use: ${who} as their user role (role ${id}); give them another role first`);
}

function conflict(err: unknown, type: RoleType): never {
  if (violates(err, 'roles_type_name_key')) throw new ConflictError(`name: a ${type} role with this name already exists`);
  throw err;
}

/** Roles table access. */
export class RoleRepo {
  constructor(readonly db: Db) {}

  /** User roles, oldest first; one when `id` is given. */
  async userRoles(id: number | null = null, q: Queryable = this.db): Promise<UserRole[]> {
    return q.run<UserRole>(Q['role-user-view'], { id });
  }

  /** List roles with their lists, oldest first; one when `id` is given. */
  async listRoles(id: number | null = null, q: Queryable = this.db): Promise<ListRole[]> {
    return q.run<ListRole>(Q['role-list-view'], { id });
  }

  /** The type of role `id`, or null when there is none. */
  async type(q: Queryable, id: number): Promise<RoleType | null> {
    const [row] = await q.run<{ type: RoleType }>(Q['role-type'], { id });
    return row?.type ?? null;
  }

  /** Inserts a role; 409 on a duplicate name. Returns its id. */
  async insert(q: Queryable, type: RoleType, name: string, permissions: string[]): Promise<number> {
    try {
      const [row] = await q.run<{ id: number }>(Q['role-insert'], { type, name, permissions });
      return row!.id;
    } catch (err) {
      conflict(err, type);
    }
  }

  /** Renames a role of `type` and replaces its permissions; false when there is no such role. */
  async update(q: Queryable, id: number, type: RoleType, name: string, permissions: string[]): Promise<boolean> {
    try {
      return (await q.run(Q['role-update'], { id, type, name, permissions })).length > 0;
    } catch (err) {
      conflict(err, type);
    }
  }

  /** Replaces the lists of list role `roleId`. */
  async replaceLists(q: Queryable, roleId: number, lists: ListGrant[]): Promise<void> {
    await q.run(Q['role-lists-clear'], { role_id: roleId });
    if (lists.length === 0) return;
    try {
      await q.run(Q['role-lists-insert'], { role_id: roleId, lists: JSON.stringify(lists) });
    } catch (err) {
      // A list deleted between the service's check and this insert.
      if (violates(err, 'role_lists_list_id_fkey')) throw new FieldError('lists', 'a list of this role no longer exists');
      throw err;
    }
  }

  /** The existing list ids among `ids`. */
  async existingLists(q: Queryable, ids: number[]): Promise<Set<number>> {
    return new Set((await q.run<{ id: number }>(Q['role-existing-lists'], { ids })).map((r) => r.id));
  }

  /** How many users have role `id` as their user role. */
  async usersWithRole(q: Queryable, id: number): Promise<number> {
    const [row] = await q.run<{ n: number }>(Q['role-users-count'], { id });
    return row?.n ?? 0;
  }

  /** Deletes role `id`; false when there was none. 400 when users still have it as their user role. */
  async delete(q: Queryable, id: number): Promise<boolean> {
    try {
      return (await q.run(Q['role-delete'], { id })).length > 0;
    } catch (err) {
      // A user given the role after the service's count (listmonk answers a 500 here; reference §3.4).
      if (violates(err, 'users_user_role_id_fkey')) throw roleInUse(id);
      throw err;
    }
  }
}
