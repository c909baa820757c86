/**
 * Engagement segmentation (issue 15 item 6), from the client's side, on both stores: the sub-selects
 * listmonk's documentation and maintainers give for views, clicks, bounces and memberships work on every
 * endpoint that takes a `query` and select exactly what the same text selects when spliced into SQL the
 * way listmonk splices it; sub-selects that reach other tables, are not tied to the subscriber, nest,
 * combine sets or write are refused with a 400 naming what, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/db.js';

let t: TestApp;
const id: Record<string, number> = {};
let news = 0;
let vip = 0;
let spring = 0;
let summer = 0;

async function sql<R = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
  return t.testDb.db.sql<R>(text, params);
}

beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  news = (await t.api('POST', '/api/lists', { name: 'News', type: 'public', optin: 'single' })).body.data.id;
  vip = (await t.api('POST', '/api/lists', { name: 'VIP', type: 'private', optin: 'single' })).body.data.id;
  const people: Array<[string, number[], string]> = [
    ['ann', [news], 'enabled'], ['bob', [news], 'enabled'], ['cat', [], 'enabled'],
    ['dan', [vip], 'enabled'], ['eve', [news, vip], 'enabled'], ['fay', [], 'blocklisted'],
  ];
  for (const [name, lists, status] of people) {
    const res = await t.api('POST', '/api/subscribers', { email: `${name}@example.com`, name, lists, status });
    expect(res.status, name).toBe(200);
    id[name] = res.body.data.id;
  }
  await sql("UPDATE subscriber_lists SET status = 'confirmed' WHERE subscriber_id = ANY($1::int[]) AND list_id = $2", [[id['eve'], id['dan']], vip]);
  const campaign = async (name: string): Promise<number> =>
    (await t.api('POST', '/api/campaigns', { name, subject: name, lists: [news], type: 'regular', content_type: 'html', body: '<p>x</p>' })).body.data.id;
  spring = await campaign('Spring sale');
  summer = await campaign('Summer news');
  await sql(`INSERT INTO campaign_views (campaign_id, subscriber_id) VALUES
    ($1, $3), ($1, $3), ($2, $4), ($1, $5), ($1, NULL)`, [spring, summer, id['ann'], id['bob'], id['eve']]);
  const [pricing] = await sql<{ id: number }>("INSERT INTO links (url) VALUES ('https://shop.example/pricing') RETURNING id");
  const [blog] = await sql<{ id: number }>("INSERT INTO links (url) VALUES ('https://shop.example/blog') RETURNING id");
  await sql('INSERT INTO link_clicks (campaign_id, link_id, subscriber_id) VALUES ($1, $3, $5), ($2, $4, $6), ($1, $3, NULL)',
    [spring, summer, pricing!.id, blog!.id, id['ann'], id['dan']]);
  await sql("INSERT INTO bounces (subscriber_id, campaign_id, type, source) VALUES ($1, $3, 'hard', 'api'), ($2, NULL, 'soft', 'api')",
    [id['bob'], id['dan'], spring]);
}, 120_000);
afterAll(async () => t?.close());

/** The e-mails GET /api/subscribers answers for `query` (all pages), sorted. */
async function emails(query: string, path = '/api/subscribers'): Promise<string[]> {
  const res = await t.api('GET', `${path}?per_page=all&order_by=email&order=asc&query=${encodeURIComponent(query)}`);
  expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.data.results.map((s: { email: string }) => s.email);
}

/** What the same text selects spliced into plain SQL, as listmonk does (listmonk-behaviour §14.1). */
async function raw(query: string): Promise<string[]> {
  return (await sql<{ email: string }>(`SELECT subscribers.email FROM subscribers WHERE (${query}) ORDER BY subscribers.email`)).map((r) => r.email);
}

const at = (names: string[]): string[] => names.map((n) => `${n}@example.com`);

