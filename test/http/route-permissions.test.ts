/**
 * Every route declares who may call it (issue 16 item 3): the real route table, built as main.ts builds
 * it, has no route that is neither public nor declares a permission, and no declaration names an
 * unknown permission — so a route added without one fails here. The routes listmonk also has carry
 * exactly listmonk's gates (`cmd/handlers.go`, reference §2.2); the permission sweep
 * (test/sweep/permissions.test.ts) proves they are enforced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessProblem } from '../../src/http/route-table.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
});
afterAll(async () => t?.close());

const SUB_GET = ['subscribers:get_all', 'subscribers:get'];
const CAMP_GET = ['campaigns:get_all', 'campaigns:get'];
const CAMP_MANAGE = ['campaigns:manage_all', 'campaigns:manage'];

/**
 * listmonk's gate of each route both have (`pm(handler, perms…)` in cmd/handlers.go; `authenticated`
 * where listmonk registers the route without `pm`: the dashboard, health, logout, and the list routes,
 * whose handlers check access to the list itself). Add a route here when adding one listmonk has.
 */
const LISTMONK_GATES: Record<string, string | string[]> = {
  'GET /api/health': 'authenticated',
  'GET /api/dashboard/counts': 'authenticated',
  'GET /api/dashboard/charts': 'authenticated',
  'GET /api/settings': 'settings:get',
  'PUT /api/settings': 'settings:manage',
  'POST /api/settings/smtp/test': 'settings:manage',
  'GET /api/logs': 'settings:get',
  'DELETE /api/maintenance/subscribers/:type': 'settings:maintain',
  'DELETE /api/maintenance/analytics/:type': 'settings:maintain',
  'DELETE /api/maintenance/subscriptions/unconfirmed': 'settings:maintain',
  'GET /api/maintenance/analytics/:type/export': 'settings:maintain',
  'GET /api/subscribers': SUB_GET,
  'GET /api/subscribers/:id': SUB_GET,
  'GET /api/subscribers/:id/export': SUB_GET,
  'GET /api/subscribers/export': SUB_GET,
  'POST /api/subscribers': 'subscribers:manage',
  'PUT /api/subscribers/:id': 'subscribers:manage',
  'PATCH /api/subscribers/:id': 'subscribers:manage',
  'POST /api/subscribers/:id/optin': 'subscribers:manage',
  'PUT /api/subscribers/blocklist': 'subscribers:manage',
  'PUT /api/subscribers/:id/blocklist': 'subscribers:manage',
  'PUT /api/subscribers/lists/:id': 'subscribers:manage',
  'PUT /api/subscribers/lists': 'subscribers:manage',
  'DELETE /api/subscribers/:id': 'subscribers:manage',
  'DELETE /api/subscribers': 'subscribers:manage',
  'POST /api/subscribers/query/delete': 'subscribers:manage',
  'PUT /api/subscribers/query/blocklist': 'subscribers:manage',
  'PUT /api/subscribers/query/lists': 'subscribers:manage',
  'GET /api/import/subscribers': 'subscribers:import',
  'GET /api/import/subscribers/logs': 'subscribers:import',
  'POST /api/import/subscribers': 'subscribers:import',
  'DELETE /api/import/subscribers': 'subscribers:import',
  'GET /api/lists': 'authenticated',
  'GET /api/lists/:id': 'authenticated',
  'POST /api/lists': 'lists:manage_all',
  'PUT /api/lists/:id': 'authenticated',
  'DELETE /api/lists': 'authenticated',
  'DELETE /api/lists/:id': 'authenticated',
  'GET /api/campaigns': CAMP_GET,
  'GET /api/campaigns/running/stats': CAMP_GET,
  'GET /api/campaigns/:id': CAMP_GET,
  'GET /api/campaigns/analytics/:type': 'campaigns:get_analytics',
  'GET /api/campaigns/:id/preview': CAMP_GET,
  'POST /api/campaigns/:id/preview': CAMP_GET,
  'POST /api/campaigns/:id/test': CAMP_MANAGE,
  'POST /api/campaigns': CAMP_MANAGE,
  'PUT /api/campaigns/:id': CAMP_MANAGE,
  'PUT /api/campaigns/:id/status': 'campaigns:send',
  'PUT /api/campaigns/:id/archive': CAMP_MANAGE,
  'DELETE /api/campaigns/:id': CAMP_MANAGE,
  'GET /api/media': 'media:get',
  'GET /api/media/:id': 'media:get',
  'POST /api/media': 'media:manage',
  'DELETE /api/media/:id': 'media:manage',
  'GET /api/templates': 'templates:get',
  'GET /api/templates/:id': 'templates:get',
  'GET /api/templates/:id/preview': 'templates:get',
  'POST /api/templates/preview': 'templates:get',
  'POST /api/templates': 'templates:manage',
  'PUT /api/templates/:id': 'templates:manage',
  'PUT /api/templates/:id/default': 'templates:manage',
  'DELETE /api/templates/:id': 'templates:manage',
  'POST /api/tx': 'tx:send',
  'POST /api/logout': 'authenticated',
};

describe('the route table', () => {
  it('has no route that is neither public nor declares a known permission', () => {
    expect(t.app.routeTable.length).toBeGreaterThan(60);
    const problems = t.app.routeTable
      .map((r) => [`${r.method} ${r.url}`, accessProblem(r)] as const)
      .filter(([, problem]) => problem !== null)
      .map(([route, problem]) => `${route} ${problem}`);
    expect(problems).toEqual([]);
  });

  it('gates the routes listmonk has exactly as listmonk does', () => {
    const declared = new Map(t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.permission]));
    const wrong = Object.entries(LISTMONK_GATES)
      .filter(([route, gate]) => JSON.stringify(declared.get(route) ?? 'missing') !== JSON.stringify(gate))
      .map(([route, gate]) => `${route}: ${JSON.stringify(declared.get(route) ?? 'missing')}, listmonk ${JSON.stringify(gate)}`);
    expect(wrong).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('names the permissions each operation needs (x-permissions; empty: any signed-in user)', async () => {
    const doc = (await t.api('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, { 'x-permissions'?: string[]; security?: unknown[] }>> };
    expect(doc.paths['/api/settings']?.get?.['x-permissions']).toEqual(['settings:get']);
    expect(doc.paths['/api/campaigns/{id}']?.get?.['x-permissions']).toEqual(['campaigns:get_all', 'campaigns:get']);
    expect(doc.paths['/api/lists']?.get?.['x-permissions']).toEqual([]);
    expect(doc.paths['/api/public/lists']?.get?.['x-permissions']).toBeUndefined();
    const reference = await t.api('GET', '/api/docs');
    expect(reference.body).toContain('(needs settings:manage)');
  });
});

describe('accessProblem', () => {
  it.each([
    [{ public: true, permission: null }, null],
    [{ public: false, permission: 'authenticated' as const }, null],
    [{ public: false, permission: 'tx:send' as const }, null],
    [{ public: false, permission: ['campaigns:get_all', 'campaigns:get'] as const }, null],
    [{ public: false, permission: null }, 'declares neither `public: true` nor a permission'],
    [{ public: true, permission: 'tx:send' as const }, 'is public and also declares a permission'],
    [{ public: false, permission: [] as const }, 'declares an empty list of permissions'],
    [{ public: false, permission: ['lists:get', 'tx:send'] as never }, 'declares unknown permission(s): lists:get'],
  ])('%j → %s', (route, problem) => {
    expect(accessProblem(route)).toBe(problem);
  });
});
