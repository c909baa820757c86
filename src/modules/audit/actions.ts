/**
 * The audit log's action names (issue 16 "Identity" item 5): which state-changing route is recorded
 * under which stable name and resource type. This file is the one place the mapping is defined;
 * test/unit/audit-actions.test.ts pins every name of the current route table.
 *
 * A name is `<resource type>.<verb>` (`lists.update`). It is derived from the route's method and URL
 * pattern by one rule ({@link deriveAction}); {@link ACTION_OVERRIDES} names the routes whose derived
 * name would not say what they do (`POST /api/import/subscribers` starts an import), and the POST routes
 * that change nothing (previews), which are not recorded. Names are derived from the URL *pattern*, so
 * they do not change with the ids in a request, and a route added later gets a name without an edit
 * here (check it reads well; add an override when it does not).
 */

/** Methods whose requests change state and are audited (RFC 9110 §9.2.1: the unsafe methods). */
export const AUDITED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route is recorded as: the action and the resource type. */
export interface AuditAction {
  /** `<resource type>.<verb>`, lower case, `[a-z0-9_]` on both sides of the dot. */
  action: string;
  /** The kind of thing changed: the URL's first segment after `/api/` or `/admin/` (`lists`, `settings`). */
  resourceType: string;
}

/** An action name's shape. */
export const ACTION_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/u;

/**
 * Routes whose derived name is replaced, keyed `METHOD url-pattern`. `null`: the route changes nothing
 * (it renders a preview) and is not recorded.
 */
export const ACTION_OVERRIDES: Readonly<Record<string, AuditAction | null>> = {
  // Read-only POSTs: they render what a body describes and store nothing.
  'POST /api/campaigns/:id/preview': null,
  'POST /api/templates/preview': null,
  // Sub-resources and commands whose URL is not a plain collection or item.
  'POST /api/campaigns/:id/test': { action: 'campaigns.send_test', resourceType: 'campaigns' },
  'POST /api/import/subscribers': { action: 'import.start', resourceType: 'import' },
  'DELETE /api/import/subscribers': { action: 'import.stop', resourceType: 'import' },
  'PUT /api/subscribers/:id/blocklist': { action: 'subscribers.blocklist', resourceType: 'subscribers' },
  'PUT /api/subscribers/blocklist': { action: 'subscribers.blocklist', resourceType: 'subscribers' },
  'PUT /api/subscribers/query/blocklist': { action: 'subscribers.blocklist_by_query', resourceType: 'subscribers' },
  'POST /api/subscribers/query/delete': { action: 'subscribers.delete_by_query', resourceType: 'subscribers' },
  'PUT /api/subscribers/lists': { action: 'subscribers.manage_lists', resourceType: 'subscribers' },
  'PUT /api/subscribers/lists/:id': { action: 'subscribers.manage_lists', resourceType: 'subscribers' },
  'PUT /api/subscribers/query/lists': { action: 'subscribers.manage_lists_by_query', resourceType: 'subscribers' },
  'POST /api/subscribers/:id/optin': { action: 'subscribers.send_optin', resourceType: 'subscribers' },
  'PUT /api/templates/:id/default': { action: 'templates.set_default', resourceType: 'templates' },
  'POST /api/tx': { action: 'tx.send', resourceType: 'tx' },
  // Identity routes of issue 16 (listmonk reference §3), named here before they land.
  'POST /api/roles/users': { action: 'roles.create_user_role', resourceType: 'roles' },
  'POST /api/roles/lists': { action: 'roles.create_list_role', resourceType: 'roles' },
  'PUT /api/roles/users/:id': { action: 'roles.update_user_role', resourceType: 'roles' },
  'PUT /api/roles/lists/:id': { action: 'roles.update_list_role', resourceType: 'roles' },
  'PUT /api/users/:id/twofa': { action: 'users.enable_twofa', resourceType: 'users' },
  'DELETE /api/users/:id/twofa': { action: 'users.disable_twofa', resourceType: 'users' },
  'POST /admin/user/profile/twofa': { action: 'users.enable_twofa', resourceType: 'users' },
  'POST /admin/user/profile/twofa/disable': { action: 'users.disable_twofa', resourceType: 'users' },
  'POST /api/settings/smtp/test': { action: 'settings.test_smtp', resourceType: 'settings' },
  'POST /api/logout': { action: 'sessions.logout', resourceType: 'sessions' },
  'POST /admin/logout': { action: 'sessions.logout', resourceType: 'sessions' },
  // The roles admin pages (src/modules/roles/pages.tsx): the same names as the roles API.
  'POST /admin/users/roles': { action: 'roles.create_user_role', resourceType: 'roles' },
  'POST /admin/users/roles/:id': { action: 'roles.update_user_role', resourceType: 'roles' },
  'POST /admin/users/roles/:id/delete': { action: 'roles.delete', resourceType: 'roles' },
  'POST /admin/users/roles/:id/clone': { action: 'roles.create_user_role', resourceType: 'roles' },
  'POST /admin/users/roles/lists/:id/clone': { action: 'roles.create_list_role', resourceType: 'roles' },
  'POST /admin/users/roles/lists': { action: 'roles.create_list_role', resourceType: 'roles' },
  'POST /admin/users/roles/lists/:id': { action: 'roles.update_list_role', resourceType: 'roles' },
  'POST /admin/users/roles/lists/:id/delete': { action: 'roles.delete', resourceType: 'roles' },
  // Re-renders the list-role form with a row more or less; saves nothing.
  'POST /admin/users/roles/lists/rows': null,
  // The profile page posts to listmonk's /admin/user/profile (singular `user`): the same change as PUT /api/profile.
  'POST /admin/user/profile': { action: 'profile.update', resourceType: 'profile' },
  // The settings form (src/modules/settings/pages.tsx): the same changes as the API routes.
  'POST /admin/settings': { action: 'settings.update', resourceType: 'settings' },
  'POST /admin/settings/smtp/test': { action: 'settings.test_smtp', resourceType: 'settings' },
  // The Maintenance page's delete forms: named as the API routes doing the same deletes.
  'POST /admin/settings/maintenance/subscribers': { action: 'maintenance.delete_subscribers', resourceType: 'maintenance' },
  'POST /admin/settings/maintenance/subscriptions': { action: 'maintenance.delete_subscriptions_unconfirmed', resourceType: 'maintenance' },
  'POST /admin/settings/maintenance/analytics': { action: 'maintenance.delete_analytics', resourceType: 'maintenance' },
};

