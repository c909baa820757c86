/**
 * Rules for user roles and list roles (issue 16 "Identity" item 2; listmonk reference §3.4,
 * `cmd/roles.go`): names 1–2000 characters, unique per type (409); user-role permissions from the
 * catalogue and list-role permissions `list:get` / `list:manage` only (400 naming the unknown one); a
 * list role's lists must exist (400); role 1 (Super Admin) can be neither updated nor deleted; a user
 * role still in use cannot be deleted (400, where listmonk answers 500); deleting a list role leaves
 * its users without a list role (listmonk deletes them).
 */
import { BadRequestError, FieldError, NotFoundError } from '../../errors.js';
import { LIST_PERMISSIONS, PERMISSIONS, SUPER_ADMIN_ROLE_ID } from '../../http/access.js';
import { roleInUse, type ListGrant, type RoleRepo } from './repo.js';
import type { ListRole, ListRoleBody, UserRole, UserRoleBody } from './schemas.js';

/** listmonk's `stdInputMaxLen` for role names. */
const MAX_NAME = 2000;

/** A trimmed role name of 1–2000 characters; 400 naming `name`. */
export function validRoleName(input: string): string {
  const name = input.trim();
  const chars = [...name].length;
  if (chars < 1 || chars > MAX_NAME) throw new FieldError('name', `must be 1 to ${MAX_NAME} characters long`);
  return name;
}

/** Known, de-duplicated permissions in catalogue order; 400 `permissions: unknown permission "<p>"`. */
export function validPermissions(input: readonly string[] | undefined): string[] {
  const given = new Set(input ?? []);
  for (const p of given) {
    if (!(PERMISSIONS as readonly string[]).includes(p)) throw new FieldError('permissions', `unknown permission "${p.slice(0, 100)}"`);
  }
  return PERMISSIONS.filter((p) => given.has(p));
}

/**
 * A list role's lists, checked: each permission `list:get` or `list:manage` (400 naming the unknown
 * one), no list twice; lists without permissions are dropped (listmonk skips them).
 */
export function validListGrants(input: ListRoleBody['lists']): ListGrant[] {
  const out: ListGrant[] = [];
  const seen = new Set<number>();
  for (const [i, entry] of (input ?? []).entries()) {
    for (const p of entry.permissions) {
      if (!(LIST_PERMISSIONS as readonly string[]).includes(p)) throw new FieldError(`lists.${i}.permissions`, `unknown list permission "${p.slice(0, 100)}"`);
    }
    if (seen.has(entry.id)) throw new FieldError(`lists.${i}.id`, `list ${entry.id} appears more than once`);
    seen.add(entry.id);
    const permissions = LIST_PERMISSIONS.filter((p) => entry.permissions.includes(p));
    if (permissions.length > 0) out.push({ id: entry.id, permissions });
  }
  return out;
}

/** 400 for role 1 (listmonk: `Invalid ID(s)`, here with the reason). */
function superAdminRefusal(): BadRequestError {
  return new BadRequestError(`role ${SUPER_ADMIN_ROLE_ID} is the Super Admin role: it cannot be changed or deleted`);
}

/** User roles and list roles. */
export class RoleService {
  constructor(private readonly repo: RoleRepo) {}

  /** Every user role, oldest first (GET /api/roles/users). */
  async userRoles(): Promise<UserRole[]> {
    return this.repo.userRoles();
  }

  /** Every list role with its lists, oldest first (GET /api/roles/lists). */
  async listRoles(): Promise<ListRole[]> {
    return this.repo.listRoles();
  }

  /** Creates a user role (POST /api/roles/users). */
  async createUserRole(body: UserRoleBody): Promise<UserRole> {
    const name = validRoleName(body.name);
    const permissions = validPermissions(body.permissions);
    const id = await this.repo.db.tx((q) => this.repo.insert(q, 'user', name, permissions));
    return this.userRole(id);
  }

  /** Renames a user role and replaces its permissions (PUT /api/roles/users/:id); 404 unless a user role. */
  async updateUserRole(id: number, body: UserRoleBody): Promise<UserRole> {
    if (id === SUPER_ADMIN_ROLE_ID) throw superAdminRefusal();
    const name = validRoleName(body.name);
    const permissions = validPermissions(body.permissions);
    const found = await this.repo.db.tx((q) => this.repo.update(q, id, 'user', name, permissions));
    if (!found) throw new NotFoundError(`user role ${id} not found`);
    return this.userRole(id);
  }

  /** Creates a list role (POST /api/roles/lists); 400 naming an unknown list. */
  async createListRole(body: ListRoleBody): Promise<ListRole> {
    const name = validRoleName(body.name);
    const lists = validListGrants(body.lists);
    const id = await this.repo.db.tx(async (q) => {
      await this.checkLists(q, lists);
      const created = await this.repo.insert(q, 'list', name, []);
      await this.repo.replaceLists(q, created, lists);
      return created;
    });
    return this.listRole(id);
  }

  /** Renames a list role and replaces its lists (PUT /api/roles/lists/:id); 404 unless a list role. */
  async updateListRole(id: number, body: ListRoleBody): Promise<ListRole> {
    if (id === SUPER_ADMIN_ROLE_ID) throw superAdminRefusal();
    const name = validRoleName(body.name);
    const lists = validListGrants(body.lists);
    await this.repo.db.tx(async (q) => {
      if ((await this.repo.type(q, id)) !== 'list') throw new NotFoundError(`list role ${id} not found`);
      await this.checkLists(q, lists);
      await this.repo.update(q, id, 'list', name, []);
      await this.repo.replaceLists(q, id, lists);
    });
    return this.listRole(id);
  }

  /**
   * Deletes a user or list role (DELETE /api/roles/:id): 400 for role 1 and for a user role users still
   * have; a deleted list role leaves its users without one (ON DELETE SET NULL).
   */
  async delete(id: number): Promise<void> {
    if (id === SUPER_ADMIN_ROLE_ID) throw superAdminRefusal();
    await this.repo.db.tx(async (q) => {
      const type = await this.repo.type(q, id);
      if (type === null) throw new NotFoundError(`role ${id} not found`);
      if (type === 'user') {
        const users = await this.repo.usersWithRole(q, id);
        if (users > 0) throw roleInUse(id, users);
      }
      await this.repo.delete(q, id);
    });
  }

  /** 400 naming the first list of `lists` that does not exist. */
  private async checkLists(q: Parameters<RoleRepo['existingLists']>[0], lists: ListGrant[]): Promise<void> {
    if (lists.length === 0) return;
    const existing = await this.repo.existingLists(q, lists.map((l) => l.id));
    const i = lists.findIndex((l) => !existing.has(l.id));
    if (i >= 0) throw new FieldError('lists', `list ${lists[i]!.id} not found`);
  }

  private async userRole(id: number): Promise<UserRole> {
    const [role] = await this.repo.userRoles(id);
    if (role === undefined) throw new NotFoundError(`user role ${id} not found`);
    return role;
  }

  private async listRole(id: number): Promise<ListRole> {
    const [role] = await this.repo.listRoles(id);
    if (role === undefined) throw new NotFoundError(`list role ${id} not found`);
    return role;
  }
}
