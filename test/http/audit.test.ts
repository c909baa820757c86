/**
 * The audit log (issue 16 "Identity" item 5): state-changing API calls are recorded with who, what,
 * which resource, the status and the client address; `GET /api/audit` searches them; old entries are
 * trimmed after `audit.retention_days`. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/http/access.js';
import { installAuditHook } from '../../src/modules/audit/hook.js';
import { AuditRepo } from '../../src/modules/audit/repo.js';
import { AuditService } from '../../src/modules/audit/service.js';
import { hashToken } from '../../src/modules/users/service.js';
import { buildTestApp, TEST_USER, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

type Entry = { id: number; created_at: string; user_id: number | null; username: string; action: string; resource_type: string; resource_id: string | null; method: string; path: string; status: number; ip: string | null };

/** Every entry, newest first. */
async function entries(query = ''): Promise<Entry[]> {
  const res = await t.api('GET', `/api/audit?per_page=all${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.results;
}

/** The newest entry. */
async function last(): Promise<Entry> {
  return (await entries())[0] as Entry;
}

let seq = 0;
/** An API user whose role holds `permissions`; returns its id, name and `token` Authorization header. */
async function apiUser(permissions: string[]) {
  seq += 1;
  const token = randomBytes(24).toString('hex');
  const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`audit role ${seq}`, permissions]);
  const username = `audit-${seq}`;
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, status, email) VALUES ($1, $2, 'api', $3, 'enabled', $4) RETURNING id`,
    [username, hashToken(token), role!.id, `${username}@api`],
  );
  return { id: user!.id, username, header: `token ${username}:${token}` };
}

/** What an entry says, without its id, time, user and address. */
const what = (e: Entry) => [e.action, e.resource_type, e.resource_id, e.method, e.path, e.status];