/** A URL segment as a name part: lower case, `-` and `.` become `_`. */
function namePart(segment: string): string {
  return segment.toLowerCase().replace(/[^a-z0-9]+/gu, '_').replace(/^_+|_+$/gu, '');
}

/**
 * The derived name of a route (no overrides). Segments after `/api/` or `/admin/` (or the leading
 * `/`): the first is the resource type; `:params` mark an item; the other words qualify the verb.
 * POST: a collection → `create`, an item → `update`, with words → the words (`:id/optin` → `optin`).
 * PUT/PATCH: `update`, with words `update_<words>`. DELETE: an item → `delete`, a collection →
 * `delete_many` (ids in the query), with words `delete_<words>`.
 */
export function deriveAction(method: string, url: string): AuditAction {
  const segments = url.replace(/^\/(api|admin)(\/|$)/u, '/').split('/').filter((s) => s !== '');
  const resourceType = namePart(segments[0] ?? '') || 'root';
  const rest = segments.slice(1);
  const hasParam = rest.some((s) => s.startsWith(':') || s.includes('*'));
  const words = rest.filter((s) => !s.startsWith(':') && !s.includes('*')).map(namePart).filter((w) => w !== '').join('_');
  let verb: string;
  switch (method.toUpperCase()) {
    case 'POST':
      verb = words !== '' ? words : hasParam ? 'update' : 'create';
      break;
    case 'DELETE':
      verb = words !== '' ? `delete_${words}` : hasParam ? 'delete' : 'delete_many';
      break;
    default:
      verb = words !== '' ? `update_${words}` : 'update';
  }
  return { action: `${resourceType}.${/^[a-z]/u.test(verb) ? verb : `x${verb}`}`, resourceType };
}

/**
 * How a request to route `url` with `method` is recorded, or null when it is not audited: a safe
 * method (GET, HEAD, OPTIONS), or a POST listed in {@link ACTION_OVERRIDES} as changing nothing.
 */
export function auditAction(method: string, url: string): AuditAction | null {
  const m = method.toUpperCase();
  if (!AUDITED_METHODS.has(m)) return null;
  const key = `${m} ${url}`;
  if (Object.hasOwn(ACTION_OVERRIDES, key)) return ACTION_OVERRIDES[key] ?? null;
  return deriveAction(m, url);
}
