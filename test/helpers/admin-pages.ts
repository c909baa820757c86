/**
 * Every admin page, read from the real route table (issue 16 "Done when": axe on every page, screenshots
 * of every page, a limited user who cannot reach what its role forbids): which GET routes are pages,
 * the concrete URL to open for each (path parameters filled with seeded ids), a little seeded data for
 * those ids, signed-in users, and matching a link back to its route. Pages that land later are picked
 * up without edits; a new `:param` falls back to the id of the resource its URL names, or 1.
 */
import type { RouteEntry } from '../../src/http/route-table.js';
import { randomToken, sessionId } from '../../src/modules/auth/sessions.js';
import type { TestApp } from './app.js';

/** Ids of the data {@link seedAdminData} creates. */
export interface SeededIds {
  list: number;
  subscriber: number;
  campaign: number;
  template: number;
  userRole: number;
  listRole: number;
  apiUser: number;
  loginUser: number;
}

/** The routes that are admin pages to open: `GET /admin` and `GET /admin/…`, without assets or wildcards. */
export function adminGetPages(table: readonly RouteEntry[]): RouteEntry[] {
  const seen = new Set<string>();
  return table.filter((r) => {
    if (r.method !== 'GET' || !(r.url === '/admin' || r.url.startsWith('/admin/'))) return false;
    if (r.url.startsWith('/admin/static/') || r.url.includes('*') || r.url.endsWith('/')) return false;
    if (seen.has(r.url)) return false;
    seen.add(r.url);
    return true;
  });
}

/** What a page needs to show its normal state: a query string, or a cookie session of its own. */
export interface PageSetup {
  /** Appended to the URL after `?`. */
  query?: string;
  /** A `session` cookie token to open the page with instead of the context's own. */
  session?: string;
  /** The status the page answers when not 200: a GET form opened without its fields re-renders with errors (422). */
  status?: number;
}

/**
 * Per-page preparation, keyed by route URL (a page not listed is opened bare): the reset form needs a
 * live reset link's token (stored as its SHA-256, as src/modules/auth/password-reset.ts stores it);
 * the 2FA prompt needs a session that still owes its code; a GET form action answers 422 bare.
 */
const SETUPS: Record<string, (t: TestApp, ids: SeededIds) => Promise<PageSetup>> = {
  '/admin/reset': async (t, ids) => {
    const token = randomToken();
    await t.deps.db.sql(`INSERT INTO password_resets (id, user_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')`, [sessionId(token), ids.loginUser]);
    return { query: `token=${token}` };
  },
  // The export form's GET action (it sends a filled form on to the CSV download): opened bare, it shows
  // the form with the errors beside the fields, which is what is checked (axe, CSP) here.
  '/admin/settings/maintenance/export': async () => ({ status: 422 }),
  '/admin/login/twofa': async (t, ids) => ({ session: await t.deps.sessions.start(ids.loginUser, { ip: '127.0.0.1', userAgent: 'admin pages sweep' }, true) }),
};

/** Prepares what `route`'s page needs (see SETUPS); nothing for most pages. */
export async function prepareAdminPage(t: TestApp, route: Pick<RouteEntry, 'url'>, ids: SeededIds): Promise<PageSetup> {
  return (await SETUPS[route.url]?.(t, ids)) ?? {};
}

/**
 * Which seeded id fills a route's path parameters: the exact route URL first, then the longest URL prefix
 * naming a resource; anything else gets 1 (Mailroom's first template, the Super Admin role, …).
 */
const ID_BY_URL: Record<string, keyof SeededIds> = {
  '/admin/subscribers/lists/:id': 'list',
};
const ID_BY_PREFIX: [string, keyof SeededIds][] = [
  ['/admin/users/roles/lists/', 'listRole'],
  ['/admin/users/roles/users/', 'userRole'],
  ['/admin/users/roles/', 'userRole'],
  ['/admin/users/', 'loginUser'],
  ['/admin/lists/', 'list'],
  ['/admin/subscribers/', 'subscriber'],
  ['/admin/campaigns/templates/', 'template'],
  ['/admin/templates/', 'template'],
  ['/admin/campaigns/', 'campaign'],
];

