/**
 * Tracking end to end (issue 5 §6–7; listmonk reference §7.10, §16.3, §17): TrackLink URLs are
 * registered before sending and redirect only to what the campaign registered; the pixel records views;
 * the privacy switches change what is stored and sent; analytics and dashboard counts answer listmonk's
 * shapes; the preferences page changes the name and leaves single lists, never showing private ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { headerValue, startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp.js';

const ZERO = '00000000-0000-0000-0000-000000000000';
const BODY = '<p><a href="{{ TrackLink "https://example.org/a?x=1&amp;y=2" }}">A</a> <a href="https://example.org/b@TrackLink">B</a> ' +
  '<a href="{{ TrackLink .Subscriber.Attribs.site }}">S</a> <a href="{{ TrackLink "mailto:x@example.org" }}">M</a></p>{{ TrackView }}';

let t: TestApp;
let sink: SmtpSink;
let listId: number;
let otherPublic: number;
let privateList: number;
let subs: any[];

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  listId = (await t.api('POST', '/api/lists', { name: 'Weekly', type: 'public', optin: 'single' })).body.data.id;
  otherPublic = (await t.api('POST', '/api/lists', { name: 'Offers', type: 'public', optin: 'single' })).body.data.id;
  privateList = (await t.api('POST', '/api/lists', { name: 'Staff only', type: 'private', optin: 'single' })).body.data.id;
  subs = [];
  for (let i = 1; i <= 3; i++) {
    const res = await t.api('POST', '/api/subscribers', {
      email: `track${i}@example.org`, name: `Reader${i} Tracked`, status: 'enabled', lists: [listId, otherPublic, privateList], attribs: { site: `https://example.org/site/${i}` },
    });
    subs.push(res.body.data);
  }
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

async function send(name: string): Promise<{ campaign: any; mails: ReceivedMail[] }> {
  sink.messages.length = 0;
  const created = await t.api('POST', '/api/campaigns', { name, subject: name, lists: [listId], body: BODY });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await t.api('PUT', `/api/campaigns/${created.body.data.id}/status`, { status: 'running' })).status).toBe(200);
  await waitForCampaign(t, created.body.data.id, 'finished');
  return { campaign: created.body.data, mails: [...sink.messages] };
}

function hrefs(mail: ReceivedMail): string[] {
  return [...String(mail.parsed.html).matchAll(/href="([^"]+)"/gu)].map((m) => m[1]!.replace(/&amp;/gu, '&'));
}

function mailFor(mails: ReceivedMail[], email: string): ReceivedMail {
  return mails.find((m) => m.envelope.to[0] === email)!;
}

async function follow(url: string) {
  return t.app.inject({ method: 'GET', url: url.replace(ROOT_URL, '') });
}

describe('link and view tracking', () => {
  let first: { campaign: any; mails: ReceivedMail[] };

  it('registers TrackLink URLs (literal and per subscriber) and redirects each tracked URL to its target', async () => {
    first = await send('Tracked');
    expect(first.mails).toHaveLength(3);
    for (const [i, sub] of subs.entries()) {
      const links = hrefs(mailFor(first.mails, sub.email)).slice(0, 4);
      const linkRe = new RegExp(`^${ROOT_URL}/link/[0-9a-f-]{36}/${first.campaign.uuid}/${ZERO}$`, 'u');
      expect(links.slice(0, 3).every((l) => linkRe.test(l)), links.join(' ')).toBe(true);
      expect(links[3], 'mailto: links are tracked too, as listmonk (issue 15 item 10)').toMatch(linkRe);
      const targets = [];
      for (const l of links.slice(0, 3)) {
        const res = await follow(l);
        expect(res.statusCode).toBe(307);
        targets.push(res.headers.location);
      }
      expect(targets).toEqual(['https://example.org/a?x=1&y=2', 'https://example.org/b', `https://example.org/site/${i + 1}`]);
    }
    const c = (await t.api('GET', `/api/campaigns/${first.campaign.id}`)).body.data;
    expect(c.clicks).toBe(9);
    const stored = await t.testDb.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM link_clicks WHERE subscriber_id IS NOT NULL');
    expect(stored[0]!.n).toBe(0); // individual tracking is off by default
  });

  it('never redirects to a URL the campaign did not register (no open redirect)', async () => {
    const link = hrefs(first.mails[0]!)[0]!;
    const [, , , , linkUuid] = link.split('/');
    const other = (await t.api('POST', '/api/campaigns', { name: 'Other', subject: 'x', lists: [listId], body: 'x' })).body.data;
    const cases = [
      `/link/${linkUuid}/${other.uuid}/${ZERO}`, // a link of another campaign
      `/link/${'1'.repeat(8)}-1111-1111-1111-${'1'.repeat(12)}/${first.campaign.uuid}/${ZERO}`, // unknown link
      `/link/not-a-uuid/${first.campaign.uuid}/${ZERO}?url=https://evil.example`,
    ];
    for (const url of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('records views from the pixel, without the subscriber by default', async () => {
    const pixel = /src="([^"]+px\.png)"/u.exec(String(first.mails[0]!.parsed.html))![1]!;
    expect(pixel).toBe(`${ROOT_URL}/campaign/${first.campaign.uuid}/${ZERO}/px.png`);
    const res = await follow(pixel);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    await follow(pixel);
    expect((await t.api('GET', `/api/campaigns/${first.campaign.id}`)).body.data.views).toBe(2);
  });

  it('with privacy.individual_tracking on, stores the subscriber with clicks and views', async () => {
    expect((await t.api('PUT', '/api/settings', { 'privacy.individual_tracking': true })).status).toBe(200);
    const { campaign, mails } = await send('Individual');
    const mail = mailFor(mails, subs[1].email);
    const link = hrefs(mail)[0]!;
    expect(link.endsWith(`/${campaign.uuid}/${subs[1].uuid}`)).toBe(true);
    expect((await follow(link)).statusCode).toBe(307);
    await follow(/src="([^"]+px\.png)"/u.exec(String(mail.parsed.html))![1]!);
    const clicks = await t.testDb.db.sql<{ subscriber_id: number }>('SELECT subscriber_id FROM link_clicks WHERE campaign_id = $1', [campaign.id]);
    const views = await t.testDb.db.sql<{ subscriber_id: number }>('SELECT subscriber_id FROM campaign_views WHERE campaign_id = $1', [campaign.id]);
    expect(clicks.map((r) => r.subscriber_id)).toEqual([subs[1].id]);
    expect(views.map((r) => r.subscriber_id)).toEqual([subs[1].id]);
    await t.api('PUT', '/api/settings', { 'privacy.individual_tracking': false });
  });

  it('with privacy.disable_tracking on, sends plain URLs, no pixel, and records nothing', async () => {
    expect((await t.api('PUT', '/api/settings', { 'privacy.disable_tracking': true, 'privacy.unsubscribe_header': false })).status).toBe(200);
    try {
      const { campaign, mails } = await send('Untracked');
      const mail = mailFor(mails, subs[0].email);
      expect(hrefs(mail).slice(0, 3)).toEqual(['https://example.org/a?x=1&y=2', 'https://example.org/b', 'https://example.org/site/1']);
      expect(String(mail.parsed.html)).not.toContain('px.png');
      expect(headerValue(mail.parsed, 'List-Unsubscribe')).toBeUndefined();
      await follow(`/campaign/${campaign.uuid}/${subs[0].uuid}/px.png`);
      const before = (await t.api('GET', `/api/campaigns/${first.campaign.id}`)).body.data.clicks;
      expect((await follow(hrefs(first.mails[0]!)[0]!)).statusCode).toBe(307); // old links still redirect
      expect((await t.api('GET', `/api/campaigns/${first.campaign.id}`)).body.data.clicks).toBe(before);
      expect((await t.api('GET', `/api/campaigns/${campaign.id}`)).body.data.views).toBe(0);
    } finally {
      await t.api('PUT', '/api/settings', { 'privacy.disable_tracking': false, 'privacy.unsubscribe_header': true });
    }
  });
});

describe('GET /api/campaigns/analytics/:type and /api/dashboard/counts', () => {
  it("answer listmonk's shapes", async () => {
    const id = (await t.api('GET', '/api/campaigns?per_page=all&order_by=id&order=asc')).body.data.results[0].id;
    const today = new Date().toISOString().slice(0, 10);
    const views = await t.api('GET', `/api/campaigns/analytics/views?id=${id}&id=${id}&from=${today}&to=${today}`);
    expect(views.status).toBe(200);
    expect(views.body.data).toHaveLength(1);
    expect(views.body.data[0]).toMatchObject({ campaign_id: id, count: 2 });
    expect(new Date(views.body.data[0].timestamp).getUTCMinutes()).toBe(0); // hourly buckets under 7 days
    const clicks = (await t.api('GET', `/api/campaigns/analytics/clicks?id=${id}`)).body.data;
    expect(clicks.reduce((n: number, b: any) => n + b.count, 0)).toBe(9);
    const links = (await t.api('GET', `/api/campaigns/analytics/links?id=${id}`)).body.data;
    expect(links[0]).toEqual({ url: expect.stringMatching(/^https:\/\/example\.org\//u), count: 3 });
    expect(links).toHaveLength(5);
    expect((await t.api('GET', `/api/campaigns/analytics/bounces?id=${id}`)).body.data).toEqual([]);

    const counts = (await t.api('GET', '/api/dashboard/counts')).body.data;
    expect(counts).toEqual({
      subscribers: { total: 3, blocklisted: 0, orphans: 0 },
      lists: { total: 3, private: 1, public: 2, optin_single: 3, optin_double: 0 },
      campaigns: { total: 4, by_status: { finished: 3, draft: 1 } },
      messages: 9,
    });
  });

  it('refuse bad requests with 400 naming the field', async () => {
    for (const [url, message] of [
      ['/api/campaigns/analytics/views', /id/],
      ['/api/campaigns/analytics/opens?id=1', /type: must be one of views, clicks, bounces, links/],
      ['/api/campaigns/analytics/views?id=1&from=yesterday-ish', /^from: /],
      ['/api/campaigns/analytics/views?id=1&from=2024-02-01&to=2024-01-01', /^to: must be after from/],
      ['/api/campaigns/analytics/views?id=abc', /id/],
    ] as const) {
      const res = await t.api('GET', url);
      expect(res.status, url).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });
});

describe('preferences page', () => {
  it('shows the name and the non-private lists, and saves a new name and the lists left', async () => {
    const c = (await t.api('GET', '/api/campaigns?per_page=1')).body.data.results[0];
    const s = subs[2];
    const url = `/subscription/${c.uuid}/${s.uuid}`;
    const page = await t.app.inject({ method: 'GET', url: `${url}?manage=true` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="${s.name}"`);
    expect(page.body).toContain('Weekly');
    expect(page.body).toContain('Offers');
    expect(page.body).not.toContain('Staff only');
    const lists = (await t.api('GET', '/api/lists?per_page=all')).body.data.results;
    const weekly = lists.find((l: any) => l.id === listId).uuid;
    const saved = await t.app.inject({
      method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `manage=true&name=${encodeURIComponent('New Name')}&l=${weekly}`,
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('Your preferences have been saved');
    const after = (await t.api('GET', `/api/subscribers/${s.id}`)).body.data;
    expect(after.name).toBe('New Name');
    const status = Object.fromEntries(after.lists.map((l: any) => [l.id, l.subscription_status]));
    expect(status).toEqual({ [listId]: 'unconfirmed', [otherPublic]: 'unsubscribed', [privateList]: 'unconfirmed' });
  });

  it('refuses an empty name with a 400 page, changing nothing', async () => {
    const c = (await t.api('GET', '/api/campaigns?per_page=1')).body.data.results[0];
    const s = subs[0];
    const res = await t.app.inject({ method: 'POST', url: `/subscription/${c.uuid}/${s.uuid}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'manage=true&name=%20' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('name: must be 1 to 256 characters');
    const after = (await t.api('GET', `/api/subscribers/${s.id}`)).body.data;
    expect(after.name).toBe(s.name);
    expect(after.lists.every((l: any) => l.subscription_status !== 'unsubscribed')).toBe(true);
  });

  it('refuses a submission of a form opened before privacy.allow_preferences was turned off: 400, nobody unsubscribed', async () => {
    const c = (await t.api('GET', '/api/campaigns?per_page=1')).body.data.results[0];
    const s = subs[1];
    const url = `/subscription/${c.uuid}/${s.uuid}`;
    expect((await t.app.inject({ method: 'GET', url: `${url}?manage=true` })).body).toContain('Manage preferences');
    const before = (await t.api('GET', `/api/subscribers/${s.id}`)).body.data;
    expect(before.lists.every((l: any) => l.subscription_status !== 'unsubscribed')).toBe(true);
    const weekly = (await t.api('GET', `/api/lists/${listId}`)).body.data.uuid;
    await t.api('PUT', '/api/settings', { 'privacy.allow_preferences': false });
    try {
      const res = await t.app.inject({
        method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `manage=true&name=${encodeURIComponent('Changed Name')}&l=${weekly}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('That feature is not available');
      expect(res.body).not.toContain('unsubscribed');
      const after = (await t.api('GET', `/api/subscribers/${s.id}`)).body.data;
      expect(after.name).toBe(before.name);
      expect(after.lists.map((l: any) => [l.id, l.subscription_status])).toEqual(before.lists.map((l: any) => [l.id, l.subscription_status]));
    } finally {
      await t.api('PUT', '/api/settings', { 'privacy.allow_preferences': true });
    }
  });

  it('is not offered with privacy.allow_preferences off (the unsubscribe page instead)', async () => {
    await t.api('PUT', '/api/settings', { 'privacy.allow_preferences': false });
    const c = (await t.api('GET', '/api/campaigns?per_page=1')).body.data.results[0];
    const page = await t.app.inject({ method: 'GET', url: `/subscription/${c.uuid}/${subs[0].uuid}?manage=true` });
    expect(page.body).not.toContain('Manage preferences');
    expect(page.body).toContain('Unsubscribe');
    await t.api('PUT', '/api/settings', { 'privacy.allow_preferences': true });
  });
});
