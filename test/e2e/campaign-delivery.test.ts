/**
 * Campaigns on real parts (issue 4, Done when): a scheduled campaign starts by itself and its messages
 * arrive at a real SMTP server; a markdown campaign arrives as HTML with a text alternative; plain and
 * altbody campaigns arrive as they should; a test send arrives only at the given addresses and changes
 * no counters; an opt-in campaign reaches only unconfirmed members of double opt-in lists, with the
 * opt-in link; "view in browser" shows the message as the subscriber got it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { headerValue, startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp.js';
import { waitForCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let sink: SmtpSink;
let readers: number;
let confirmList: { id: number; uuid: string };
const people = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra'];
const emailOf = (name: string) => `${name.split(' ')[0]!.toLowerCase()}@example.org`;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  readers = (await t.api('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
  confirmList = (await t.api('POST', '/api/lists', { name: 'Confirm first', type: 'public', optin: 'double' })).body.data;
  for (const [i, name] of people.entries()) {
    await t.api('POST', '/api/subscribers', { email: emailOf(name), name, status: 'enabled', lists: [readers], attribs: { n: i } });
  }
  // Double opt-in list: one unconfirmed and one confirmed member (and Ada is only on Readers).
  await t.api('POST', '/api/subscribers', { email: 'new@example.org', name: 'New Reader', status: 'enabled', lists: [confirmList.id] });
  await t.api('POST', '/api/subscribers', { email: 'sure@example.org', name: 'Sure Reader', status: 'enabled', lists: [confirmList.id], preconfirm_subscriptions: true });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

beforeEach(() => {
  sink.reject = null;
});

const of = (uuid: string): ReceivedMail[] => sink.messages.filter((m) => headerValue(m.parsed, 'X-Mailroom-Campaign') === uuid);
const recipients = (mails: ReceivedMail[]) => mails.flatMap((m) => m.envelope.to).sort();
const create = async (fields: Record<string, unknown>) => {
  const res = await t.api('POST', '/api/campaigns', { name: 'Campaign', subject: 'Hello {{ .Subscriber.FirstName }}', lists: [readers], ...fields });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: number; uuid: string };
};
const run = async (fields: Record<string, unknown>) => {
  const c = await create(fields);
  expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status).toBe(200);
  const done = await waitForCampaign(t, c.id, 'finished');
  return { ...c, done, mails: of(c.uuid) };
};

describe('scheduling', () => {
  it('starts a scheduled campaign by itself when send_at arrives, and its messages arrive', async () => {
    const sendAt = new Date(Date.now() + 2500);
    const c = await create({ body: '<p>Scheduled for {{ .Subscriber.Name }}</p>', send_at: sendAt.toISOString() });
    expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'scheduled' })).body.data.status).toBe('scheduled');
    expect(of(c.uuid)).toHaveLength(0);
    const done = await waitForCampaign(t, c.id, 'finished', 30_000);
    expect(done).toMatchObject({ sent: 4, to_send: 4 });
    expect(new Date(done.started_at).getTime()).toBeGreaterThanOrEqual(sendAt.getTime() - 1000);
    const mails = of(c.uuid);
    expect(recipients(mails)).toEqual(people.map(emailOf).sort());
    for (const m of mails) {
      const name = people.find((p) => emailOf(p) === m.envelope.to[0])!;
      expect(m.parsed.subject).toBe(`Hello ${name.split(' ')[0]}`);
      expect(m.parsed.html).toContain(`<p>Scheduled for ${name}</p>`);
    }
  });

  it('does not start a campaign that was unscheduled (scheduled → draft)', async () => {
    const c = await create({ body: '<p>never</p>', send_at: new Date(Date.now() + 1500).toISOString() });
    await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'scheduled' });
    expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'draft' })).body.data.status).toBe('draft');
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.api('GET', `/api/campaigns/${c.id}`)).body.data).toMatchObject({ status: 'draft', sent: 0, started_at: null });
    expect(of(c.uuid)).toHaveLength(0);
  });
});

describe('content types', () => {
  it('a markdown campaign arrives as HTML with a text alternative', async () => {
    const body = '# News for {{ .Subscriber.FirstName }}\n\nRead [the post]({{ TrackLink "https://example.com/post?a=1&b=2" }}) **today**.';
    const { mails } = await run({ content_type: 'markdown', body });
    expect(mails).toHaveLength(4);
    const ada = mails.find((m) => m.envelope.to[0] === 'ada@example.org')!;
    expect(headerValue(ada.parsed, 'Content-Type')).toMatch(/^multipart\/alternative/u);
    expect(ada.parsed.html).toContain('<h1>News for Ada</h1>');
    // TrackLink: the URL is registered for the campaign and replaced by its tracking URL (issue 5).
    const tracked = `${ROOT_URL}/link/[0-9a-f-]{36}/[0-9a-f-]{36}/00000000-0000-0000-0000-000000000000`;
    expect(ada.parsed.html).toMatch(new RegExp(`<a href="${tracked}">the post</a> <strong>today</strong>`, 'u'));
    expect(ada.parsed.text).toContain('News for Ada');
    expect(ada.parsed.text).toMatch(new RegExp(`Read the post \\[${tracked}\\] today\\.`, 'u'));
    expect(ada.parsed.text).toContain(`[${ROOT_URL}/subscription/`);
    expect(ada.parsed.text).not.toContain('<');
  });

  it('a plain campaign arrives as text/plain only, without the HTML template', async () => {
    const { mails } = await run({ content_type: 'plain', body: 'Hi {{ .Subscriber.Name }} <3\nUnsubscribe: {{ UnsubscribeURL }}' });
    const alan = mails.find((m) => m.envelope.to[0] === 'alan@example.org')!;
    expect(alan.parsed.html).toBe(false);
    expect(headerValue(alan.parsed, 'Content-Type')).toMatch(/^text\/plain/u);
    expect(alan.parsed.text).toMatch(/^Hi Alan Turing <3\nUnsubscribe: http:\/\/mailroom\.test\/subscription\//u);
  });

  it('an altbody becomes the text alternative, rendered as text', async () => {
    const { mails } = await run({ body: '<p>HTML part</p>', altbody: 'Text part for {{ .Subscriber.Name }} & co' });
    const grace = mails.find((m) => m.envelope.to[0] === 'grace@example.org')!;
    expect(grace.parsed.html).toContain('<p>HTML part</p>');
    expect(grace.parsed.text?.trim()).toBe('Text part for Grace Hopper & co');
  });
});

describe('test sends', () => {
  it('arrive only at the given addresses and change no counters', async () => {
    const c = await create({ body: '<p>Draft for {{ .Subscriber.Name }}</p>' });
    const before = (await t.api('GET', `/api/campaigns/${c.id}`)).body.data;
    const res = await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: [' ADA@example.org', 'grace@example.org'], subject: 'Test: {{ .Subscriber.FirstName }}' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: true });
    const mails = of(c.uuid);
    expect(recipients(mails)).toEqual(['ada@example.org', 'grace@example.org']);
    expect(mails.map((m) => m.parsed.subject).sort()).toEqual(['Test: Ada', 'Test: Grace']);
    expect(mails[0]!.parsed.html).toContain('Draft for');
    const after = (await t.api('GET', `/api/campaigns/${c.id}`)).body.data;
    expect(after).toEqual(before);
    expect(after).toMatchObject({ status: 'draft', sent: 0, to_send: 0, subject: 'Hello {{ .Subscriber.FirstName }}' });
  });

  it('refuses unknown addresses (400 naming them) and sends nothing', async () => {
    const c = await create({ body: '<p>x</p>' });
    const res = await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['ada@example.org', 'ghost@example.org', 'nobody@example.org'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('subscribers: unknown subscriber(s): ghost@example.org, nobody@example.org');
    expect((await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: [] })).status).toBe(400);
    expect((await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['not an address'] })).body.message).toMatch(/^subscribers: "not an address" /);
    expect((await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['ada@example.org'], body: '{{ .X' })).body.message).toMatch(/^body: template error at line 1/);
    expect((await t.api('POST', '/api/campaigns/987654/test', { subscribers: ['ada@example.org'] })).status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(of(c.uuid)).toHaveLength(0);
  });

  it('answers 502 naming the address the SMTP server refused', async () => {
    const c = await create({ body: '<p>x</p>' });
    sink.reject = (rcpt) => (rcpt === 'alan@example.org' ? 550 : null);
    const res = await t.api('POST', `/api/campaigns/${c.id}/test`, { subscribers: ['alan@example.org', 'edsger@example.org'] });
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/^subscribers: messenger "email" could not deliver the test to alan@example\.org \(.*\); 1 other\(s\) were sent$/u);
    expect(recipients(of(c.uuid))).toEqual(['edsger@example.org']);
  });
});

describe('opt-in campaigns', () => {
  it('reach only unconfirmed members of double opt-in lists, with the opt-in link', async () => {
    const { mails, done } = await run({ type: 'optin', lists: [readers, confirmList.id], body: '' });
    expect(done).toMatchObject({ sent: 1, to_send: 1 });
    expect(recipients(mails)).toEqual(['new@example.org']);
    const subscriber = (await t.api('GET', '/api/subscribers?per_page=all')).body.data.results.find((s: { email: string }) => s.email === 'new@example.org');
    expect(mails[0]!.parsed.html).toContain(`href="${ROOT_URL}/subscription/optin/${subscriber.uuid}?l=${confirmList.uuid}"`);
    expect(mails[0]!.parsed.html).toContain('<li>Confirm first</li>');
    expect(mails[0]!.parsed.text).toContain(`[${ROOT_URL}/subscription/optin/${subscriber.uuid}?l=${confirmList.uuid}]`);
  });
});

describe('view in browser', () => {
  it('shows the message exactly as the subscriber got it, sandboxed', async () => {
    const { mails, uuid } = await run({ body: '<p>For {{ .Subscriber.Name }} in browser</p>' });
    const edsger = mails.find((m) => m.envelope.to[0] === 'edsger@example.org')!;
    const link = /href="(http:\/\/mailroom\.test\/campaign\/[^"]+)"/u.exec(edsger.parsed.html as string)![1]!;
    expect(link).toContain(`/campaign/${uuid}/`);
    const res = await t.app.inject({ method: 'GET', url: link.replace(ROOT_URL, '') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^sandbox\b/u);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.replace(/\r\n/gu, '\n')).toBe((edsger.parsed.html as string).replace(/\r\n/gu, '\n'));
  });
});
