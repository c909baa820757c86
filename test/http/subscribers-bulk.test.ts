/**
 * Bulk subscriber changes, spec 4.1 and reference §4.6–4.8 (issue 3 §1): blocklisting (one, by ids, by
 * filter), membership changes (`add`, `remove`, `unsubscribe`; by ids, for one subscriber, by filter),
 * and delete by filter, with the `all` guard and "any of several list_ids".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailsTo, waitForMailTo } from '../helpers/mail.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

let seq = 0;
async function list(optin: 'single' | 'double' = 'single'): Promise<number> {
  return (await t.api('POST', '/api/lists', { name: `L${++seq}`, type: 'public', optin })).body.data.id;
}
async function sub(email: string, lists: number[] = [], extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api('POST', '/api/subscribers', { email, lists, ...extra });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data.id;
}
async function memberships(id: number): Promise<Record<number, string>> {
  const s = (await t.api('GET', `/api/subscribers/${id}`)).body.data;
  return Object.fromEntries(s.lists.map((l: { id: number; subscription_status: string }) => [l.id, l.subscription_status]));
}
const status = async (id: number): Promise<string | null> => {
  const res = await t.api('GET', `/api/subscribers/${id}`);
  return res.status === 404 ? null : res.body.data.status;
};


describe('blocklisting by id', () => {
  it('blocklists one subscriber and unsubscribes every membership', async () => {
    const [a, b] = [await list(), await list()];
    const id = await sub('block.one@x.org', [a, b], { preconfirm_subscriptions: true });
    expect((await t.api('PUT', `/api/subscribers/${id}/blocklist`)).body).toEqual({ data: true });
    expect(await status(id)).toBe('blocklisted');
    expect(await memberships(id)).toEqual({ [a]: 'unsubscribed', [b]: 'unsubscribed' });
    expect((await t.api('GET', `/api/lists/${a}`)).body.data.subscriber_statuses).toEqual({ unsubscribed: 1 });
    expect((await t.api('PUT', '/api/subscribers/999999/blocklist')).status).toBe(404);
  });

  it('blocklists several by {"ids": [..]}, ignoring unknown ids', async () => {
    const l = await list();
    const ids = [await sub('block.m1@x.org', [l]), await sub('block.m2@x.org', [l])];
    const keep = await sub('block.keep@x.org', [l]);
    expect((await t.api('PUT', '/api/subscribers/blocklist', { ids: [...ids, 999999] })).body).toEqual({ data: true });
    for (const id of ids) expect(await status(id)).toBe('blocklisted');
    expect(await status(keep)).toBe('enabled');
    expect(await memberships(keep)).toEqual({ [l]: 'unconfirmed' });
  });

  it('refuses a missing, empty or mistyped ids with 400', async () => {
    expect((await t.api('PUT', '/api/subscribers/blocklist', {})).body.message).toBe('ids: is required');
    expect((await t.api('PUT', '/api/subscribers/blocklist', { ids: [] })).body.message).toMatch(/^ids: must NOT have fewer than 1 items/);
    expect((await t.api('PUT', '/api/subscribers/blocklist', { ids: ['1'] })).body.message).toBe('ids.0: must be integer');
  });
});

describe('PUT /api/subscribers/lists', () => {
  it('add inserts memberships with the given status and updates existing ones to it', async () => {
    const [a, b] = [await list(), await list()];
    const x = await sub('add.x@x.org', [a]);
    const y = await sub('add.y@x.org');
    const res = await t.api('PUT', '/api/subscribers/lists', { ids: [x, y], action: 'add', target_list_ids: [a, b], status: 'confirmed' });
    expect(res.body).toEqual({ data: true });
    expect(await memberships(x)).toEqual({ [a]: 'confirmed', [b]: 'confirmed' });
    expect(await memberships(y)).toEqual({ [a]: 'confirmed', [b]: 'confirmed' });
    await t.api('PUT', '/api/subscribers/lists', { ids: [x], action: 'add', target_list_ids: [b], status: 'unsubscribed' });
    expect(await memberships(x)).toEqual({ [a]: 'confirmed', [b]: 'unsubscribed' });
    expect((await t.api('GET', `/api/lists/${b}`)).body.data.subscriber_statuses).toEqual({ confirmed: 1, unsubscribed: 1 });
  });

  it("keeps a blocklisted subscriber's memberships unsubscribed", async () => {
    const l = await list();
    const id = await sub('add.blocked@x.org', [], { status: 'blocklisted' });
    await t.api('PUT', '/api/subscribers/lists', { ids: [id], action: 'add', target_list_ids: [l], status: 'confirmed' });
    expect(await memberships(id)).toEqual({ [l]: 'unsubscribed' });
  });

  it('remove deletes memberships; unsubscribe marks them unsubscribed', async () => {
    const [a, b] = [await list(), await list()];
    const id = await sub('rm@x.org', [a, b], { preconfirm_subscriptions: true });
    await t.api('PUT', '/api/subscribers/lists', { ids: [id], action: 'unsubscribe', target_list_ids: [a] });
    expect(await memberships(id)).toEqual({ [a]: 'unsubscribed', [b]: 'confirmed' });
    await t.api('PUT', '/api/subscribers/lists', { ids: [id], action: 'remove', target_list_ids: [a, b] });
    expect(await memberships(id)).toEqual({});
    expect((await t.api('GET', `/api/lists/${a}`)).body.data.subscriber_count).toBe(0);
  });

  it('sends the opt-in e-mail to subscribers added unconfirmed to a double opt-in list', async () => {
    const d = await list('double');
    const ids = [await sub('lists.optin1@x.org'), await sub('lists.optin2@x.org')];
    const confirmed = await sub('lists.confirmed@x.org');
    await t.api('PUT', '/api/subscribers/lists', { ids, action: 'add', target_list_ids: [d], status: 'unconfirmed' });
    await t.api('PUT', '/api/subscribers/lists', { ids: [confirmed], action: 'add', target_list_ids: [d], status: 'confirmed' });
    await waitForMailTo(sink, 'lists.optin1@x.org');
    await waitForMailTo(sink, 'lists.optin2@x.org');
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'lists.confirmed@x.org')).toHaveLength(0);
  });

  it('add without a status, as listmonk clients send it: 200, new memberships unconfirmed, existing ones keep their status (issue 15 item 3)', async () => {
    const [a, b, c] = [await list(), await list(), await list()];
    const fresh = await sub('lists.nostatus1@x.org');
    const member = await sub('lists.nostatus2@x.org', [a, b], { preconfirm_subscriptions: true });
    await t.api('PUT', '/api/subscribers/lists', { ids: [member], action: 'unsubscribe', target_list_ids: [b] });
    for (const body of [
      `{"ids":[${fresh},${member}],"action":"add","target_list_ids":[${a},${b}]}`,
      `{"ids":[${fresh},${member}],"action":"add","target_list_ids":[${a},${b},${c}],"status":null}`,
    ]) {
      const res = await t.api('PUT', '/api/subscribers/lists', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ data: true });
    }
    expect(await memberships(fresh)).toEqual({ [a]: 'unconfirmed', [b]: 'unconfirmed', [c]: 'unconfirmed' });
    expect(await memberships(member)).toEqual({ [a]: 'confirmed', [b]: 'unsubscribed', [c]: 'unconfirmed' });
    // The one-subscriber and by-filter forms follow the same rule.
    const d = await list();
    expect((await t.api('PUT', `/api/subscribers/lists/${member}`, { action: 'add', target_list_ids: [a, d] })).status).toBe(200);
    expect(await memberships(member)).toMatchObject({ [a]: 'confirmed', [d]: 'unconfirmed' });
    const byQuery = await t.api('PUT', '/api/subscribers/query/lists', { query: "subscribers.email = 'lists.nostatus2@x.org'", action: 'add', target_list_ids: [a, await list()] });
    expect(byQuery.status).toBe(200);
    expect((await memberships(member))[a]).toBe('confirmed');
  });

  it('refuses bad requests with 400 and changes nothing', async () => {
    const l = await list();
    const id = await sub('lists.bad@x.org', [l]);
    const cases: Array<[unknown, RegExp]> = [
      [{ ids: [id], action: 'move', target_list_ids: [l] }, /^action: must be one of add, remove, unsubscribe$/],
      [{ ids: [id], action: 'remove', target_list_ids: [] }, /^target_list_ids: must NOT have fewer than 1 items/],
      [{ ids: [id], action: 'remove', target_list_ids: [l, 999999] }, /^target_list_ids: unknown list id\(s\): 999999$/],
      [{ ids: [id], action: 'add', target_list_ids: [l], status: 'maybe' }, /^status: must be one of unconfirmed, confirmed, unsubscribed$/],
      [{ action: 'remove', target_list_ids: [l] }, /^ids: is required$/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('PUT', '/api/subscribers/lists', body);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    expect(await memberships(id)).toEqual({ [l]: 'unconfirmed' });
  });
});

describe('PUT /api/subscribers/lists/:id', () => {
  it("changes one subscriber's memberships (body ids not needed); 404 for an unknown subscriber", async () => {
    const l = await list();
    const id = await sub('one.lists@x.org');
    const other = await sub('one.other@x.org');
    expect((await t.api('PUT', `/api/subscribers/lists/${id}`, { ids: [other], action: 'add', target_list_ids: [l], status: 'confirmed' })).body).toEqual({ data: true });
    expect(await memberships(id)).toEqual({ [l]: 'confirmed' });
    expect(await memberships(other)).toEqual({});
    await t.api('PUT', `/api/subscribers/lists/${id}`, { action: 'unsubscribe', target_list_ids: [l] });
    expect(await memberships(id)).toEqual({ [l]: 'unsubscribed' });
    expect((await t.api('PUT', '/api/subscribers/lists/999999', { action: 'remove', target_list_ids: [l] })).status).toBe(404);
  });
});

describe('by filter: /query/delete, /query/blocklist, /query/lists', () => {
  it('delete removes exactly the subscribers matching query and search', async () => {
    const l = await list();
    const a = await sub('qd.a@x.org', [l], { attribs: { plan: 'gone' } });
    const b = await sub('qd.b@x.org', [l], { attribs: { plan: 'stay' } });
    const c = await sub('qd.c@x.org', [l], { name: 'Remove By Search' });
    expect((await t.api('POST', '/api/subscribers/query/delete', { query: "subscribers.attribs->>'plan' = 'gone'" })).body).toEqual({ data: true });
    expect([await status(a), await status(b), await status(c)]).toEqual([null, 'enabled', 'enabled']);
    await t.api('POST', '/api/subscribers/query/delete', { search: 'remove by search' });
    expect([await status(b), await status(c)]).toEqual(['enabled', null]);
  });

  it('needs a query, a search or "all": true; all with list_ids acts on members of any of those lists', async () => {
    const [l1, l2, l3] = [await list(), await list(), await list()];
    const a = await sub('qa.a@x.org', [l1]);
    const b = await sub('qa.b@x.org', [l2]);
    const c = await sub('qa.c@x.org', [l3]);
    const before = (await t.api('GET', '/api/subscribers?per_page=1')).body.data.total;
    for (const body of [{}, { query: '  ' }, { list_ids: [l1] }, { all: false }]) {
      const res = await t.api('POST', '/api/subscribers/query/delete', body);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(/^query: is empty; give a query or a search, or "all": true/)]);
    }
    expect((await t.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(before);
    expect((await t.api('POST', '/api/subscribers/query/delete', { all: true, list_ids: [l1, l2] })).body).toEqual({ data: true });
    expect([await status(a), await status(b), await status(c)]).toEqual([null, null, 'enabled']);
  });

  it('applies subscription_status with list_ids, and a query over subscriber_lists columns', async () => {
    const l = await list();
    const confirmed = await sub('qs.c@x.org', [l], { preconfirm_subscriptions: true });
    const unconfirmed = await sub('qs.u@x.org', [l]);
    await t.api('PUT', '/api/subscribers/query/blocklist', { all: true, list_ids: [l], subscription_status: 'unconfirmed' });
    expect([await status(confirmed), await status(unconfirmed)]).toEqual(['enabled', 'blocklisted']);
    await t.api('PUT', '/api/subscribers/query/blocklist', { list_ids: [l], query: "subscriber_lists.status = 'confirmed'" });
    expect(await status(confirmed)).toBe('blocklisted');
    expect(await memberships(confirmed)).toEqual({ [l]: 'unsubscribed' });
  });

  it('blocklist by query blocklists and unsubscribes the matches only', async () => {
    const l = await list();
    const hit = await sub('qb.hit@x.org', [l], { attribs: { score: 1 } });
    const miss = await sub('qb.miss@x.org', [l], { attribs: { score: 9 } });
    await t.api('PUT', '/api/subscribers/query/blocklist', { query: "(subscribers.attribs->>'score')::int < 5 AND subscribers.email LIKE 'qb.%'" });
    expect([await status(hit), await status(miss)]).toEqual(['blocklisted', 'enabled']);
    expect(await memberships(hit)).toEqual({ [l]: 'unsubscribed' });
    expect(await memberships(miss)).toEqual({ [l]: 'unconfirmed' });
  });

  it('query/lists adds, unsubscribes and removes by filter, without opt-in e-mails', async () => {
    const src = await list();
    const target = await list('double');
    const a = await sub('ql.a@x.org', [src], { attribs: { team: 'red' } });
    const b = await sub('ql.b@x.org', [src], { attribs: { team: 'blue' } });
    const add = { query: "subscribers.attribs->>'team' = 'red'", action: 'add', target_list_ids: [target], status: 'unconfirmed' };
    expect((await t.api('PUT', '/api/subscribers/query/lists', add)).body).toEqual({ data: true });
    expect(await memberships(a)).toEqual({ [src]: 'unconfirmed', [target]: 'unconfirmed' });
    expect(await memberships(b)).toEqual({ [src]: 'unconfirmed' });
    await t.api('PUT', '/api/subscribers/query/lists', { all: true, list_ids: [src], action: 'unsubscribe', target_list_ids: [src] });
    expect(await memberships(b)).toEqual({ [src]: 'unsubscribed' });
    await t.api('PUT', '/api/subscribers/query/lists', { search: 'ql.a@', action: 'remove', target_list_ids: [src, target] });
    expect(await memberships(a)).toEqual({});
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'ql.a@x.org')).toHaveLength(0);
  });

  it('refuses bad bodies and refused expressions with 400, changing nothing', async () => {
    const l = await list();
    const id = await sub('qbad@x.org', [l]);
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['POST', '/api/subscribers/query/delete', { query: 'true; DELETE FROM subscribers' }, /^query: .*statement separator/],
      ['PUT', '/api/subscribers/query/blocklist', { query: 'subscribers.id IN (SELECT id FROM subscribers)' }, /^query: table "subscribers" is not allowed in a sub-select/],
      ['PUT', '/api/subscribers/query/lists', { all: true, action: 'add', target_list_ids: [999999], status: 'confirmed' }, /^target_list_ids: unknown list id\(s\): 999999$/],
      ['PUT', '/api/subscribers/query/lists', { action: 'remove', target_list_ids: [l] }, /^query: is empty/],
      ['POST', '/api/subscribers/query/delete', { all: 'yes' }, /^all: must be boolean$/],
      ['POST', '/api/subscribers/query/delete', { all: true, subscription_status: 'x' }, /^subscription_status: must be one of/],
    ];
    for (const [method, url, body, message] of cases) {
      const res = await t.api(method, url, body);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    expect(await status(id)).toBe('enabled');
    expect(await memberships(id)).toEqual({ [l]: 'unconfirmed' });
  });

  it('blocklists everyone with "all": true', async () => {
    await sub('last.one@x.org');
    await t.api('PUT', '/api/subscribers/query/blocklist', { all: true });
    const enabled = await t.api('GET', `/api/subscribers?per_page=1&query=${encodeURIComponent("subscribers.status <> 'blocklisted'")}`);
    expect(enabled.body.data.total).toBe(0);
    expect((await t.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBeGreaterThan(0);
  });
});