describe('recording', () => {
  it('records creating, updating and deleting a list, a subscriber and a campaign, and changing settings', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Audited' })).body.data.id as number;
    expect(what(await last())).toEqual(['lists.create', 'lists', String(list), 'POST', '/api/lists', 200]);
    await t.api('PUT', `/api/lists/${list}`, { name: 'Audited 2' });
    expect(what(await last())).toEqual(['lists.update', 'lists', String(list), 'PUT', '/api/lists/:id', 200]);

    const sub = (await t.api('POST', '/api/subscribers', { email: 'audit@example.com', name: 'A', lists: [list] })).body.data.id as number;
    expect(what(await last())).toEqual(['subscribers.create', 'subscribers', String(sub), 'POST', '/api/subscribers', 200]);
    await t.api('PATCH', `/api/subscribers/${sub}`, { name: 'B' });
    expect(what(await last())).toEqual(['subscribers.update', 'subscribers', String(sub), 'PATCH', '/api/subscribers/:id', 200]);

    const campaign = (await t.api('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [list], body: '<p>x</p>' })).body.data.id as number;
    expect(what(await last())).toEqual(['campaigns.create', 'campaigns', String(campaign), 'POST', '/api/campaigns', 200]);
    await t.api('PUT', `/api/campaigns/${campaign}`, { subject: 'S2', send_at: '2099-06-01T10:00:00Z' });
    expect(what(await last())).toEqual(['campaigns.update', 'campaigns', String(campaign), 'PUT', '/api/campaigns/:id', 200]);
    // Only a scheduled campaign can be deleted (spec part 3).
    expect((await t.api('PUT', `/api/campaigns/${campaign}/status`, { status: 'scheduled' })).status).toBe(200);
    expect(what(await last())).toEqual(['campaigns.update_status', 'campaigns', String(campaign), 'PUT', '/api/campaigns/:id/status', 200]);
    expect((await t.api('DELETE', `/api/campaigns/${campaign}`)).status).toBe(200);
    expect(what(await last())).toEqual(['campaigns.delete', 'campaigns', String(campaign), 'DELETE', '/api/campaigns/:id', 200]);

    expect((await t.api('DELETE', `/api/subscribers/${sub}`)).status).toBe(200);
    expect(what(await last())).toEqual(['subscribers.delete', 'subscribers', String(sub), 'DELETE', '/api/subscribers/:id', 200]);
    expect((await t.api('DELETE', `/api/lists/${list}`)).status).toBe(200);
    expect(what(await last())).toEqual(['lists.delete', 'lists', String(list), 'DELETE', '/api/lists/:id', 200]);

    expect((await t.api('PUT', '/api/settings', { 'app.concurrency': 5 })).status).toBe(200);
    expect(what(await last())).toEqual(['settings.update', 'settings', null, 'PUT', '/api/settings', 200]);

    const all = await entries();
    expect(all.map((e) => e.action)).toEqual([
      'settings.update', 'lists.delete', 'subscribers.delete', 'campaigns.delete', 'campaigns.update_status', 'campaigns.update', 'campaigns.create',
      'subscribers.update', 'subscribers.create', 'lists.update', 'lists.create',
    ]);
    const [admin] = await t.deps.db.sql<{ id: number }>('SELECT id FROM users WHERE username = $1', [TEST_USER]);
    for (const e of all) {
      // Who: the legacy MAILROOM_ADMIN_USER, a Super Admin principal.
      expect([e.user_id, e.username]).toEqual([admin!.id, TEST_USER]);
      expect(e.ip).toBe('127.0.0.1');
      expect(Date.now() - Date.parse(e.created_at)).toBeLessThan(10 * 60_000);
    }
  });

  it('records failed requests with their status', async () => {
    expect((await t.api('POST', '/api/lists', { type: 'public' })).status).toBe(400);
    expect(what(await last())).toEqual(['lists.create', 'lists', null, 'POST', '/api/lists', 400]);
    expect((await t.api('PUT', '/api/lists/999999', { name: 'x' })).status).toBe(404);
    expect(what(await last())).toEqual(['lists.update', 'lists', '999999', 'PUT', '/api/lists/:id', 404]);
  });

  it('does not record reads, previews, public routes or requests refused by authentication', async () => {
    const before = (await entries()).length;
    await t.api('GET', '/api/lists');
    await t.api('GET', '/api/audit');
    await t.api('POST', '/api/templates/preview', { type: 'campaign', body: '<p>{{ template "content" . }}</p>' });
    expect((await t.app.inject({ method: 'POST', url: '/api/lists', payload: { name: 'no credentials' } })).statusCode).toBe(401);
    await t.app.inject({ method: 'POST', url: '/api/public/subscription', payload: { email: 'public@example.com', list_uuids: [] } });
    expect((await entries()).length).toBe(before);
  });

  it("records a limited user's refused attempt (403) under its own name, and needs users:get to read", async () => {
    const u = await apiUser(['lists:get_all']);
    const denied = await t.app.inject({ method: 'PUT', url: '/api/settings', headers: { authorization: u.header }, payload: { 'app.concurrency': 3 } });
    expect(denied.statusCode).toBe(403);
    expect(what(await last())).toEqual(['settings.update', 'settings', null, 'PUT', '/api/settings', 403]);
    expect([(await last()).user_id, (await last()).username]).toEqual([u.id, u.username]);

    const read = (authorization: string) => t.app.inject({ method: 'GET', url: '/api/audit', headers: { authorization } });
    expect((await read(u.header)).statusCode).toBe(403);
    expect((await read(u.header)).json().message).toBe('permission denied: users:get');
    const reader = await apiUser(['users:get']);
    const res = await read(reader.header);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.results[0].username).toBe(u.username);
  });

  it('records the user and address of the principal the authentication set', async () => {
    // A bare Fastify instance with the same hook, standing in for the authentication of issue 16 that
    // sets request.principal; the entry goes to the same database through the real service.
    const audit = new AuditService(new AuditRepo(t.deps.db), { retentionDays: () => 90, logger: pino({ level: 'silent' }) });
    const app = Fastify({ trustProxy: true });
    const principal = { userId: 42, username: 'editor' } as Principal;
    app.addHook('onRequest', async (req) => {
      req.principal = principal;
    });
    installAuditHook(app, audit);
    app.post('/api/things', async () => ({ data: { id: 7 } }));
    app.delete('/api/things/:id', async () => ({ data: true }));
    app.post('/api/things/open', { config: { public: true } }, async () => ({ data: true }));
    await app.inject({ method: 'POST', url: '/api/things', headers: { 'x-forwarded-for': '203.0.113.9' } });
    await app.inject({ method: 'DELETE', url: '/api/things/8' });
    await app.inject({ method: 'POST', url: '/api/things/open' });
    await app.close();
    await audit.drain();
    const got = await entries('&resource_type=things');
    expect(got.map((e) => [e.user_id, e.username, e.action, e.resource_id, e.ip])).toEqual([
      [42, 'editor', 'things.delete', '8', '127.0.0.1'],
      [42, 'editor', 'things.create', '7', '203.0.113.9'],
    ]);
  });

  it('answers the request when the entry cannot be written, and logs the whole entry instead', async () => {
    const lines: Array<Record<string, any>> = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const audit = new AuditService(new AuditRepo(t.deps.db), { retentionDays: () => 90, logger });
    const app = Fastify();
    app.addHook('onRequest', async (req) => {
      req.principal = { userId: 42, username: 'editor' } as Principal;
    });
    installAuditHook(app, audit);
    app.put('/api/things/:id', async () => ({ data: true }));
    await t.deps.db.sql('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      expect((await t.api('POST', '/api/lists', { name: 'Unaudited' })).status).toBe(200);
      expect((await app.inject({ method: 'PUT', url: '/api/things/5' })).statusCode).toBe(200);
      await audit.drain();
      await t.deps.audit.drain();
    } finally {
      await t.deps.db.sql('ALTER TABLE audit_log_away RENAME TO audit_log');
      await app.close();
    }
    expect(lines.map((l) => [l.msg, l.audit?.action, l.audit?.resourceId, l.audit?.status])).toEqual([
      ['audit log entry could not be written', 'things.update', '5', 200],
    ]);
    expect(await entries('&resource_type=things&action=things.update')).toEqual([]);
  });
});

