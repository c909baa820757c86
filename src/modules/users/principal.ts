/**
 * Loading the principal behind a request (src/http/access.ts `Principal`) from the database: the user,
 * its user role's permissions and its list role's per-list permissions, in one query
 * (principal.sql). Used by the authentication hook (src/http/auth.ts); it decides what a disabled user
 * or a wrong password means, this module only reads and shapes.
 */
import type { Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { isPermission, LIST_PERMISSIONS, type AuthMethod, type ListPermission, type Permission, type Principal } from '../../http/access.js';

const Q = loadQueries(new URL('./principal.sql', import.meta.url), ['principal-by-user-id', 'principal-by-username']);

/** One row of principal.sql: the user and its roles, as stored. */
export interface PrincipalRow {
  user_id: number;
  username: string;
  name: string;
  email: string | null;
  type: 'user' | 'api';
  status: 'enabled' | 'disabled';
  /** The MAILROOM_ADMIN_USER row, managed by the environment. */
  legacy: boolean;
  password_login: boolean;
  twofa_type: 'none' | 'totp';
  user_role_id: number;
  user_role_name: string;
  /** The user role's permissions as stored (unknown names are dropped by {@link toPrincipal}). */
  permissions: string[];
  list_role_id: number | null;
  /** The list role's lists: `[{list_id, permissions}]`, `[]` without a list role. */
  lists: { list_id: number; permissions: string[] }[];
}

/** A {@link PrincipalRow} with the stored hash (scrypt `scrypt$…`, or `sha256$<hex>` for API tokens; null: none). */
export interface PrincipalRowWithHash extends PrincipalRow {
  password_hash: string | null;
}

/** The row for user `userId` (any status), or null when there is no such user. */
export async function loadPrincipalRow(q: Queryable, userId: number): Promise<PrincipalRow | null> {
  const [row] = await q.run<PrincipalRow>(Q['principal-by-user-id'], { user_id: userId });
  return row ?? null;
}

/** The row for `username` (any status) with its stored hash, or null when there is no such user. */
export async function loadPrincipalRowByUsername(q: Queryable, username: string): Promise<PrincipalRowWithHash | null> {
  const [row] = await q.run<PrincipalRowWithHash>(Q['principal-by-username'], { username });
  return row ?? null;
}

/**
 * Shapes a row into a {@link Principal} for the request: `method` is how it authenticated, `session`
 * the session's id hash and CSRF token for cookie sign-ins (null otherwise). Permissions the catalogue
 * does not know are dropped, so a stale role row cannot grant a name the code never checks.
 */
export function toPrincipal(row: PrincipalRow, method: AuthMethod, session: Principal['session'] = null): Principal {
  const lists = new Map<number, readonly ListPermission[]>();
  for (const entry of row.lists) {
    lists.set(entry.list_id, entry.permissions.filter((p): p is ListPermission => (LIST_PERMISSIONS as readonly string[]).includes(p)));
  }
  return {
    userId: row.user_id,
    username: row.username,
    name: row.name,
    email: row.email,
    type: row.type,
    userRoleId: row.user_role_id,
    userRoleName: row.user_role_name,
    permissions: row.permissions.filter((p): p is Permission => isPermission(p)),
    listRoleId: row.list_role_id,
    lists,
    method,
    session,
  };
}
