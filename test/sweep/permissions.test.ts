/**
 * Permissions, everywhere (issue 16 item 3): for every non-public route of the real route table, an
 * API user whose role holds every permission but the route's answers 403 `permission denied: <perm>`,
 * and one whose role holds just the route's permission (each alternative in turn, plus access to every
 * list, which list-scoped routes need to find anything) gets through. Routes listmonk leaves to any
 * signed-in user are called with an empty role; where their handler checks access to a list, an empty
 * role is refused and list access lets it through. The checks that depend on the input — a SQL `query`
 * needs `subscribers:sql_query`, a list role's `list:get`/`list:manage` — have their own cases.
 *
 * API users and roles are written with SQL (as migrations/0011_identity.sql defines them), so this file
 * does not depend on the users API it protects. Requests go through `app.inject`, one app per file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deniedName, PERMISSIONS, type ListPermission, type Permission, type RouteAccess } from '../../src/http/access.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { hashToken } from '../../src/modules/users/service.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart, type MultipartBody } from '../helpers/multipart.js';
import { concreteUrl } from '../helpers/routes.js';

let t: TestApp;
/** Fixtures the requests refer to; each route that deletes or changes state for good gets its own. */
let fx: { list: number; subscriber: number; email: string; campaign: number; template: number; media: number };
/** Media uploads land here, not in a directory other files share. */
const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-perms-'));

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true', MAILROOM_DATA_DIR: dataDir } });
  fx = { list: await freshList(), subscriber: 0, email: '', campaign: 0, template: 0, media: 0 };
  fx.subscriber = await freshSubscriber();
  fx.email = `sweep-${seq}@example.org`;
  fx.campaign = await freshCampaign();
  fx.template = await freshTemplate();
  fx.media = await freshMedia();
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let seq = 0;
/** Creates `what` through the API as the legacy admin (Super Admin); returns its id. */
async function create(url: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.api('POST', url, body);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return (res.body as { data: { id: number } }).data.id;
}
const freshList = () => create('/api/lists', { name: `Sweep list ${++seq}`, type: 'private', optin: 'single' });
const freshSubscriber = () => create('/api/subscribers', { email: `sweep-${++seq}@example.org`, name: 'Sweep', lists: [fx.list] });
const freshCampaign = (extra: Record<string, unknown> = {}) => create('/api/campaigns', { name: `Sweep ${++seq}`, subject: 'Sweep', lists: [fx.list], body: '<p>Hello</p>', ...extra });
/** An uploaded image. */
async function freshMedia(): Promise<number> {
  const png = multipart([{ name: 'file', filename: `fixture-${++seq}.png`, content: PNG, type: 'image/png' }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/media', headers: { authorization: AUTH, 'content-type': png.contentType }, payload: png.payload });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { data: { id: number } }).data.id;
}
/** A scheduled campaign (the only kind that may be deleted before it starts). */
async function scheduledCampaign(): Promise<number> {
  const id = await freshCampaign({ send_at: new Date(Date.now() + 86_400_000).toISOString() });
  expect((await t.api('PUT', `/api/campaigns/${id}/status`, { status: 'scheduled' })).status).toBe(200);
  return id;
}
const freshTemplate = () => create('/api/templates', { name: `Sweep ${++seq}`, type: 'campaign', body: '<main>{{ template "content" . }}</main>' });

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * A plausible valid request for a route: its URL (default: the pattern with sample ids), a JSON body or
 * a multipart one, and `needs`: what the handler checks beyond the route's declared permission.
 */
interface Sample {
  url?: string;
  body?: unknown;
  form?: MultipartBody;
  needs?: Permission[];
}

/**
 * The id of the API user whose role holds nothing, the caller of routes open to anyone signed in: the
 * two-factor routes act on the caller's own id only (another id is a 403 of its own).
 */
async function emptyRoleUserId(): Promise<number> {
  const username = (await apiUser([])).split(' ')[1]!.split(':')[0]!;
  const [row] = await t.deps.db.sql<{ id: number }>('SELECT id FROM users WHERE username = $1', [username]);
  return row!.id;
}
/** Requests per route (`METHOD pattern`); built on call, so a deleting request gets a fresh resource. */
const SAMPLES: Record<string, () => Sample | Promise<Sample>> = {
  'GET /api/users/:id/twofa/totp': async () => ({ url: `/api/users/${await emptyRoleUserId()}/twofa/totp` }),
  'PUT /api/users/:id/twofa': async () => ({ url: `/api/users/${await emptyRoleUserId()}/twofa`, body: { type: 'totp', secret: 'JBSWY3DPEHPK3PXP', code: '123456' } }),
  'DELETE /api/users/:id/twofa': async () => ({ url: `/api/users/${await emptyRoleUserId()}/twofa`, body: { password: 'not the password' } }),
  'GET /api/lists/:id': () => ({ url: `/api/lists/${fx.list}`, needs: ['lists:get_all'] }),
  'POST /api/lists': () => ({ body: { name: `Sweep list ${++seq}`, type: 'public', optin: 'single' } }),
  'PUT /api/lists/:id': () => ({ url: `/api/lists/${fx.list}`, body: { description: `changed ${++seq}` }, needs: ['lists:manage_all'] }),
  'DELETE /api/lists/:id': async () => ({ url: `/api/lists/${await freshList()}`, needs: ['lists:manage_all'] }),
  'DELETE /api/lists': async () => ({ url: `/api/lists?id=${await freshList()}`, needs: ['lists:manage_all'] }),

  'GET /api/subscribers': () => ({ url: `/api/subscribers?list_id=${fx.list}&per_page=5` }),
  'GET /api/subscribers/export': () => ({ url: `/api/subscribers/export?list_id=${fx.list}` }),
  'GET /api/subscribers/lists/:id': () => ({ url: `/api/subscribers/lists/${fx.list}` }),
  'GET /api/subscribers/:id': () => ({ url: `/api/subscribers/${fx.subscriber}` }),
  'GET /api/subscribers/:id/export': () => ({ url: `/api/subscribers/${fx.subscriber}/export` }),
  'POST /api/subscribers': () => ({ body: { email: `new-${++seq}@example.org`, name: 'New', lists: [fx.list] } }),
  'POST /api/subscribers/:id/optin': () => ({ url: `/api/subscribers/${fx.subscriber}/optin` }),
  'PUT /api/subscribers/:id': async () => ({ url: `/api/subscribers/${await freshSubscriber()}`, body: { email: `put-${++seq}@example.org`, name: 'Put', lists: [fx.list] } }),
  'PATCH /api/subscribers/:id': () => ({ url: `/api/subscribers/${fx.subscriber}`, body: { name: `Patched ${++seq}` } }),
  'PUT /api/subscribers/:id/blocklist': async () => ({ url: `/api/subscribers/${await freshSubscriber()}/blocklist` }),
  'PUT /api/subscribers/blocklist': async () => ({ body: { ids: [await freshSubscriber()] } }),
  'PUT /api/subscribers/lists': () => ({ body: { ids: [fx.subscriber], action: 'add', target_list_ids: [fx.list], status: 'confirmed' } }),
  'PUT /api/subscribers/lists/:id': () => ({ url: `/api/subscribers/lists/${fx.subscriber}`, body: { action: 'add', target_list_ids: [fx.list], status: 'confirmed' } }),
  'PUT /api/subscribers/query/blocklist': () => ({ body: { search: 'nobody-matches-this' } }),
  'POST /api/subscribers/query/delete': () => ({ body: { search: 'nobody-matches-this' } }),
  'PUT /api/subscribers/query/lists': () => ({ body: { search: 'nobody-matches-this', action: 'add', target_list_ids: [fx.list] } }),
  'DELETE /api/subscribers/:id': async () => ({ url: `/api/subscribers/${await freshSubscriber()}` }),
  'DELETE /api/subscribers': async () => ({ url: `/api/subscribers?id=${await freshSubscriber()}` }),

  'GET /api/import/subscribers/logs': () => ({}),
  'POST /api/import/subscribers': () => ({
    form: multipart([
      { name: 'params', value: JSON.stringify({ mode: 'subscribe', delim: ',', lists: [fx.list], overwrite: false }) },
      { name: 'file', filename: 'people.csv', content: `email,name\nimported-${++seq}@example.org,Imported\n`, type: 'text/csv' },
    ]),
  }),

  'GET /api/templates/:id': () => ({ url: `/api/templates/${fx.template}` }),
  'GET /api/templates/:id/preview': () => ({ url: `/api/templates/${fx.template}/preview` }),
  'POST /api/templates/preview': () => ({ body: { template_type: 'campaign', body: '<div>{{ template "content" . }}</div>' } }),
  'POST /api/templates': () => ({ body: { name: `Sweep ${++seq}`, type: 'campaign', body: '<main>{{ template "content" . }}</main>' } }),
  'PUT /api/templates/:id': () => ({ url: `/api/templates/${fx.template}`, body: { name: `Renamed ${++seq}` } }),
  'PUT /api/templates/:id/default': () => ({ url: `/api/templates/${fx.template}/default` }),
  'DELETE /api/templates/:id': async () => ({ url: `/api/templates/${await freshTemplate()}` }),

  'GET /api/campaigns/running/stats': () => ({ url: `/api/campaigns/running/stats?campaign_id=${fx.campaign}` }),
  'GET /api/campaigns/:id': () => ({ url: `/api/campaigns/${fx.campaign}` }),
  'GET /api/campaigns/:id/preview': () => ({ url: `/api/campaigns/${fx.campaign}/preview` }),
  'POST /api/campaigns/:id/preview': () => ({ url: `/api/campaigns/${fx.campaign}/preview`, body: { body: '<p>Other</p>' } }),
  'POST /api/campaigns': () => ({ body: { name: `Sweep ${++seq}`, subject: 'Sweep', lists: [fx.list], body: '<p>Hi</p>' } }),
  'PUT /api/campaigns/:id': () => ({ url: `/api/campaigns/${fx.campaign}`, body: { subject: `Changed ${++seq}` } }),
  'PUT /api/campaigns/:id/status': async () => ({ url: `/api/campaigns/${await freshCampaign()}/status`, body: { status: 'running' } }),
  'PUT /api/campaigns/:id/archive': () => ({ url: `/api/campaigns/${fx.campaign}/archive`, body: { archive: false } }),
  'DELETE /api/campaigns/:id': async () => ({ url: `/api/campaigns/${await scheduledCampaign()}` }),
  'POST /api/campaigns/:id/test': () => ({ url: `/api/campaigns/${fx.campaign}/test`, body: { subscribers: [fx.email] } }),
  'GET /api/campaigns/analytics/:type': () => ({ url: `/api/campaigns/analytics/views?id=${fx.campaign}` }),

  'GET /api/media/:id': () => ({ url: `/api/media/${fx.media}` }),
  'DELETE /api/media/:id': async () => ({ url: `/api/media/${await freshMedia()}` }),
  'PUT /api/settings': () => ({ body: { 'app.message_rate': 0 } }),
  'POST /api/media': () => ({ form: multipart([{ name: 'file', filename: `pixel-${++seq}.png`, content: PNG, type: 'image/png' }]) }),
  'POST /api/tx': () => ({ body: { subscriber_id: fx.subscriber, template_id: 999_999 } }),
};

/**
 * The request for `route`: its sample, or the pattern with no body and ids of nothing (987654), so a
 * route added without a sample cannot delete or change a fixture (user 1 is the legacy admin).
 */
async function sampleFor(route: RouteEntry): Promise<Sample> {
  return (await SAMPLES[`${route.method} ${route.url}`]?.()) ?? {};
}

/** Sends `sample` to `route` with `authorization`. */
async function send(route: Pick<RouteEntry, 'method' | 'url'>, sample: Sample, authorization: string) {
  const headers: Record<string, string> = { authorization };
  let payload: string | Buffer | undefined;
  if (sample.form !== undefined) {
    headers['content-type'] = sample.form.contentType;
    payload = sample.form.payload;
  } else if (sample.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(sample.body);
  }
  const url = sample.url ?? concreteUrl(route).replace(/^(?!\/)/u, '/').replace(/\/1(?=\/|$)/gu, '/987654');
  return t.app.inject({ method: route.method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
}

const headers = new Map<string, string>();
/**
 * The `Authorization` header of an API user whose user role holds `perms` and whose list role (when
 * given) grants `lists` (list id → per-list permissions); one user per distinct set.
 */
async function apiUser(perms: readonly Permission[], lists?: Record<number, ListPermission[]>): Promise<string> {
  const key = JSON.stringify([[...new Set(perms)].sort(), lists ?? null]);
  const known = headers.get(key);
  if (known !== undefined) return known;
  const n = headers.size + 1;
  const db = t.deps.db;
  const [role] = await db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`sweep role ${n}`, [...new Set(perms)]]);
  let listRole: number | null = null;
  if (lists !== undefined) {
    const [lr] = await db.sql<{ id: number }>(`INSERT INTO roles (type, name) VALUES ('list', $1) RETURNING id`, [`sweep list role ${n}`]);
    listRole = lr!.id;
    for (const [listId, p] of Object.entries(lists)) await db.sql(`INSERT INTO role_lists (role_id, list_id, permissions) VALUES ($1, $2, $3)`, [listRole, Number(listId), p]);
  }
  const token = randomBytes(24).toString('hex');
  const username = `sweep-api-${n}`;
  await db.sql(
    `INSERT INTO users (username, password_hash, type, user_role_id, list_role_id, name, email) VALUES ($1, $2, 'api', $3, $4, $1, $1 || '@api')`,
    [username, hashToken(token), role!.id, listRole],
  );
  const header = `token ${username}:${token}`;
  headers.set(key, header);
  return header;
}

/**
 * The message of a refusal: the `{"message"}` of a JSON answer, or for an HTML answer (admin pages) the
 * `permission denied: …` sentence in it.
 */
function refusal(res: { headers: Record<string, unknown>; body: string; json(): unknown }): string {
  if (String(res.headers['content-type'] ?? '').startsWith('application/json')) return (res.json() as { message: string }).message;
  return /permission denied: [\w:]+(?: on list \d+)?/u.exec(res.body)?.[0] ?? res.body.slice(0, 200);
}

/** The alternatives of a declared permission (empty for `authenticated`). */
function alternatives(access: RouteAccess): Permission[] {
  if (access === 'authenticated') return [];
  return typeof access === 'string' ? [access] : [...access];
}

/** How the granted requests were answered, for the report line. */
const byStatus = new Map<number, number>();
function count(status: number): void {
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
}

describe('every non-public route', () => {
  it('answers 403 naming its permission to a role without it, and lets a role with it through', async () => {
    const routes = t.app.routeTable.filter((r) => !r.public);
    expect(routes.length).toBeGreaterThan(60);
    let requests = 0;
    for (const route of routes) {
      const where = `${route.method} ${route.url}`;
      const access = route.permission;
      expect(access, `${where} declares no permission`).not.toBeNull();
      const alts = alternatives(access!);
      if (alts.length > 0) {
        const denied = await send(route, await sampleFor(route), await apiUser(PERMISSIONS.filter((p) => !alts.includes(p))));
        requests += 1;
        expect(denied.statusCode, `${where} without ${alts.join('|')}: ${denied.body.slice(0, 200)}`).toBe(403);
        expect(refusal(denied), where).toBe(`permission denied: ${deniedName(access!)}`);
      }
      for (const alt of alts.length > 0 ? alts : [null]) {
        let sample = await sampleFor(route);
        const granted: Permission[] = alt === null ? [] : [alt, 'lists:manage_all'];
        if (sample.needs !== undefined) {
          // What the handler checks beyond the gate is enforced too.
          const refused = await send(route, sample, await apiUser(granted));
          requests += 1;
          expect(refused.statusCode, `${where} without ${sample.needs.join('|')}: ${refused.body.slice(0, 200)}`).toBe(403);
          expect(refusal(refused), where).toMatch(/^permission denied: /u);
          granted.push(...sample.needs);
          sample = await sampleFor(route);
        }
        const res = await send(route, sample, await apiUser(granted));
        requests += 1;
        count(res.statusCode);
        expect([401, 403], `${where} with ${granted.join(', ') || 'no permission'} → ${res.statusCode} ${res.body.slice(0, 300)}`).not.toContain(res.statusCode);
      }
    }
    const summary = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`permission sweep: ${routes.length} routes, ${requests} requests; granted answers ${summary}`);
  }, 240_000);
});

describe('permissions that depend on the input', () => {
  const SQL = 'subscribers.id > 0';
  const NONE = 'subscribers.id < 0';
  const cases: Array<{ name: string; method: string; url: () => string; body?: () => Record<string, unknown>; gate: Permission }> = [
    { name: 'query', method: 'GET', url: () => `/api/subscribers?query=${encodeURIComponent(SQL)}`, gate: 'subscribers:get' },
    { name: 'export', method: 'GET', url: () => `/api/subscribers/export?query=${encodeURIComponent(SQL)}`, gate: 'subscribers:get' },
    { name: 'one list', method: 'GET', url: () => `/api/subscribers/lists/${fx.list}?query=${encodeURIComponent(SQL)}`, gate: 'subscribers:get' },
    { name: 'delete by query', method: 'POST', url: () => '/api/subscribers/query/delete', body: () => ({ query: NONE }), gate: 'subscribers:manage' },
    { name: 'blocklist by query', method: 'PUT', url: () => '/api/subscribers/query/blocklist', body: () => ({ query: NONE }), gate: 'subscribers:manage' },
    { name: 'lists by query', method: 'PUT', url: () => '/api/subscribers/query/lists', body: () => ({ query: NONE, action: 'add', target_list_ids: [fx.list] }), gate: 'subscribers:manage' },
  ];

  it.each(cases)('a SQL query on $method ($name) needs subscribers:sql_query', async (c) => {
    const route = { method: c.method, url: c.url() };
    const sample = (): Sample => ({ url: c.url(), ...(c.body ? { body: c.body() } : {}) });
    const denied = await send(route, sample(), await apiUser([c.gate, 'lists:manage_all']));
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json()).toEqual({ message: 'permission denied: subscribers:sql_query' });
    const allowed = await send(route, sample(), await apiUser([c.gate, 'lists:manage_all', 'subscribers:sql_query']));
    expect(allowed.statusCode, allowed.body.slice(0, 300)).toBe(200);
    const admin = await send(route, sample(), AUTH);
    expect(admin.statusCode, admin.body.slice(0, 300)).toBe(200);
  });

  it('a blank query needs no more than the route’s permission', async () => {
    const res = await send({ method: 'GET', url: '' }, { url: '/api/subscribers?query=%20%20' }, await apiUser(['subscribers:get']));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  });

  it('a list role grants list:get and list:manage on its lists only', async () => {
    const other = await freshList();
    const reader = await apiUser([], { [fx.list]: ['list:get'] });
    const manager = await apiUser([], { [fx.list]: ['list:manage'] });
    const get = (id: number, auth: string) => send({ method: 'GET', url: '' }, { url: `/api/lists/${id}` }, auth);
    const put = (id: number, auth: string) => send({ method: 'PUT', url: '' }, { url: `/api/lists/${id}`, body: { description: `by a list role ${++seq}` } }, auth);
    expect((await get(fx.list, reader)).statusCode).toBe(200);
    const readOther = await get(other, reader);
    expect(readOther.statusCode).toBe(403);
    expect(readOther.json()).toEqual({ message: `permission denied: list:get on list ${other}` });
    const write = await put(fx.list, reader);
    expect(write.statusCode).toBe(403);
    expect(write.json()).toEqual({ message: `permission denied: list:manage on list ${fx.list}` });
    expect((await get(fx.list, manager)).statusCode).toBe(200);
    expect((await put(fx.list, manager)).statusCode).toBe(200);
    expect((await put(other, manager)).statusCode).toBe(403);
    const many = await send({ method: 'DELETE', url: '' }, { url: `/api/lists?id=${other}&id=${fx.list}` }, manager);
    expect(many.statusCode).toBe(403);
    expect((await t.api('GET', `/api/lists/${other}`)).status).toBe(200);
  });
});
