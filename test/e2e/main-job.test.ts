/**
 * The main job, end to end on real parts (issue "Foundation", Done when): a real SMTP server, a list,
 * 1,000 subscribers with attributes, a campaign using {{ .Subscriber.FirstName }} and an attribute.
 * Started, every subscriber receives exactly one message with their own name and attribute and working
 * unsubscribe link and headers; the campaign ends `finished` with sent = to_send = 1000; a one-click
 * POST to one subscriber's link unsubscribes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { headerValue, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { waitForCampaign } from '../helpers/campaigns.js';

const N = 1000;
const CITIES = ['Berlin', 'Lagos', 'Lima', 'Osaka', 'Quebec'];
let t: TestApp;
let sink: SmtpSink;
let listId: number;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  listId = (await t.api('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
  for (let i = 0; i < N; i++) {
    const res = await t.api('POST', '/api/subscribers', {
      email: `reader${i}@example.org`,
      name: `Reader${i} Family${i}`,
      status: 'enabled',
      lists: [listId],
      attribs: { city: CITIES[i % CITIES.length], n: i },
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

describe('a campaign to 1,000 subscribers', () => {
  let campaignId: number;

  it('is delivered once to every subscriber, personalised, with unsubscribe headers', async () => {
    const created = await t.api('POST', '/api/campaigns', {
      name: 'Issue 1',
      subject: 'Hello {{ .Subscriber.FirstName }}',
      lists: [listId],
      type: 'regular',
      content_type: 'richtext',
      body: '<p>Dear {{ .Subscriber.FirstName }}, greetings to {{ .Subscriber.Attribs.city }}!</p>',
    });
    expect(created.status).toBe(200);
    campaignId = created.body.data.id;
    const started = await t.api('PUT', `/api/campaigns/${campaignId}/status`, { status: 'running' });
    expect(started.body.data.status).toBe('running');

    const done = await waitForCampaign(t, campaignId, 'finished', 90_000);
    expect(done).toMatchObject({ status: 'finished', sent: N, to_send: N });
    expect(sink.messages).toHaveLength(N);

    const byRecipient = new Map<string, (typeof sink.messages)[number]>();
    for (const m of sink.messages) {
      expect(m.envelope.to).toHaveLength(1);
      const to = m.envelope.to[0]!;
      expect(byRecipient.has(to), `duplicate for ${to}`).toBe(false);
      byRecipient.set(to, m);
    }
    const subscribers = (await t.api('GET', `/api/subscribers?list_id=${listId}&per_page=all`)).body.data.results;
    expect(subscribers).toHaveLength(N);
    for (const s of subscribers) {
      const m = byRecipient.get(s.email);
      expect(m, s.email).toBeDefined();
      const first = s.name.split(' ')[0];
      expect(m!.parsed.subject).toBe(`Hello ${first}`);
      expect(m!.parsed.html).toContain(`Dear ${first}, greetings to ${s.attribs.city}!`);
      const unsub = `${ROOT_URL}/subscription/${created.body.data.uuid}/${s.uuid}`;
      expect(headerValue(m!.parsed, 'List-Unsubscribe')).toBe(`<${unsub}>`);
      expect(headerValue(m!.parsed, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(m!.parsed.html).toContain(`href="${unsub}"`);
      expect(m!.parsed.from?.value).toEqual([{ name: 'Mailroom Test', address: 'news@mailroom.test' }]);
      expect(m!.parsed.messageId).toBe(`<${created.body.data.uuid}.${s.uuid}@mailroom.test>`);
    }
  }, 120_000);

  it('shows a confirmation page on GET without unsubscribing, and unsubscribes on one-click POST', async () => {
    const subscribers = (await t.api('GET', `/api/subscribers?list_id=${listId}&per_page=2&order_by=id&order=asc`)).body.data.results;
    const [a, b] = subscribers;
    const campaign = (await t.api('GET', `/api/campaigns/${campaignId}`)).body.data;
    const link = (s: { uuid: string }) => `/subscription/${campaign.uuid}/${s.uuid}`;

    const page = await t.app.inject({ method: 'GET', url: link(a) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('<form method="post"');
    expect(page.body).toContain(a.email);
    const still = (await t.api('GET', `/api/subscribers/${a.id}`)).body.data;
    expect(still.lists[0].subscription_status).toBe('unconfirmed');

    // RFC 8058: no cookies, no credentials, form body List-Unsubscribe=One-Click.
    const post = await t.app.inject({
      method: 'POST',
      url: link(b),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(post.statusCode).toBe(200);
    expect(post.body).toContain('You have been unsubscribed');
    const after = (await t.api('GET', `/api/subscribers/${b.id}`)).body.data;
    expect(after.lists[0].subscription_status).toBe('unsubscribed');
    expect((await t.api('GET', `/api/subscribers/${a.id}`)).body.data.lists[0].subscription_status).toBe('unconfirmed');
  });

  it('answers unknown or malformed unsubscribe links with a 404 page', async () => {
    const zero = '00000000-0000-0000-0000-000000000001';
    for (const url of [`/subscription/${zero}/${zero}`, '/subscription/abc/def']) {
      const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
  });
});
