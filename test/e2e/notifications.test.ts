/**
 * Operator notifications (`app.notify_emails`, listmonk reference §6, §12, §15.1), against a real SMTP
 * server: a finished campaign, a campaign paused by `app.max_send_errors` and an ended import each
 * e-mail every notify address once, from `app.from_email`, marked as automatic (RFC 3834); nothing is
 * sent while the list is empty; a bad address is refused naming the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { multipart } from '../helpers/multipart.js';
import { seedList } from '../helpers/seed.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp.js';

let sink: SmtpSink;
let t: TestApp;
const OPS = ['Ops <ops@mailroom.test>', 'oncall@mailroom.test'];

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ startRunner: true, env: { MAILROOM_FROM_EMAIL: 'Newsroom <news@mailroom.test>' } });
  const smtp = {
    uuid: 'uuid-notify', name: 'notify', enabled: true, host: '127.0.0.1', port: sink.port, hello_hostname: '', auth_protocol: 'none',
    username: '', password: '', tls_type: 'none', tls_skip_verify: false, max_conns: 4, idle_timeout: '15s', wait_timeout: '5s',
    max_msg_retries: 2, email_headers: [],
  };
  const res = await t.api('PUT', '/api/settings', { smtp: [smtp], 'app.notify_emails': OPS });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** The notifications the sink got with `subject`, once both addresses have one (or after 20 s). */
async function notifications(subject: string, expected = OPS.length): Promise<ReceivedMail[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const found = sink.messages.filter((m) => m.parsed.subject === subject);
    if (found.length >= expected || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function expectNotification(found: ReceivedMail[], body: RegExp): void {
  expect(found.map((m) => m.envelope.to.join()).sort()).toEqual(['oncall@mailroom.test', 'ops@mailroom.test']);
  for (const m of found) {
    expect(m.parsed.from?.value[0]).toMatchObject({ name: 'Newsroom', address: 'news@mailroom.test' });
    expect(m.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(m.parsed.text).toMatch(body);
  }
}

async function run(name: string, listId: number): Promise<number> {
  const created = await t.api('POST', '/api/campaigns', { name, subject: 'Hi', lists: [listId], body: '<p>Hi</p>' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await t.api('PUT', `/api/campaigns/${created.body.data.id}/status`, { status: 'running' })).status).toBe(200);
  return created.body.data.id;
}

describe('app.notify_emails', () => {
  it('refuses an address that is not one, naming the key and the item', async () => {
    const res = await t.api('PUT', '/api/settings', { 'app.notify_emails': ['ops@mailroom.test', 'not an address'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/app\.notify_emails.*item 2/);
    expect((await t.api('GET', '/api/settings')).body.data['app.notify_emails']).toEqual(OPS);
  });

  it('a finished campaign notifies every address once', async () => {
    const id = await run('Weekly digest', await seedList(t.testDb.db, 12, 'digest'));
    expect(await waitForCampaign(t, id, 'finished')).toMatchObject({ sent: 12 });
    const found = await notifications('Finished: Weekly digest');
    expectNotification(found, new RegExp(`The campaign "Weekly digest" \\(id ${id}\\) finished: 12 messages sent\\.`));
    await new Promise((r) => setTimeout(r, 300));
    expect(await notifications('Finished: Weekly digest')).toHaveLength(2); // once, not per batch or instance tick
  });

  it('a campaign paused by app.max_send_errors says why', async () => {
    expect((await t.api('PUT', '/api/settings', { 'app.max_send_errors': 3 })).status).toBe(200);
    sink.reject = (rcpt) => (rcpt.startsWith('refused') ? 451 : null);
    try {
      const id = await run('Refused everywhere', await seedList(t.testDb.db, 20, 'refused'));
      await waitForCampaign(t, id, 'paused', 60_000);
      const found = await notifications('Paused: Refused everywhere');
      expectNotification(found, /was paused: paused after 3 send errors \(app\.max_send_errors = 3\); last: /);
    } finally {
      sink.reject = null;
      await t.api('PUT', '/api/settings', { 'app.max_send_errors': 1000 });
    }
  }, 90_000);

  it('an import that ends notifies with its result', async () => {
    const { payload, contentType } = multipart([
      { name: 'params', value: JSON.stringify({ mode: 'subscribe' }) },
      { name: 'file', filename: 'newsletter-readers.csv', content: 'email,name\nann@readers.test,Ann\nnot-an-address,Bob\n', type: 'text/csv' },
    ]);
    const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(200);
    const found = await notifications('Finished: newsletter-readers.csv import');
    expectNotification(found, /^Finished in [\d.]+ s: 1 rows imported, 1 skipped/);
  });

  it('an import whose instance died is reported when it is found', async () => {
    await t.testDb.db.sql(`UPDATE imports SET run_id = '22222222-2222-2222-2222-222222222222', name = 'orphan.csv', status = 'importing',
      owner = 'dead-instance', imported = 500, line = 501, stream_lines = '{501}', heartbeat_at = now() - interval '5 minutes' WHERE id = 1`);
    expect((await t.api('GET', '/api/import/subscribers')).body.data).toMatchObject({ name: 'orphan.csv', status: 'failed' });
    const found = await notifications('Failed: orphan.csv import');
    expectNotification(found, /^Interrupted at line 501: the server stopped \(restart or crash\) while it was importing\. 500 rows imported/);
  });

  it('sends nothing while the list is empty', async () => {
    expect((await t.api('PUT', '/api/settings', { 'app.notify_emails': [] })).status).toBe(200);
    const id = await run('Quiet one', await seedList(t.testDb.db, 3, 'quiet'));
    await waitForCampaign(t, id, 'finished');
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.messages.filter((m) => m.parsed.subject === 'Finished: Quiet one')).toHaveLength(0);
    expect(sink.messages.filter((m) => m.envelope.to.some((to) => to.startsWith('quiet')))).toHaveLength(3);
  });
});
