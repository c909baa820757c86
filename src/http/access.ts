/**
 * Permissions and the signed-in principal (issue 16 "Identity"; listmonk reference §3.2, admin UI map §0).
 *
 * Every route of the route table declares what it needs in its config: `public: true` (no credentials),
 * `permission: 'authenticated'` (any signed-in user or API user: profile, dashboard) or one permission or
 * a list of alternatives (any one suffices, listmonk's `pm()` semantics). The same `can` answers the
 * route check, the navigation and the buttons (conventions §15: never hide without also refusing).
 */
import { ForbiddenError, UnauthorizedError } from '../errors.js';

/** listmonk's user-role permissions (`permissions.json`), grouped as listmonk groups them. */
export const PERMISSION_GROUPS = {
  lists: ['lists:get_all', 'lists:manage_all'],
  subscribers: ['subscribers:get', 'subscribers:get_all', 'subscribers:manage', 'subscribers:import', 'subscribers:sql_query', 'tx:send'],
  campaigns: ['campaigns:get', 'campaigns:get_all', 'campaigns:get_analytics', 'campaigns:manage', 'campaigns:manage_all', 'campaigns:send'],
  bounces: ['bounces:get', 'bounces:manage', 'webhooks:post_bounce'],
  media: ['media:get', 'media:manage'],
  templates: ['templates:get', 'templates:manage'],
  users: ['users:get', 'users:manage', 'roles:get', 'roles:manage'],
  settings: ['settings:get', 'settings:manage', 'settings:maintain'],
} as const;

/** One user-role permission, e.g. `subscribers:sql_query`. */
export type Permission = (typeof PERMISSION_GROUPS)[keyof typeof PERMISSION_GROUPS][number];

/** Every user-role permission, in catalogue order. */
export const PERMISSIONS: readonly Permission[] = Object.values(PERMISSION_GROUPS).flat();

/** Per-list permissions a list role grants (listmonk reference §3.2). */
export const LIST_PERMISSIONS = ['list:get', 'list:manage'] as const;
/** One per-list permission. */
export type ListPermission = (typeof LIST_PERMISSIONS)[number];

/** The Super Admin role's id: holds every permission; cannot be edited or deleted (reference §3.2). */
export const SUPER_ADMIN_ROLE_ID = 1;

/** True when `value` is a known user-role permission. */
export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** What a route needs: nothing but a signed-in principal, or one of the listed permissions. */
export type RouteAccess = 'authenticated' | Permission | readonly Permission[];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route needs (issue 16): checked after authentication, 403 when missing. */
    permission?: RouteAccess;
  }
  interface FastifyRequest {
    /** Who made the request; set by the authentication hook on every non-public route. */
    principal?: Principal;
  }
}

/** How a principal proved who it is. */
export type AuthMethod = 'session' | 'token' | 'legacy';

/**
 * The user behind a request: a signed-in admin user (session cookie), an API user (token), or the
 * legacy MAILROOM_ADMIN_USER (Basic credentials; Super Admin, as listmonk keeps its TOML admin).
 * `lists` maps list id → the per-list permissions its list role grants. Plain data, no methods, so it
 * can be built from one query and passed to views.
 */
export interface Principal {
  userId: number;
  username: string;
  name: string;
  email: string | null;
  type: 'user' | 'api';
  userRoleId: number;
  userRoleName: string;
  permissions: readonly Permission[];
  listRoleId: number | null;
  lists: ReadonlyMap<number, readonly ListPermission[]>;
  method: AuthMethod;
  /** The session's id hash and CSRF token when signed in with a cookie; null otherwise. */
  session: { id: string; csrf: string } | null;
}

/** True for the Super Admin role, which every check allows. */
export function isSuperAdmin(p: Principal): boolean {
  return p.userRoleId === SUPER_ADMIN_ROLE_ID;
}

/**
 * True when `p` holds any one of `perms` (listmonk's `$can`/`Can`: any-of; `group:*` matches any
 * permission of that group; the Super Admin holds all). No perms: true.
 */
export function can(p: Principal, ...perms: readonly string[]): boolean {
  if (perms.length === 0 || isSuperAdmin(p)) return true;
  return perms.some((want) =>
    want.endsWith(':*') ? p.permissions.some((have) => have.startsWith(want.slice(0, -1))) : (p.permissions as readonly string[]).includes(want),
  );
}

/** True when `p` may satisfy a route's declared access. */
export function allows(p: Principal, access: RouteAccess): boolean {
  if (access === 'authenticated') return true;
  return typeof access === 'string' ? can(p, access) : can(p, ...access);
}

/** The permission named in a 403 for `access` (listmonk names the last alternative). */
export function deniedName(access: RouteAccess): string {
  if (typeof access === 'string') return access;
  return access[access.length - 1] ?? 'unknown';
}

/**
 * True when `p` may read (`list:get`) or change (`list:manage`) list `listId`: the Super Admin, a user
 * role with `lists:get_all` / `lists:manage_all` (manage implies get), or the list role's entry
 * (listmonk's `$canList` / `HasListPerm`).
 */
export function canList(p: Principal, listId: number, perm: ListPermission): boolean {
  if (isSuperAdmin(p) || can(p, 'lists:manage_all')) return true;
  if (perm === 'list:get' && can(p, 'lists:get_all')) return true;
  const granted = p.lists.get(listId);
  if (granted === undefined) return false;
  return granted.includes(perm) || (perm === 'list:get' && granted.includes('list:manage'));
}

/**
 * The list ids `p` may access with `perm`, or null when it may access every list (Super Admin, or the
 * matching `*_all` permission). Services filter by this (listmonk's GetPermittedListIDs: an empty
 * answer matches nothing).
 */
export function permittedLists(p: Principal, perm: ListPermission): number[] | null {
  if (isSuperAdmin(p) || can(p, 'lists:manage_all') || (perm === 'list:get' && can(p, 'lists:get_all'))) return null;
  const out: number[] = [];
  for (const [id, granted] of p.lists) if (granted.includes(perm) || (perm === 'list:get' && granted.includes('list:manage'))) out.push(id);
  return out;
}

/** The principal of a request past authentication; 401 when there is none (a route the hook skipped). */
function signedIn(p: Principal | undefined): Principal {
  if (p === undefined) throw new UnauthorizedError();
  return p;
}

/**
 * In-handler check for a permission that depends on the input, beyond the route's declared one
 * (listmonk's `HasPerm` in handlers: a SQL `query` on the subscriber routes needs
 * `subscribers:sql_query`). Passes when `p` holds any one of `perms`.
 * @throws ForbiddenError `permission denied: <last of perms>` (listmonk's wording, reference §1.5).
 * @throws UnauthorizedError when the request has no principal.
 */
export function requirePermission(p: Principal | undefined, ...perms: Permission[]): void {
  if (!can(signedIn(p), ...perms)) throw new ForbiddenError(`permission denied: ${perms[perms.length - 1] ?? 'unknown'}`);
}

/**
 * In-handler check that `p` may read (`list:get`) or change (`list:manage`) every list of `listIds`
 * (listmonk's `HasListPerm` on the list routes; see canList).
 * @throws ForbiddenError `permission denied: <perm> on list <id>` for the first list refused.
 * @throws UnauthorizedError when the request has no principal.
 */
export function requireLists(p: Principal | undefined, perm: ListPermission, listIds: readonly number[]): void {
  const principal = signedIn(p);
  const refused = listIds.find((id) => !canList(principal, id, perm));
  if (refused !== undefined) throw new ForbiddenError(`permission denied: ${perm} on list ${refused}`);
}
