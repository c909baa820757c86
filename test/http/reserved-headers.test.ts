/**
 * Issue 14 finding 7: a `Bcc` (or `Cc`, `To`, `Sender`, `Return-Path`, …) in campaign `headers`, tx
 * `headers` or an SMTP server's `email_headers` would copy every personalised message, unsubscribe
 * links included, to that address. The one header rule refuses them with a 400 naming the field and the
 * header, in any letter case; and rows stored before the rule send no such header and reach no extra
 * recipient (checked on a real SMTP server's envelope).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let listId: number;
let sampleTx: number;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  listId = (await t.api('POST', '/api/lists', { name: 'Readers' })).body.data.id;
  for (const email of ['ann@example.org', 'bob@example.org']) {
    expect((await t.api('POST', '/api/subscribers', { email, lists: [listId], preconfirm_subscriptions: true })).status).toBe(200);
  }
  const templates = (await t.api('GET', '/api/templates')).body.data as Array<{ id: number; name: string }>;
  sampleTx = templates.find((x) => x.name === 'Sample transactional template')!.id;
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const campaign = (headers: unknown) => ({ name: 'H', subject: 'Hi', lists: [listId], body: '<p>x</p>', headers });
const SPELLINGS = ['Bcc', 'bcc', 'BCC', 'Cc', 'cc', 'To', 'Resent-Bcc', 'Sender', 'Return-Path', 'From'];

describe('refused on input (400 naming the field and the header)', () => {
  it.each(SPELLINGS)('campaign create with %j', async (name) => {
    const res = await t.api('POST', '/api/campaigns', campaign([{ 'X-Ok': '1' }, { [name]: 'spy@evil.example' }]));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(new RegExp(`^headers\\.1: "${name}" would (add recipients|change the sender or the envelope)`));
  });

  it('campaign update, with whitespace and line-break spellings', async () => {
    const id = (await t.api('POST', '/api/campaigns', campaign([{ 'X-Ok': '1' }]))).body.data.id;
    for (const name of ['Bcc ', ' Bcc', 'Bcc\r\n', 'B\ncc', 'Bcc:']) {
      const res = await t.api('PUT', `/api/campaigns/${id}`, { headers: [{ [name]: 'spy@evil.example' }] });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.message).toMatch(/^headers\.0: "/);
    }
    expect((await t.api('GET', `/api/campaigns/${id}`)).body.data.headers).toEqual([{ 'X-Ok': '1' }]);
    expect((await t.api('PUT', `/api/campaigns/${id}`, { headers: [{ 'Reply-To': 'help@example.org' }] })).status).toBe(200);
  });

  it.each(SPELLINGS)('tx with %j', async (name) => {
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: sampleTx, headers: [{ [name]: 'spy@evil.example' }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(new RegExp(`^headers\\.0: "${name}" would`));
  });

  it('SMTP email_headers in the settings', async () => {
    const smtp = (await t.api('GET', '/api/settings')).body.data.smtp;
    for (const name of ['BCC', 'Cc', 'Return-Path']) {
      const res = await t.api('PUT', '/api/settings', { smtp: [{ ...smtp[0], email_headers: [{ 'X-Relay': 'a' }, { [name]: 'spy@evil.example' }] }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^smtp: server 1 \\("primary"\\): email_headers\\.1: "${name}" would`));
    }
    expect((await t.api('GET', '/api/settings')).body.data.smtp[0].email_headers).toEqual([]);
  });
});

describe('dropped at send time (rows stored before the rule)', () => {
  it('sends a campaign and the SMTP server\'s headers without Bcc/Cc/Sender: no extra envelope recipient', async () => {
    // Written around the API, as an older version would have stored them.
    const smtp = (await t.deps.db.sql<{ value: any[] }>("SELECT value FROM settings WHERE key = 'smtp'"))[0]!.value;
    smtp[0].email_headers = [{ 'X-Relay': 'kept' }, { Bcc: 'relay-spy@evil.example' }];
    await t.deps.db.sql("UPDATE settings SET value = $1::jsonb, updated_at = clock_timestamp() WHERE key = 'smtp'", [JSON.stringify(smtp)]);
    await t.deps.settings.refresh();
    const id = (await t.api('POST', '/api/campaigns', campaign([{ 'X-Campaign': 'kept' }]))).body.data.id;
    const stored = [{ 'X-Campaign': 'kept' }, { bcc: 'spy@evil.example' }, { CC: 'spy2@evil.example' }, { Sender: 'spy3@evil.example' }, { 'Return-Path': 'spy4@evil.example' }];
    await t.deps.db.sql('UPDATE campaigns SET headers = $1::jsonb WHERE id = $2', [JSON.stringify(stored), id]);
    sink.messages.length = 0;
    expect((await t.api('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status).toBe(200);
    const done = await waitForCampaign(t, id, 'finished');
    expect(done.sent).toBe(2);
    expect(sink.messages.map((m) => m.envelope.to).sort()).toEqual([['ann@example.org'], ['bob@example.org']]);
    for (const m of sink.messages) {
      const head = m.raw.subarray(0, m.raw.indexOf('\r\n\r\n')).toString('latin1');
      expect(head).not.toMatch(/^(bcc|cc|sender|return-path):/imu);
      expect(head).not.toContain('evil.example');
      expect(m.parsed.headers.get('x-campaign')).toBe('kept');
      expect(m.parsed.headers.get('x-relay')).toBe('kept');
    }
  });
});
