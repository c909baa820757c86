/**
 * The admin navigation: listmonk's sidebar groups, entries, URLs, `data-cy` hooks and menu gates
 * (docs: ../shared/reference/listmonk-admin-ui.md §1.1 "Sidebar entries", v6 gates). Each entry is shown
 * only when `can(principal, ...gate)` holds: the same function the route table asks (conventions §15).
 * Pure data, no markup (the shell renders it).
 */
import { can, type Principal } from '../http/access.js';

/** One link of the navigation. */
export interface NavItem {
  /** Page id (listmonk's `lists.all` style), for `aria-current`. */
  id: string;
  /** Catalogue key of its label. */
  label: string;
  url: string;
  /** listmonk's `data-cy`. */
  cy: string;
  /** Any one of these permissions shows it (none: always). */
  gate: readonly string[];
  /** Extra URL prefixes that count as being on this page (e.g. `/admin/lists/` for a list's page). */
  also?: readonly string[];
}

/** A group of links (or a single top-level link when `items` is empty). */
export interface NavGroup {
  id: string;
  label: string;
  cy: string | null;
  /** The top-level link of a group without items (Dashboard). */
  url?: string;
  gate: readonly string[];
  items: readonly NavItem[];
}

/** listmonk's navigation, in its order (v6 gates; v6 URLs, except v7's `/admin/users/roles`), plus the audit log. */
export const NAVIGATION: readonly NavGroup[] = [
  { id: 'dashboard', label: 'menu.dashboard', cy: null, url: '/admin', gate: [], items: [] },
  {
    id: 'lists', label: 'globals.terms.lists', cy: 'lists', gate: [],
    items: [
      { id: 'lists.all', label: 'menu.allLists', url: '/admin/lists', cy: 'all-lists', gate: [], also: ['/admin/lists/'] },
      { id: 'lists.forms', label: 'menu.forms', url: '/admin/lists/forms', cy: 'forms', gate: [] },
    ],
  },
  {
    id: 'subscribers', label: 'globals.terms.subscribers', cy: 'subscribers', gate: ['subscribers:*', 'bounces:get'],
    items: [
      { id: 'subscribers.all', label: 'menu.allSubscribers', url: '/admin/subscribers', cy: 'all-subscribers', gate: ['subscribers:get_all', 'subscribers:get'], also: ['/admin/subscribers/'] },
      { id: 'subscribers.import', label: 'menu.import', url: '/admin/subscribers/import', cy: 'import', gate: ['subscribers:import'] },
      { id: 'subscribers.bounces', label: 'menu.bounces', url: '/admin/subscribers/bounces', cy: 'bounces', gate: ['bounces:get'] },
    ],
  },
  {
    id: 'campaigns', label: 'globals.terms.campaigns', cy: 'campaigns', gate: ['campaigns:*', 'media:*', 'templates:get'],
    items: [
      { id: 'campaigns.all', label: 'menu.allCampaigns', url: '/admin/campaigns', cy: 'all-campaigns', gate: ['campaigns:get', 'campaigns:get_all'], also: ['/admin/campaigns/'] },
      { id: 'campaigns.new', label: 'menu.newCampaign', url: '/admin/campaigns/new', cy: 'new-campaign', gate: ['campaigns:manage', 'campaigns:manage_all'] },
      { id: 'campaigns.media', label: 'menu.media', url: '/admin/campaigns/media', cy: 'media', gate: ['media:*'] },
      { id: 'campaigns.templates', label: 'menu.templates', url: '/admin/campaigns/templates', cy: 'templates', gate: ['templates:get'] },
      { id: 'campaigns.analytics', label: 'menu.analytics', url: '/admin/campaigns/analytics', cy: 'analytics', gate: ['campaigns:get_analytics'] },
    ],
  },
  {
    id: 'users', label: 'menu.users', cy: 'users', gate: ['users:*', 'roles:*'],
    items: [
      { id: 'users.users', label: 'menu.users', url: '/admin/users', cy: 'users', gate: ['users:get'], also: ['/admin/users/'] },
      { id: 'users.userRoles', label: 'menu.userRoles', url: '/admin/users/roles', cy: 'userRoles', gate: ['roles:get'], also: ['/admin/users/roles/'] },
      { id: 'users.listRoles', label: 'menu.listRoles', url: '/admin/users/roles/lists', cy: 'listRoles', gate: ['roles:get'], also: ['/admin/users/roles/lists/'] },
      // Mailroom's own (listmonk has no audit log): the same gate as GET /api/audit.
      { id: 'users.audit', label: 'menu.auditLog', url: '/admin/users/audit', cy: 'audit', gate: ['users:get'] },
    ],
  },
  {
    id: 'settings', label: 'menu.settings', cy: 'settings', gate: ['settings:*'],
    items: [
      { id: 'settings.all', label: 'menu.settings', url: '/admin/settings', cy: 'all-settings', gate: ['settings:get'], also: ['/admin/settings/'] },
      { id: 'settings.logs', label: 'menu.logs', url: '/admin/settings/logs', cy: 'logs', gate: ['settings:get'] },
      { id: 'settings.maintenance', label: 'menu.maintenance', url: '/admin/settings/maintenance', cy: 'maintenance', gate: ['settings:maintain'], also: ['/admin/settings/maintenance/'] },
    ],
  },
];

/** The navigation as `principal` may see it: groups and items whose gate it passes, empty groups dropped. */
export function visibleNavigation(principal: Principal, nav: readonly NavGroup[] = NAVIGATION): NavGroup[] {
  const out: NavGroup[] = [];
  for (const g of nav) {
    if (!can(principal, ...g.gate)) continue;
    const items = g.items.filter((i) => can(principal, ...i.gate));
    if (g.items.length > 0 && items.length === 0) continue;
    out.push({ ...g, items });
  }
  return out;
}

/**
 * The id of the entry for `path` (a URL path without query): an exact URL match first, then the longest
 * `also` prefix; null when none matches.
 */
export function currentEntry(path: string, nav: readonly NavGroup[] = NAVIGATION): string | null {
  let best: { id: string; len: number } | null = null;
  for (const g of nav) {
    if (g.url === path) return g.id;
    for (const i of g.items) {
      if (i.url === path) return i.id;
      for (const p of i.also ?? []) if (path.startsWith(p) && (best === null || p.length > best.len)) best = { id: i.id, len: p.length };
    }
  }
  return best?.id ?? null;
}
