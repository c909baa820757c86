/**
 * List-scoped access (issue 16 "Identity" item 2; listmonk reference §3.2, §4.2, §4.3): without the
 * `*:get_all` permissions a user sees only the lists its list role grants, and only the subscribers
 * and campaigns of those lists. The setup is written by the legacy admin (Super Admin); the limited
 * API user's roles are written with SQL, as in identity-auth.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/modules/users/service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';

let t: TestApp;
/** List A (the limited user's), list B (not), list C (read-only for the limited user). */
let A: number;
let B: number;
let C: number;
/** Subscribers: onlyA, onlyB, both (A and B), orphan (no list). */
const sub: Record<'onlyA' | 'onlyB' | 'both' | 'orphan', number> = { onlyA: 0, onlyB: 0, both: 0, orphan: 0 };
let campA: number;
let campB: number;
/** The limited API user's Authorization header. */
let limited: Record<string, string>;

/** An API user with a user role of `permissions` and a list role of `lists` (list id → permissions). */
async function apiUser(name: string, permissions: string[], lists: Record<number, string[]>): Promise<Record<string, string>> {
  const token = randomBytes(24).toString('hex');
  const [urole] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`${name} user role`, permissions]);
  const [lrole] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name) VALUES ('list', $1) RETURNING id`, [`${name} list role`]);
  for (const [listId, perms] of Object.entries(lists)) {
    await t.deps.db.sql(`INSERT INTO role_lists (role_id, list_id, permissions) VALUES ($1, $2, $3)`, [lrole!.id, Number(listId), perms]);
  }
  await t.deps.db.sql(
    `INSERT INTO users (username, password_hash, type, user_role_id, list_role_id, email) VALUES ($1, $2, 'api', $3, $4, $5)`,
    [name, hashToken(token), urole!.id, lrole!.id, `${name}@api`],
  );
  return { authorization: `token ${name}:${token}` };
}

async function ok<T = any>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await t.api(method, url, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as T;
}

beforeAll(async () => {
  t = await buildTestApp();
  A = (await ok('POST', '/api/lists', { name: 'List A' })).id;
  B = (await ok('POST', '/api/lists', { name: 'List B', description: 'secret B' })).id;
  C = (await ok('POST', '/api/lists', { name: 'List C' })).id;
  sub.onlyA = (await ok('POST', '/api/subscribers', { email: 'a@example.com', lists: [A] })).id;
  sub.onlyB = (await ok('POST', '/api/subscribers', { email: 'b@example.com', lists: [B] })).id;
  sub.both = (await ok('POST', '/api/subscribers', { email: 'ab@example.com', lists: [A, B], attribs: { city: 'Oslo' } })).id;
  sub.orphan = (await ok('POST', '/api/subscribers', { email: 'none@example.com' })).id;
  for (let i = 0; i < 3; i++) await ok('POST', '/api/subscribers', { email: `b${i}@example.com`, lists: [B], attribs: { city: 'Oslo' } });
  campA = (await ok('POST', '/api/campaigns', { name: 'To A', subject: 'A', lists: [A], body: '<p>a</p>' })).id;
  campB = (await ok('POST', '/api/campaigns', { name: 'To B', subject: 'B', lists: [B], body: '<p>b</p>' })).id;
  limited = await apiUser('limited', ['subscribers:get', 'subscribers:manage', 'subscribers:import', 'campaigns:get', 'campaigns:manage', 'campaigns:get_analytics'], {
    [A]: ['list:get', 'list:manage'],
    [C]: ['list:get'],
  });
});
afterAll(async () => {
  await t?.close();
});

const as = (method: string, url: string, body?: unknown) => t.api(method, url, body, limited);

describe('lists', () => {
  it('GET /api/lists shows only the lists the list role grants, with a matching total', async () => {
    const res = await as('GET', '/api/lists?per_page=all');
    expect(res.status).toBe(200);
    expect(res.body.data.results.map((l: { id: number }) => l.id).sort()).toEqual([A, C].sort());
    expect(res.body.data.total).toBe(2);
    const minimal = await as('GET', '/api/lists?minimal=true');
    expect(minimal.body.data.results.map((l: { id: number }) => l.id).sort()).toEqual([A, C].sort());
  });

  it('GET /api/lists/:id is 403 for a list without access; PUT and DELETE need list:manage', async () => {
    expect((await as('GET', `/api/lists/${A}`)).status).toBe(200);
    const denied = await as('GET', `/api/lists/${B}`);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/^permission denied/u);
    expect((await as('PUT', `/api/lists/${C}`, { name: 'C renamed' })).status).toBe(403);
    expect((await as('DELETE', `/api/lists/${C}`)).status).toBe(403);
    expect((await as('DELETE', `/api/lists?id=${A}&id=${B}`)).status).toBe(403);
    expect((await ok('GET', `/api/lists/${A}`)).name).toBe('List A');
    expect((await as('PUT', `/api/lists/${A}`, { name: 'List A' })).status).toBe(200);
  });
});

describe('subscribers', () => {
  it('GET /api/subscribers counts and pages only subscribers of permitted lists', async () => {
    const res = await as('GET', '/api/subscribers?per_page=all');
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.results.map((s: { id: number }) => s.id).sort()).toEqual([sub.onlyA, sub.both].sort());
    const paged = await as('GET', '/api/subscribers?per_page=1&page=2');
    expect(paged.body.data.total).toBe(2);
    expect(paged.body.data.results).toHaveLength(1);
  });

  it('a list_id outside the scope matches nothing; one inside filters as usual', async () => {
    expect((await as('GET', `/api/subscribers?list_id=${B}`)).body.data.total).toBe(0);
    expect((await as('GET', `/api/subscribers?list_id=${A}`)).body.data.total).toBe(2);
    expect((await as('GET', `/api/subscribers?list_id=${A}&list_id=${B}`)).body.data.total).toBe(2);
    expect((await as('GET', `/api/subscribers/lists/${B}`)).status).toBe(403);
  });

  it('search stays inside the scope', async () => {
    const res = await as('GET', '/api/subscribers?search=b');
    expect(res.body.data.results.map((s: { email: string }) => s.email)).toEqual(['ab@example.com']);
    expect(res.body.data.total).toBe(1);
  });

  it('a segmentation query is ANDed with the scope', async () => {
    // The SQL query needs subscribers:sql_query: a second user that has it, on the same lists.
    const sql = await apiUser('sql', ['subscribers:get', 'subscribers:sql_query'], { [A]: ['list:get'] });
    const q = encodeURIComponent("subscribers.attribs->>'city' = 'Oslo'");
    const res = await t.api('GET', `/api/subscribers?query=${q}&per_page=all`, undefined, sql);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.results.map((s: { id: number }) => s.id)).toEqual([sub.both]);
    expect((await t.api('GET', `/api/subscribers?query=${q}&per_page=all`)).body.data.total).toBe(4);
  });

  it('GET /api/subscribers/:id is 403 for a subscriber in no permitted list', async () => {
    const res = await as('GET', `/api/subscribers/${sub.onlyB}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(`Permission denied: subscriber: ${sub.onlyB}`);
    expect((await as('GET', `/api/subscribers/${sub.orphan}`)).status).toBe(403);
    expect((await as('GET', `/api/subscribers/${sub.onlyA}`)).status).toBe(200);
  });

  it('a subscriber in A and B shows B masked', async () => {
    const res = await as('GET', `/api/subscribers/${sub.both}`);
    expect(res.status).toBe(200);
    const lists = res.body.data.lists as Array<Record<string, unknown>>;
    expect(lists.find((l) => l.id === A)).toMatchObject({ name: 'List A' });
    expect(lists.find((l) => l.id === A)).not.toHaveProperty('restricted');
    const b = lists.find((l) => l.id === B)!;
    expect(b).toMatchObject({ name: '*Unknown', restricted: true });
    expect(b).not.toHaveProperty('description');
    const page = await as('GET', '/api/subscribers?per_page=all');
    const inPage = page.body.data.results.find((s: { id: number }) => s.id === sub.both);
    expect(inPage.lists.find((l: { id: number }) => l.id === B).name).toBe('*Unknown');
    // The Super Admin sees the name.
    expect((await ok('GET', `/api/subscribers/${sub.both}`)).lists.find((l: { id: number }) => l.id === B).name).toBe('List B');
  });

  it('creating a subscriber into B only is 403; into A and B it joins A only', async () => {
    const denied = await as('POST', '/api/subscribers', { email: 'new-b@example.com', lists: [B] });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Permission denied: lists');
    const made = await as('POST', '/api/subscribers', { email: 'new-ab@example.com', lists: [A, B] });
    expect(made.status).toBe(200);
    expect(made.body.data.lists).toEqual([A]);
    // Read-only list C is not manageable either.
    expect((await as('POST', '/api/subscribers', { email: 'new-c@example.com', lists: [C] })).status).toBe(403);
    await ok('DELETE', `/api/subscribers/${made.body.data.id}`);
  });

  it('PUT keeps memberships of lists the user cannot manage', async () => {
    const res = await as('PUT', `/api/subscribers/${sub.both}`, { email: 'ab@example.com', lists: [], attribs: { city: 'Oslo' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.lists.map((l: { id: number }) => l.id)).toEqual([B]);
    expect((await as('GET', `/api/subscribers/${sub.both}`)).status).toBe(403);
    await ok('PUT', `/api/subscribers/lists`, { ids: [sub.both], action: 'add', target_list_ids: [A] });
    expect((await as('PUT', `/api/subscribers/${sub.onlyB}`, { email: 'b@example.com', lists: [A] })).status).toBe(403);
  });

  it('bulk actions by id and by filter stay inside the scope', async () => {
    expect((await as('DELETE', `/api/subscribers?id=${sub.onlyA}&id=${sub.onlyB}`)).status).toBe(403);
    expect((await as('PUT', '/api/subscribers/lists', { ids: [sub.onlyA], action: 'add', target_list_ids: [B] })).status).toBe(403);
    expect((await as('POST', '/api/subscribers/query/delete', { all: true, list_ids: [B] })).status).toBe(200);
    const admin = await t.api('GET', '/api/subscribers?per_page=all');
    expect(admin.body.data.total).toBe(7);
  });

  it('an import into lists the user does not manage is 403', async () => {
    const { payload, contentType } = multipart([
      { name: 'params', value: JSON.stringify({ mode: 'subscribe', lists: [B, C] }) },
      { name: 'file', filename: 'b.csv', content: 'email\nimported@example.com\n' },
    ]);
    const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', headers: { ...limited, 'content-type': contentType }, payload });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().message).toBe('Permission denied: lists');
  });

  it('every other route on one subscriber of B is 403, and nothing changes', async () => {
    const id = sub.onlyB;
    for (const [method, url, body] of [
      ['PATCH', `/api/subscribers/${id}`, { name: 'taken' }],
      ['PUT', `/api/subscribers/${id}/blocklist`, undefined],
      ['PUT', '/api/subscribers/blocklist', { ids: [sub.onlyA, id] }],
      ['PUT', `/api/subscribers/lists/${id}`, { ids: [id], action: 'remove', target_list_ids: [A] }],
      ['POST', `/api/subscribers/${id}/optin`, undefined],
      ['GET', `/api/subscribers/${id}/export`, undefined],
      ['DELETE', `/api/subscribers/${id}`, undefined],
    ] as const) {
      const res = await as(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
    }
    const after = await ok('GET', `/api/subscribers/${id}`);
    expect(after).toMatchObject({ name: 'B', status: 'enabled' });
    expect((await ok('GET', `/api/subscribers/${sub.onlyA}`)).status).toBe('enabled');
  });

  it('the CSV export holds only subscribers in scope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/subscribers/export', headers: limited });
    expect(res.statusCode).toBe(200);
    const emails = res.body.trim().split('\r\n').slice(1).map((line) => line.split(',')[1]);
    expect(emails.sort()).toEqual(['a@example.com', 'ab@example.com']);
  });
});