describe(`engagement queries from listmonk's docs and maintainers (${storeKind})`, () => {
  const cases = (): Array<[string, string, string[]]> => [
    ['listmonk docs: viewed a campaign',
      `EXISTS(SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id=subscribers.id AND campaign_views.campaign_id=${spring})`, ['ann', 'eve']],
    ['maintainer (listmonk#1562): on no list',
      'NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = subscribers.id)', ['cat', 'fay']],
    ['listmonk#1810: enabled, neither viewed nor clicked a campaign',
      `subscribers.status = 'enabled'
AND NOT EXISTS (
    SELECT 1
    FROM campaign_views
    WHERE campaign_views.subscriber_id = subscribers.id
      AND campaign_views.campaign_id = ${spring}
)
AND NOT EXISTS (
    SELECT 1
    FROM link_clicks
    WHERE link_clicks.subscriber_id = subscribers.id
      AND link_clicks.campaign_id = ${spring}
)`, ['bob', 'cat', 'dan']],
    ['clicked a campaign', `EXISTS (SELECT 1 FROM link_clicks WHERE link_clicks.subscriber_id = subscribers.id AND link_clicks.campaign_id = ${spring})`, ['ann']],
    ['clicked a campaign, IN form', `subscribers.id IN (SELECT subscriber_id FROM link_clicks WHERE campaign_id = ${summer})`, ['dan']],
    ['clicked a link by its URL',
      "EXISTS (SELECT 1 FROM link_clicks JOIN links ON links.id = link_clicks.link_id WHERE link_clicks.subscriber_id = subscribers.id AND links.url LIKE '%/pricing')", ['ann']],
    ['bounced hard', "EXISTS (SELECT 1 FROM bounces WHERE bounces.subscriber_id = subscribers.id AND bounces.type = 'hard')", ['bob']],
    ['bounced at all, IN form', 'subscribers.id IN (SELECT subscriber_id FROM bounces)', ['bob', 'dan']],
    ['never bounced', 'subscribers.id NOT IN (SELECT bounces.subscriber_id FROM bounces)', ['ann', 'cat', 'eve', 'fay']],
    ["a confirmed member of a list named 'VIP' (enum cast as in listmonk)",
      "EXISTS (SELECT 1 FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id WHERE sl.subscriber_id = subscribers.id AND l.name = 'VIP' AND sl.status = 'confirmed'::subscription_status)", ['dan', 'eve']],
    ['viewed a campaign by its name',
      "EXISTS (SELECT 1 FROM campaign_views cv, campaigns c WHERE cv.subscriber_id = subscribers.id AND c.id = cv.campaign_id AND c.name = 'Spring sale')", ['ann', 'eve']],
    ['viewed, with LIMIT 1 and SELECT *',
      `EXISTS (SELECT * FROM campaign_views WHERE campaign_views.subscriber_id = subscribers.id AND campaign_views.campaign_id = ${summer} LIMIT 1)`, ['bob']],
    // listmonk's NOT IN semantics are kept: an anonymous view (subscriber_id NULL) makes NOT IN unknown for everyone.
    ['NOT IN over a column with NULLs selects nobody, as in SQL',
      `subscribers.id NOT IN (SELECT subscriber_id FROM campaign_views WHERE campaign_id = ${spring})`, []],
  ];

  it('select the subscribers they describe, exactly as the raw text does', async () => {
    for (const [what, query, names] of cases()) {
      expect(await emails(query), what).toEqual(at(names));
      expect(await raw(query), `${what} (raw)`).toEqual(at(names));
    }
  });

  it('work with a list filter, in the CSV export and in bulk changes', async () => {
    const viewedSpring = `EXISTS(SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id=subscribers.id AND campaign_views.campaign_id=${spring})`;
    expect(await emails(viewedSpring, `/api/subscribers/lists/${vip}`)).toEqual(at(['eve']));
    const list = await t.api('GET', `/api/subscribers?list_id=${news}&per_page=all&query=${encodeURIComponent(`${viewedSpring} AND subscriber_lists.status = 'unconfirmed'`)}`);
    expect(list.body.data.results.map((s: { email: string }) => s.email).sort()).toEqual(at(['ann', 'eve']));
    const csv = String((await t.api('GET', `/api/subscribers/export?query=${encodeURIComponent(viewedSpring)}`)).body);
    expect(csv.trimEnd().split('\r\n').slice(1).map((l) => l.split(',')[1]).sort()).toEqual(at(['ann', 'eve']));
    const viewedSummer = `EXISTS(SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id=subscribers.id AND campaign_views.campaign_id=${summer})`;
    const add = await t.api('PUT', '/api/subscribers/query/lists', { query: viewedSummer, action: 'add', target_list_ids: [vip], status: 'confirmed' });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    const vipMembers = await sql<{ subscriber_id: number }>('SELECT subscriber_id FROM subscriber_lists WHERE list_id = $1 ORDER BY 1', [vip]);
    expect(vipMembers.map((r) => r.subscriber_id)).toEqual([id['bob'], id['dan'], id['eve']].sort((a, b) => a! - b!));
    await sql('DELETE FROM subscriber_lists WHERE list_id = $1 AND subscriber_id = $2', [vip, id['bob']]);
  });
});