/** The URL (path and `setup`'s query) to open for an admin page route, its parameters filled from `ids`. */
export function adminPageUrl(route: Pick<RouteEntry, 'url'>, ids: SeededIds, setup: PageSetup = {}): string {
  const key = ID_BY_URL[route.url] ?? ID_BY_PREFIX.find(([prefix]) => route.url.startsWith(prefix))?.[1];
  const path = route.url.replace(/:(\w+)/gu, () => String(key === undefined ? 1 : ids[key]));
  return setup.query === undefined ? path : `${path}?${setup.query}`;
}

/** A file-name-safe name for a page URL: `/admin/users/roles/users/3` → `admin-users-roles-users-3`. */
export function pageSlug(url: string): string {
  return url.replace(/^\//u, '').replace(/[^a-z0-9]+/giu, '-').replace(/-+$/u, '') || 'root';
}

/** Creates `what` through the API as the legacy admin; returns its id. Throws with the answer when refused. */
async function create(t: TestApp, url: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.api('POST', url, body);
  if (res.status !== 200) throw new Error(`seeding ${url} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: { id: number } }).data.id;
}

/** The password of the users {@link seedAdminData} and {@link createLoginUser} create. */
export const SEED_PASSWORD = 'a good long password';

/**
 * Seeds a little of everything an admin page shows, through the API as the legacy admin: a list, a
 * subscriber on it, a campaign to it, a user role, a list role granting the list, an API user and a
 * login user (Super Admin). Returns their ids (the template is Mailroom's default, id 1).
 */
export async function seedAdminData(t: TestApp): Promise<SeededIds> {
  const list = await create(t, '/api/lists', { name: 'Weekly letter', type: 'public', optin: 'single', description: 'News every Friday' });
  const subscriber = await create(t, '/api/subscribers', { email: 'reader@example.org', name: 'Rae Reader', lists: [list], status: 'enabled' });
  const campaign = await create(t, '/api/campaigns', { name: 'Friday issue', subject: 'This week', lists: [list], body: '<p>Hello</p>' });
  const userRole = await create(t, '/api/roles/users', { name: 'Editors', permissions: ['lists:get_all', 'subscribers:get', 'campaigns:get'] });
  const listRole = await create(t, '/api/roles/lists', { name: 'Weekly readers', lists: [{ id: list, permissions: ['list:get'] }] });
  const apiUser = await create(t, '/api/users', { username: 'reporting-bot', type: 'api', user_role_id: userRole });
  const loginUser = await create(t, '/api/users', {
    username: 'ada', name: 'Ada Admin', email: 'ada@example.org', type: 'user', password: SEED_PASSWORD, password_login: true, user_role_id: 1,
  });
  return { list, subscriber, campaign, template: 1, userRole, listRole, apiUser, loginUser };
}

/**
 * Creates a login user whose user role holds exactly `permissions` (a new role named `roleName`), through
 * the API as the legacy admin; returns the user's id.
 */
export async function createLoginUser(t: TestApp, username: string, roleName: string, permissions: readonly string[]): Promise<number> {
  const role = await create(t, '/api/roles/users', { name: roleName, permissions });
  return create(t, '/api/users', { username, name: username, email: `${username}@example.org`, type: 'user', password: SEED_PASSWORD, password_login: true, user_role_id: role });
}

/** The GET route of `table` whose pattern matches the path `path` (exact routes first), or undefined. */
export function routeForPath(table: readonly RouteEntry[], path: string): RouteEntry | undefined {
  const gets = table.filter((r) => r.method === 'GET');
  const exact = gets.find((r) => r.url === path);
  if (exact !== undefined) return exact;
  return gets.find((r) => {
    if (!r.url.includes(':')) return false;
    const pattern = new RegExp(`^${r.url.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))).join('/')}$`, 'u');
    return pattern.test(path);
  });
}
