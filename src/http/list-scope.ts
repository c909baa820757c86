/**
 * List-scoped access (issue 16 "Identity" item 2; listmonk reference §3.2, §4.2, §4.3): without the
 * `*:get_all` permissions a user sees only the lists its list role grants, and only the subscribers and
 * campaigns of those lists. Services take the request's principal and turn it into a **scope**: the ids
 * of the lists that bound what it may see (null: no bound), passed to SQL as one optional parameter
 * (`:scope::int[] IS NULL OR EXISTS (… list_id = ANY(:scope))`), so totals stay exact and paging stays
 * on the indexes. Nothing is filtered in JS after paging.
 *
 * A missing principal (internal callers: workers, tests of services, the CLI) means "no bound": the
 * authentication hook sets one on every non-public route, and public routes never reach these services
 * with a principal to restrict.
 *
 * Where Mailroom and listmonk differ (deliberately, each in the stricter direction):
 * - `list_id` filters naming only lists outside the scope match nothing (listmonk falls back to every
 *   permitted list, answering list A's subscribers to a request for list B).
 * - managing a campaign without `campaigns:manage_all` needs `list:manage` on one of its lists, and the
 *   lists a campaign may target are those the user manages (listmonk: lists it may read).
 */
import { ForbiddenError } from '../errors.js';
import { canList, can, isSuperAdmin, permittedLists, type Principal } from './access.js';

/** The list ids that bound what a principal may see or change; null when nothing is bounded. */
export type ListScope = number[] | null;

/**
 * The lists whose subscribers `p` may see (listmonk `hasSubPerm` / `GetPermittedListIDs`): null with
 * `subscribers:get_all`, `lists:get_all` or `lists:manage_all` (or no principal); otherwise the lists
 * its list role grants `list:get` or `list:manage` on (possibly none: then nothing matches).
 */
export function subscriberScope(p: Principal | undefined): ListScope {
  if (p === undefined || isSuperAdmin(p) || can(p, 'subscribers:get_all')) return null;
  return permittedLists(p, 'list:get');
}

/**
 * The lists whose campaigns `p` may read (`get`) or change (`manage`) (listmonk `checkCampaignPerm`):
 * null with `campaigns:get_all` (get) / `campaigns:manage_all` (manage), with the matching `lists:*_all`,
 * or without a principal; otherwise the lists its list role grants `list:get` (get) or `list:manage`
 * (manage) on. A campaign is in scope when it targets at least one of them.
 */
export function campaignScope(p: Principal | undefined, need: 'get' | 'manage'): ListScope {
  if (p === undefined || isSuperAdmin(p)) return null;
  if (need === 'get' && can(p, 'campaigns:get_all', 'campaigns:manage_all')) return null;
  if (need === 'manage' && can(p, 'campaigns:manage_all')) return null;
  return permittedLists(p, need === 'get' ? 'list:get' : 'list:manage');
}

/** The lists `p` may read (`list:get`, implied by `list:manage`); null for all (GET /api/lists). */
export function listReadScope(p: Principal | undefined): ListScope {
  return p === undefined ? null : permittedLists(p, 'list:get');
}

/** The lists `p` may change (`list:manage`); null for all. */
export function listManageScope(p: Principal | undefined): ListScope {
  return p === undefined ? null : permittedLists(p, 'list:manage');
}

/** True when list `id` is inside `scope` (null: every list). */
export function inScope(scope: ListScope, id: number): boolean {
  return scope === null || scope.includes(id);
}

/**
 * Throws 403 `permission denied` unless `p` may read (`list:get`) or change (`list:manage`) every list
 * of `ids` (listmonk `HasListPerm`: `GET/PUT/DELETE /api/lists/:id`, `DELETE /api/lists?id=`).
 */
export function requireListAccess(p: Principal | undefined, perm: 'list:get' | 'list:manage', ids: readonly number[]): void {
  if (p === undefined) return;
  for (const id of ids) if (!canList(p, id, perm)) throw new ForbiddenError('permission denied');
}

/**
 * The lists among `ids` that `p` may change (listmonk `FilterListsByPerm(manage)`), in the given order.
 * Throws 403 `Permission denied: lists` when lists were given and none is permitted (reference §4.3).
 */
export function manageableLists(p: Principal | undefined, ids: readonly number[]): number[] {
  const scope = listManageScope(p);
  if (scope === null) return [...ids];
  const out = ids.filter((id) => scope.includes(id));
  if (ids.length > 0 && out.length === 0) throw new ForbiddenError('Permission denied: lists');
  return out;
}

/**
 * A subscriber's membership entries as `p` may see them (listmonk `maskRestrictedSubLists`): lists it
 * cannot read keep their id and subscription fields but are named `*Unknown`, flagged
 * `restricted: true`, and lose `description`. Unchanged with `lists:get_all` / `lists:manage_all`.
 */
export function maskMemberships<M extends { id: number; name: string }>(p: Principal | undefined, lists: M[]): Array<M & { restricted?: true }> {
  if (p === undefined || permittedLists(p, 'list:get') === null) return lists;
  return lists.map((m) => {
    if (canList(p, m.id, 'list:get')) return m;
    const { description: _d, ...rest } = m as M & { description?: unknown };
    return { ...(rest as M), name: '*Unknown', restricted: true as const };
  });
}
