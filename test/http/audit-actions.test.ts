/**
 * The audit log's action names (src/modules/audit/actions.ts): a table of every state-changing route,
 * checked against the mapping, and a sweep proving the table covers the real route table, so a route
 * added later is named on purpose (issue 16 "Identity" item 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAME, auditAction, deriveAction } from '../../src/modules/audit/actions.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** `METHOD pattern` → [action, resource type], or null for a POST that changes nothing (not recorded). */
const EXPECTED: Record<string, [string, string] | null> = {
  'POST /api/campaigns': ['campaigns.create', 'campaigns'],
  'PUT /api/campaigns/:id': ['campaigns.update', 'campaigns'],
  'DELETE /api/campaigns/:id': ['campaigns.delete', 'campaigns'],
  'PUT /api/campaigns/:id/archive': ['campaigns.update_archive', 'campaigns'],
  'PUT /api/campaigns/:id/status': ['campaigns.update_status', 'campaigns'],
  'POST /api/campaigns/:id/test': ['campaigns.send_test', 'campaigns'],
  'POST /api/campaigns/:id/preview': null,
  'POST /api/import/subscribers': ['import.start', 'import'],
  'DELETE /api/import/subscribers': ['import.stop', 'import'],
  'POST /api/lists': ['lists.create', 'lists'],
  'PUT /api/lists/:id': ['lists.update', 'lists'],
  'DELETE /api/lists/:id': ['lists.delete', 'lists'],
  'DELETE /api/lists': ['lists.delete_many', 'lists'],
  'POST /api/media': ['media.create', 'media'],
  'DELETE /api/media/:id': ['media.delete', 'media'],
  'PUT /api/settings': ['settings.update', 'settings'],
  'POST /api/subscribers': ['subscribers.create', 'subscribers'],
  'PUT /api/subscribers/:id': ['subscribers.update', 'subscribers'],
  'PATCH /api/subscribers/:id': ['subscribers.update', 'subscribers'],
  'DELETE /api/subscribers/:id': ['subscribers.delete', 'subscribers'],
  'DELETE /api/subscribers': ['subscribers.delete_many', 'subscribers'],
  'PUT /api/subscribers/:id/blocklist': ['subscribers.blocklist', 'subscribers'],
  'PUT /api/subscribers/blocklist': ['subscribers.blocklist', 'subscribers'],
  'POST /api/subscribers/:id/optin': ['subscribers.send_optin', 'subscribers'],
  'PUT /api/subscribers/lists': ['subscribers.manage_lists', 'subscribers'],
  'PUT /api/subscribers/lists/:id': ['subscribers.manage_lists', 'subscribers'],
  'PUT /api/subscribers/query/blocklist': ['subscribers.blocklist_by_query', 'subscribers'],
  'POST /api/subscribers/query/delete': ['subscribers.delete_by_query', 'subscribers'],
  'PUT /api/subscribers/query/lists': ['subscribers.manage_lists_by_query', 'subscribers'],
  'POST /api/templates': ['templates.create', 'templates'],
  'PUT /api/templates/:id': ['templates.update', 'templates'],
  'DELETE /api/templates/:id': ['templates.delete', 'templates'],
  'PUT /api/templates/:id/default': ['templates.set_default', 'templates'],
  'POST /api/templates/preview': null,
  'POST /api/tx': ['tx.send', 'tx'],
  'POST /api/logout': ['sessions.logout', 'sessions'],
  'POST /admin/logout': ['sessions.logout', 'sessions'],
  'POST /admin/users/roles': ['roles.create_user_role', 'roles'],
  'POST /admin/users/roles/:id': ['roles.update_user_role', 'roles'],
  'POST /admin/users/roles/:id/delete': ['roles.delete', 'roles'],
  'POST /admin/users/roles/:id/clone': ['roles.create_user_role', 'roles'],
  'POST /admin/users/roles/lists/:id/clone': ['roles.create_list_role', 'roles'],
  'POST /admin/users/roles/lists': ['roles.create_list_role', 'roles'],
  'POST /admin/users/roles/lists/:id': ['roles.update_list_role', 'roles'],
  'POST /admin/users/roles/lists/:id/delete': ['roles.delete', 'roles'],
  'POST /admin/users/roles/lists/rows': null,
  // The users pages' forms (src/modules/users/pages.tsx): the same names as the API routes doing the same.
  'POST /admin/users': ['users.create', 'users'],
  'POST /admin/users/:id': ['users.update', 'users'],
  'POST /admin/users/:id/delete': ['users.delete', 'users'],
  'POST /admin/users/:id/regenerate-token': ['users.regenerate_token', 'users'],
  'POST /admin/user/profile': ['profile.update', 'profile'],
  // Identity and maintenance routes of issue 16 (listmonk reference §3, §12), named before they land.
  'POST /api/users': ['users.create', 'users'],
  'PUT /api/users/:id': ['users.update', 'users'],
  'DELETE /api/users/:id': ['users.delete', 'users'],
  'DELETE /api/users': ['users.delete_many', 'users'],
  'PUT /api/users/:id/twofa': ['users.enable_twofa', 'users'],
  'DELETE /api/users/:id/twofa': ['users.disable_twofa', 'users'],
  'POST /admin/user/profile/twofa': ['users.enable_twofa', 'users'],
  'POST /admin/user/profile/twofa/disable': ['users.disable_twofa', 'users'],
  'PUT /api/profile': ['profile.update', 'profile'],
  'POST /api/roles/users': ['roles.create_user_role', 'roles'],
  'POST /api/roles/lists': ['roles.create_list_role', 'roles'],
  'PUT /api/roles/users/:id': ['roles.update_user_role', 'roles'],
  'PUT /api/roles/lists/:id': ['roles.update_list_role', 'roles'],
  'DELETE /api/roles/:id': ['roles.delete', 'roles'],
  'POST /api/settings/smtp/test': ['settings.test_smtp', 'settings'],
  'POST /admin/settings': ['settings.update', 'settings'],
  'POST /admin/settings/smtp/test': ['settings.test_smtp', 'settings'],
  'DELETE /api/maintenance/subscribers/:type': ['maintenance.delete_subscribers', 'maintenance'],
  'DELETE /api/maintenance/analytics/:type': ['maintenance.delete_analytics', 'maintenance'],
  'DELETE /api/maintenance/subscriptions/unconfirmed': ['maintenance.delete_subscriptions_unconfirmed', 'maintenance'],
  // The Maintenance page's delete forms (src/modules/maintenance/pages.tsx), named as their API routes.
  'POST /admin/settings/maintenance/subscribers': ['maintenance.delete_subscribers', 'maintenance'],
  'POST /admin/settings/maintenance/subscriptions': ['maintenance.delete_subscriptions_unconfirmed', 'maintenance'],
  'POST /admin/settings/maintenance/analytics': ['maintenance.delete_analytics', 'maintenance'],
};