describe(`refused sub-selects (${storeKind})`, () => {
  const refused: Array<[string, string]> = [
    ["EXISTS (SELECT 1 FROM users WHERE users.username = 'admin')",
      'table "users" is not allowed in a sub-select (allowed: campaign_views, link_clicks, links, bounces, subscriber_lists, lists, campaigns)'],
    ["EXISTS (SELECT 1 FROM settings WHERE settings.key = 'smtp')", 'table "settings" is not allowed in a sub-select'],
    ['EXISTS (SELECT 1 FROM sessions)', 'table "sessions" is not allowed in a sub-select'],
    ['EXISTS (SELECT 1 FROM pg_catalog.pg_user)', 'schema-qualified table "pg_catalog.pg_user" is not allowed'],
    ['EXISTS (SELECT 1 FROM subscribers s WHERE s.id = subscribers.id)',
      "table \"subscribers\" is not allowed in a sub-select; use the subscriber's columns (subscribers.…) directly"],
    ['subscribers.id IN (SELECT subscriber_id FROM campaign_views UNION SELECT id FROM users)',
      'set operations (UNION, INTERSECT, EXCEPT) are not allowed'],
    ['EXISTS (SELECT 1 FROM campaign_views WHERE campaign_views.campaign_id = 1)',
      'a sub-select must be tied to the subscriber: add campaign_views.subscriber_id = subscribers.id to its WHERE clause'],
    ['EXISTS (SELECT 1 FROM campaign_views cv, links WHERE cv.subscriber_id = subscribers.id)',
      'table "links" of a sub-select must be joined by its key: links.id = <table>.link_id'],
    ['EXISTS (WITH d AS (DELETE FROM campaign_views RETURNING 1) SELECT 1 FROM d)', 'WITH is not allowed in a sub-select'],
    ['EXISTS (SELECT 1 FROM campaign_views cv WHERE cv.subscriber_id = subscribers.id AND cv.campaign_id IN (SELECT campaigns.id FROM campaigns))',
      'sub-selects inside sub-selects are not allowed; join the tables instead'],
    ['(SELECT count(*) FROM campaign_views WHERE campaign_views.subscriber_id = subscribers.id) > 1',
      'a sub-select used as a value ((SELECT …)) is not allowed; use EXISTS (SELECT …) or subscribers.id IN (SELECT …)'],
    ['EXISTS (SELECT 1 FROM campaign_views cv WHERE cv.subscriber_id = subscribers.id GROUP BY cv.campaign_id HAVING count(*) > 2)',
      'GROUP BY is not allowed in a sub-select'],
    ["EXISTS (SELECT 1 FROM campaign_views cv JOIN campaigns c ON c.id = cv.campaign_id WHERE cv.subscriber_id = subscribers.id AND c.body LIKE '%x%')",
      'column "campaigns.body" is not allowed in a sub-select (allowed: id, uuid, name)'],
    ['subscribers.email IN (SELECT links.url FROM links)',
      'IN (SELECT …) is only allowed as subscribers.id IN (SELECT <table>.subscriber_id FROM …)'],
    ['EXISTS (SELECT 1 FROM campaign_views cv WHERE cv.subscriber_id = subscribers.id FOR UPDATE)', 'FOR UPDATE / FOR SHARE is not allowed'],
    [`campaign_views.campaign_id = 1`,
      'table "campaign_views" can only be used inside a sub-select, e.g. EXISTS (SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id = subscribers.id AND …)'],
  ];

  it('are answered 400 naming what, by every endpoint, and change nothing', async () => {
    const snapshot = async (): Promise<string> => JSON.stringify([
      await sql('SELECT id, status FROM subscribers ORDER BY id'),
      await sql('SELECT subscriber_id, list_id, status FROM subscriber_lists ORDER BY 1, 2'),
      await sql('SELECT count(*)::int AS n FROM campaign_views'),
      await sql('SELECT id, username, password_hash FROM users ORDER BY id'),
    ]);
    const before = await snapshot();
    for (const [query, message] of refused) {
      const expected = `query: ${message}`;
      const answers = [
        await t.api('GET', `/api/subscribers?query=${encodeURIComponent(query)}`),
        await t.api('GET', `/api/subscribers/lists/${news}?query=${encodeURIComponent(query)}`),
        await t.api('POST', '/api/subscribers/query/delete', { query }),
        await t.api('PUT', '/api/subscribers/query/blocklist', { query }),
      ];
      for (const res of answers) {
        expect(res.status, query).toBe(400);
        expect(res.body.message, query).toContain(expected);
      }
    }
    expect(await snapshot()).toBe(before);
  });
});
