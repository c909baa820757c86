/**
 * HTTP postback messengers (issue 5, Done when; listmonk reference §18.2) against a real local HTTP
 * server: the JSON body has listmonk's fields, HTTP Basic auth is sent, 5xx answers are retried and
 * never counted as sent, and — by default — loopback URLs are refused (checked after DNS resolution),
 * so the test turns `security.allow_private_messenger_urls` on to reach its own server.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';

interface Hit {
  headers: IncomingMessage['headers'];
  body: any;
}

let t: TestApp;
let server: Server;
let hits: Hit[] = [];
let failFirst = 0;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (failFirst > 0) {
        failFirst -= 1;
        res.writeHead(503).end('busy');
        return;
      }
      hits.push({ headers: req.headers, body: JSON.parse(raw) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
  t = await buildTestApp({ startRunner: true });
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => server.close(r));
});

function block(overrides: Record<string, unknown> = {}) {
  return { uuid: 'hook-1', enabled: true, name: 'hook', root_url: url, username: 'mailroom', password: 's3cret', max_conns: 2, timeout: '2s', max_msg_retries: 3, ...overrides };
}

async function listWith(n: number, prefix: string): Promise<number> {
  const listId = (await t.api('POST', '/api/lists', { name: `${prefix} list`, type: 'private', optin: 'single' })).body.data.id;
  for (let i = 1; i <= n; i++) {
    const res = await t.api('POST', '/api/subscribers', { email: `${prefix}${i}@example.org`, name: `${prefix} Reader${i}`, status: 'enabled', lists: [listId], attribs: { plan: 'pro', n: i } });
    expect(res.status).toBe(200);
  }
  return listId;
}

async function start(listId: number): Promise<any> {
  const created = await t.api('POST', '/api/campaigns', {
    name: 'Postback', subject: 'Hello {{ .Subscriber.FirstName }}', lists: [listId], messenger: 'hook', tags: ['news'],
    headers: [{ 'X-Kind': 'digest' }], content_type: 'html', template_id: null, body: '<p>Plan {{ .Subscriber.Attribs.plan }}</p>',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await t.api('PUT', `/api/campaigns/${created.body.data.id}/status`, { status: 'running' })).status).toBe(200);
  return created.body.data;
}

describe('postback messengers', () => {
  it('are configured in settings with the password masked and kept when sent back masked', async () => {
    const res = await t.api('PUT', '/api/settings', { messengers: [block()], 'security.allow_private_messenger_urls': true });
    expect(res.status).toBe(200);
    expect(res.body.data.messengers[0].password).toBe('••••••');
    expect((await t.api('PUT', '/api/settings', { messengers: res.body.data.messengers })).status).toBe(200);
    expect(t.deps.settings.get(t.deps.messengerDefs.messengers)[0]!.password).toBe('s3cret');
    expect(t.deps.messengers.names()).toContain('hook');
  });

  it('refuse invalid blocks with 400 naming the key, changing nothing', async () => {
    for (const [messengers, message] of [
      [[block({ name: 'email' })], /^messengers: messenger name "email" is reserved/],
      [[block({ name: 'Bad Name' })], /^messengers\.0\.name: /],
      [[block({ root_url: 'ftp://x' })], /^messengers\.0\.root_url: /],
      [[block(), block({ uuid: 'hook-2' })], /^messengers: messenger names must be unique/],
      [[block({ timeout: 'soon' })], /^messengers\.0\.timeout: /],
    ] as const) {
      const res = await t.api('PUT', '/api/settings', { messengers });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(t.deps.settings.get(t.deps.messengerDefs.messengers)).toHaveLength(1);
  });

  it("POST listmonk's JSON for every recipient, with Basic auth; 5xx answers are retried, not counted", async () => {
    hits = [];
    failFirst = 3;
    const listId = await listWith(4, 'hook');
    const campaign = await start(listId);
    const done = await waitForCampaign(t, campaign.id, 'finished');
    expect(done).toMatchObject({ sent: 4, to_send: 4, bounces: 0 });
    expect(failFirst).toBe(0);
    expect(hits).toHaveLength(4);
    const subscribers = (await t.api('GET', `/api/subscribers?list_id=${listId}&per_page=all`)).body.data.results;
    for (const hit of hits) {
      expect(hit.headers.authorization).toBe(`Basic ${Buffer.from('mailroom:s3cret').toString('base64')}`);
      expect(hit.headers['content-type']).toBe('application/json');
      const b = hit.body;
      const sub = subscribers.find((s: any) => s.email === b.recipients[0].email);
      expect(b.body).toContain('<p>Plan pro</p>');
      expect(b).toEqual({
        subject: `Hello ${sub.name.split(' ')[0]}`,
        from_email: 'Mailroom Test <news@mailroom.test>',
        content_type: 'html',
        body: b.body,
        recipients: [{ uuid: sub.uuid, email: sub.email, name: sub.name, attribs: sub.attribs, status: 'enabled' }],
        campaign: { uuid: campaign.uuid, name: 'Postback', from_email: 'Mailroom Test <news@mailroom.test>', headers: [{ 'X-Kind': 'digest' }], tags: ['news'] },
        attachments: null,
      });
    }
  });

  it('refuse loopback URLs by default (after DNS resolution): the campaign pauses, nothing is posted', async () => {
    hits = [];
    expect((await t.api('PUT', '/api/settings', { 'security.allow_private_messenger_urls': false, 'app.max_send_errors': 2 })).status).toBe(200);
    const campaign = await start(await listWith(3, 'blocked'));
    const paused = await waitForCampaign(t, campaign.id, 'paused');
    expect(paused.status_reason).toMatch(/localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/);
    expect(paused.sent).toBe(0);
    expect(hits).toHaveLength(0);
    // Allowed again, the paused campaign resumes and delivers everyone.
    await t.api('PUT', '/api/settings', { 'security.allow_private_messenger_urls': true, 'app.max_send_errors': 1000 });
    expect((await t.api('PUT', `/api/campaigns/${campaign.id}/status`, { status: 'running' })).status).toBe(200);
    expect(await waitForCampaign(t, campaign.id, 'finished')).toMatchObject({ sent: 3 });
    expect(hits.map((h) => h.body.recipients[0].email).sort()).toEqual(['blocked1@example.org', 'blocked2@example.org', 'blocked3@example.org']);
  });
});