describe('auditAction', () => {
  for (const [route, want] of Object.entries(EXPECTED)) {
    it(`${route} → ${want === null ? 'not recorded' : want[0]}`, () => {
      const [method, url] = route.split(' ') as [string, string];
      const got = auditAction(method, url);
      expect(got === null ? null : [got.action, got.resourceType]).toEqual(want);
      if (got !== null) expect(got.action).toMatch(ACTION_NAME);
    });
  }

  it('records no safe method', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(auditAction(method, '/api/lists')).toBeNull();
  });

  it('derives names for admin form posts the same way as for the API', () => {
    const cases: Array<[string, string, string]> = [
      ['POST', '/admin/lists', 'lists.create'],
      ['POST', '/admin/lists/:id', 'lists.update'],
      ['POST', '/admin/lists/:id/delete', 'lists.delete'],
      ['POST', '/admin/settings/maintenance/orphans', 'settings.maintenance_orphans'],
      ['PUT', '/api/some-thing/:id/do-it', 'some_thing.update_do_it'],
    ];
    for (const [method, url, action] of cases) expect(deriveAction(method, url).action, `${method} ${url}`).toBe(action);
  });
});

describe('the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('has an expected audit name (or "not recorded") in this table for every state-changing route that is not public', () => {
    const missing = t.app.routeTable
      .filter((r) => !r.public && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method))
      .map((r) => `${r.method} ${r.url}`)
      .filter((key) => !Object.hasOwn(EXPECTED, key))
      .map((key) => {
        const [method, url] = key.split(' ') as [string, string];
        return `${key} (would be ${auditAction(method, url)?.action ?? 'not recorded'}: add it to EXPECTED, or an override to src/modules/audit/actions.ts)`;
      });
    expect(missing).toEqual([]);
  });

  it('names every recorded route well: `<resource type>.<verb>`, its resource type first', () => {
    // Names may repeat on purpose: a bulk and a single-item form of one change, or an admin form post
    // and the API route doing the same thing, share a name; method and path tell them apart.
    for (const r of t.app.routeTable) {
      const a = r.public ? null : auditAction(r.method, r.url);
      if (a === null) continue;
      expect(a.action, `${r.method} ${r.url}`).toMatch(ACTION_NAME);
      expect(a.action.startsWith(`${a.resourceType}.`), `${r.method} ${r.url}`).toBe(true);
    }
  });
});