describe('campaigns', () => {
  it('campaigns of B are hidden from the page and 403 by id', async () => {
    const res = await as('GET', '/api/campaigns');
    expect(res.status).toBe(200);
    expect(res.body.data.results.map((c: { id: number }) => c.id)).toEqual([campA]);
    expect(res.body.data.total).toBe(1);
    const denied = await as('GET', `/api/campaigns/${campB}`);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Permission denied: campaigns:get');
    expect((await as('GET', `/api/campaigns/${campA}`)).status).toBe(200);
    expect((await as('PUT', `/api/campaigns/${campB}`, { name: 'mine now' })).status).toBe(403);
    expect((await as('DELETE', `/api/campaigns/${campB}`)).status).toBe(403);
  });

  it('previews and archive settings of a campaign of B are 403', async () => {
    expect((await as('GET', `/api/campaigns/${campB}/preview`)).status).toBe(403);
    expect((await as('POST', `/api/campaigns/${campB}/preview`, {})).status).toBe(403);
    expect((await as('PUT', `/api/campaigns/${campB}/archive`, { archive: true })).status).toBe(403);
    expect((await as('GET', `/api/campaigns/${campA}/preview`)).status).toBe(200);
  });

  it('analytics of a campaign of B are 403', async () => {
    expect((await as('GET', `/api/campaigns/analytics/views?id=${campA}`)).status).toBe(200);
    const denied = await as('GET', `/api/campaigns/analytics/views?id=${campA}&id=${campB}`);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Permission denied: campaigns:get');
  });

  it('creating a campaign keeps only manageable lists; 403 with none', async () => {
    expect((await as('POST', '/api/campaigns', { name: 'x', subject: 'x', lists: [B], body: '<p>x</p>' })).status).toBe(403);
    const made = await as('POST', '/api/campaigns', { name: 'AB', subject: 'ab', lists: [A, B], body: '<p>x</p>' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.data.lists.map((l: { id: number }) => l.id)).toEqual([A]);
  });

  it('updating a campaign on A and B keeps B, which the user cannot manage', async () => {
    const both = await ok('POST', '/api/campaigns', { name: 'Both', subject: 'both', lists: [A, B], body: '<p>x</p>' });
    const res = await as('PUT', `/api/campaigns/${both.id}`, { lists: [A], name: 'Both renamed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.lists.map((l: { id: number }) => l.id).sort()).toEqual([A, B].sort());
  });

  it('a campaign on a read-only list is visible but not manageable', async () => {
    const onC = await ok('POST', '/api/campaigns', { name: 'To C', subject: 'c', lists: [C], body: '<p>c</p>' });
    expect((await as('GET', `/api/campaigns/${onC.id}`)).status).toBe(200);
    const denied = await as('PUT', `/api/campaigns/${onC.id}`, { name: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Permission denied: campaigns:manage');
  });
});

describe('the Super Admin', () => {
  it('still sees every list, subscriber and campaign', async () => {
    const lists = await t.api('GET', '/api/lists?per_page=all');
    expect(lists.body.data.total).toBe(3);
    const subs = await t.api('GET', '/api/subscribers?per_page=all');
    expect(subs.body.data.total).toBe(7);
    expect((await t.api('GET', `/api/subscribers/${sub.onlyB}`)).status).toBe(200);
    expect((await t.api('GET', `/api/campaigns/${campB}`)).status).toBe(200);
    const campaigns = await t.api('GET', '/api/campaigns?per_page=all');
    expect(campaigns.body.data.results.map((c: { id: number }) => c.id)).toContain(campB);
  });
});