describe('GET /api/audit', () => {
  it('filters by action, resource, user and time, and pages newest first', async () => {
    const ids: number[] = [];
    for (const name of ['P1', 'P2', 'P3']) ids.push((await t.api('POST', '/api/lists', { name })).body.data.id);
    const created = await entries('&action=lists.create');
    expect(created.every((e) => e.action === 'lists.create')).toBe(true);
    expect(created.slice(0, 3).map((e) => e.resource_id)).toEqual(ids.reverse().map(String));

    const one = await entries(`&resource_type=lists&resource_id=${ids[0]}`);
    expect(one.map((e) => e.action)).toEqual(['lists.create']);
    expect(await entries('&resource_type=campaigns&action=campaigns.create')).toHaveLength(1);
    const editor = await entries('&username=editor');
    expect(editor.map((e) => e.action)).toEqual(['things.delete', 'things.create']);
    const everyone = await entries();
    let counted = 0;
    for (const name of new Set(everyone.map((e) => e.username))) {
      const theirs = await entries(`&username=${name}`);
      expect(theirs.every((e) => e.username === name)).toBe(true);
      counted += theirs.length;
    }
    expect(counted).toBe(everyone.length);
    expect((await entries('&user_id=42')).map((e) => e.id)).toEqual(editor.map((e) => e.id));
    expect(await entries('&username=nobody')).toEqual([]);
    expect(await entries('&user_id=2147483647')).toEqual([]);

    const today = new Date().toISOString().slice(0, 10);
    const all = (await entries()).length;
    expect(await entries(`&from=${today}&to=${today}`)).toHaveLength(all);
    expect(await entries('&to=2000-01-01')).toEqual([]);
    expect(await entries('&from=2999-01-01T00:00:00Z')).toEqual([]);
    expect(await entries(`&from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString().replace('Z', '+00:00'))}`)).toHaveLength(all);

    const page = await t.api('GET', '/api/audit?per_page=2&page=2');
    expect(page.status).toBe(200);
    expect(Object.keys(page.body.data)).toEqual(['results', 'total', 'per_page', 'page']);
    expect(page.body.data).toMatchObject({ total: all, per_page: 2, page: 2 });
    expect(page.body.data.results.map((e: Entry) => e.id)).toEqual((await entries()).slice(2, 4).map((e) => e.id));
    const past = await t.api('GET', '/api/audit?per_page=2&page=10000');
    expect(past.body.data).toMatchObject({ results: [], total: all });
  });

  const bad: Array<[string, RegExp]> = [
    ['user_id=abc', /^user_id: /],
    ['user_id=0', /^user_id: /],
    ['username=', /^username: /],
    ['action=', /^action: /],
    ['resource_type=', /^resource_type: /],
    ['resource_id=', /^resource_id: /],
    ['from=yesterday', /^from: must be an ISO 8601 date \(2026-11-28\) or date-time/],
    ['from=2026-02-30', /^from: must be an ISO 8601/],
    ['to=2026-11-28T25:00:00Z', /^to: must be an ISO 8601/],
    ['from=2026-11-28&to=2026-11-27', /^to: must not be before from/],
    ['page=0', /^page: /],
    ['per_page=0', /^per_page: /],
  ];
  for (const [query, message] of bad) {
    it(`answers ${query} with 400 naming the field`, async () => {
      const res = await t.api('GET', `/api/audit?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });
  }
});

describe('retention', () => {
  /** Inserts an entry `days` days old. */
  async function aged(days: number, action = 'old.entry'): Promise<void> {
    await t.deps.db.sql(
      `INSERT INTO audit_log (created_at, username, action, resource_type, method, path, status) VALUES (now() - make_interval(days => $1), 'x', $2, 'old', 'POST', '/api/old', 200)`,
      [days, action],
    );
  }
  const oldOnes = async () => (await entries('&resource_type=old')).map((e) => e.action);

  it('trims entries older than audit.retention_days, in batches, and keeps the rest', async () => {
    for (let i = 0; i < 5; i++) await aged(100, 'old.expired');
    await aged(10, 'old.kept');
    expect(await t.deps.audit.trim()).toBe(5);
    expect(await oldOnes()).toEqual(['old.kept']);
    expect(await t.deps.audit.trim()).toBe(0);

    expect((await t.api('PUT', '/api/settings', { 'audit.retention_days': 5 })).status).toBe(200);
    // Small batches: the loop goes on until a batch comes back short.
    for (let i = 0; i < 4; i++) await aged(7, 'old.expired');
    const batched = new AuditService(new AuditRepo(t.deps.db), { retentionDays: () => 5, logger: pino({ level: 'silent' }), trimBatch: 2 });
    expect(await batched.trim()).toBe(5);
    expect(await oldOnes()).toEqual([]);
    expect((await entries()).length).toBeGreaterThan(0);
  });

  it('keeps everything with retention 0', async () => {
    await aged(5000, 'old.ancient');
    expect((await t.api('PUT', '/api/settings', { 'audit.retention_days': 0 })).status).toBe(200);
    expect(await t.deps.audit.trim()).toBe(0);
    expect(await oldOnes()).toEqual(['old.ancient']);
  });

  it('is safe when several instances trim at once: every old entry deleted once, none twice', async () => {
    for (let i = 0; i < 30; i++) await aged(400, 'old.expired');
    const old = (await oldOnes()).length;
    const instance = () => new AuditService(new AuditRepo(t.deps.db), { retentionDays: () => 1, logger: pino({ level: 'silent' }), trimBatch: 4 });
    const counts = await Promise.all([instance().trim(), instance().trim(), instance().trim()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(old);
    expect(await oldOnes()).toEqual([]);
  });

  it('refuses a bad retention with 400 naming the key', async () => {
    for (const value of [-1, 1.5, '90', 40_000]) {
      const res = await t.api('PUT', '/api/settings', { 'audit.retention_days': value });
      expect(res.status, String(value)).toBe(400);
      expect(res.body.message).toMatch(/^audit\.retention_days: /);
    }
  });
});
