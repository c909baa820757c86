/**
 * Loads the principal of a request (src/http/access.ts) from the database: the user, its user role's
 * permissions and its list role's per-list permissions, in one query. Nothing is cached between
 * requests except the legacy admin's password check (src/modules/users/service.ts), so a disabled user,
 * a changed role or a deleted session takes effect on every instance at the next request.
 */
import type { Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { isPermission, LIST_PERMISSIONS, type AuthMethod, type ListPermission, type Permission, type Principal } from '../../http/access.js';

const Q = loadQueries(new URL('./principal.sql', import.meta.url), ['principal-by-user-id', 'principal-by-username']);

/** A user row as the principal queries return it (password_hash included, for the caller to check). */
export interface PrincipalRow {
  id: number;
  username: string;
  name: string;
  email: string | null;
  type: 'user' | 'api';
  password_hash: string | null;
  legacy: boolean;
  password_login: boolean;
  twofa_type: 'none' | 'totp';
  user_role_id: number;
  user_role_name: string;
  permissions: string[];
  list_role_id: number | null;
  lists: { id: number; permissions: string[] }[];
}

/** The enabled user with id `id`, or null. */
export async function principalRowById(db: Queryable, id: number): Promise<PrincipalRow | null> {
  const [row] = await db.run<PrincipalRow>(Q['principal-by-user-id'], { id });
  return row ?? null;
}

/** The enabled user named `username`, or null. */
export async function principalRowByUsername(db: Queryable, username: string): Promise<PrincipalRow | null> {
  const [row] = await db.run<PrincipalRow>(Q['principal-by-username'], { username });
  return row ?? null;
}

/**
 * Builds the principal from a row. Unknown permission strings (written by a newer release) are
 * dropped rather than trusted. `session` is the session's id hash and CSRF token for cookie sign-in.
 */
export function toPrincipal(row: PrincipalRow, method: AuthMethod, session: Principal['session'] = null): Principal {
  const lists = new Map<number, ListPermission[]>();
  const listRows = typeof row.lists === 'string' ? (JSON.parse(row.lists) as PrincipalRow['lists']) : row.lists;
  for (const l of listRows) {
    lists.set(Number(l.id), l.permissions.filter((p): p is ListPermission => (LIST_PERMISSIONS as readonly string[]).includes(p)));
  }
  return {
    userId: row.id,
    username: row.username,
    name: row.name || row.username,
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
