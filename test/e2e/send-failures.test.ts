/**
 * Several SMTP servers and failures, against real SMTP servers (issue 5, Done when): messages spread
 * over two servers; a campaign can name one; a server refusing with 421 delays the campaign and loses
 * nothing once it accepts again; 5xx recipients become hard bounces; `app.max_send_errors` pauses the
 * campaign with a reason, and resuming it later delivers the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { seedList } from '../helpers/seed.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let a: SmtpSink;
let b: SmtpSink;
let t: TestApp;

function server(name: string, sink: SmtpSink) {
  return {
    uuid: `uuid-${name}`, name, enabled: true, host: '127.0.0.1', port: sink.port, hello_hostname: '', auth_protocol: 'none',
    username: '', password: '', tls_type: 'none', tls_skip_verify: false, max_conns: 4, idle_timeout: '15s', wait_timeout: '5s',
    max_msg_retries: 2, email_headers: [{ 'X-Relay': name }],
  };
}

beforeAll(async () => {
  a = await startSmtpSink();
  b = await startSmtpSink();
  t = await buildTestApp({ startRunner: true });
  const res = await t.api('PUT', '/api/settings', { smtp: [server('first', a), server('second', b)] });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await a?.close();
  await b?.close();
});

function reset(): void {
  a.messages.length = 0;
  b.messages.length = 0;
  a.reject = null;
  b.reject = null;
}

async function run(listId: number, extra: Record<string, unknown> = {}): Promise<number> {
  const created = await t.api('POST', '/api/campaigns', { name: 'Failures', subject: 'Hi', lists: [listId], body: '<p>Hi</p>', ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await t.api('PUT', `/api/campaigns/${created.body.data.id}/status`, { status: 'running' })).status).toBe(200);
  return created.body.data.id;
}

function recipients(...sinks: SmtpSink[]): string[] {
  return sinks.flatMap((s) => s.messages.flatMap((m) => m.envelope.to)).sort();
}

function expected(prefix: string, n: number, skip: (i: number) => boolean = () => false): string[] {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) if (!skip(i)) out.push(`${prefix}${i}@example.org`);
  return out.sort();
}

describe('several SMTP servers', () => {
  it('spread the messages of `email` over every enabled server, each adding its headers', async () => {
    reset();
    const id = await run(await seedList(t.testDb.db, 40, 'spread'));
    expect(await waitForCampaign(t, id, 'finished')).toMatchObject({ sent: 40, to_send: 40 });
    expect(a.messages.length).toBeGreaterThanOrEqual(10);
    expect(b.messages.length).toBeGreaterThanOrEqual(10);
    expect(recipients(a, b)).toEqual(expected('spread', 40));
    expect(a.messages.every((m) => m.parsed.headers.get('x-relay') === 'first')).toBe(true);
  });

  it('send through one named server when the campaign says `email-<name>`', async () => {
    reset();
    const id = await run(await seedList(t.testDb.db, 10, 'named'), { messenger: 'email-second' });
    await waitForCampaign(t, id, 'finished');
    expect(a.messages).toHaveLength(0);
    expect(recipients(b)).toEqual(expected('named', 10));
  });
});

describe('failures', () => {
  it('a server refusing with 421 delays the campaign; when it accepts again nothing is lost', async () => {
    reset();
    let refused = 0;
    a.reject = b.reject = () => (refused++, 421);
    const id = await run(await seedList(t.testDb.db, 60, 'down'));
    while (refused < 30) await new Promise((r) => setTimeout(r, 50));
    const during = (await t.api('GET', `/api/campaigns/${id}`)).body.data;
    expect(during).toMatchObject({ status: 'running', sent: 0 });
    a.reject = b.reject = null;
    const done = await waitForCampaign(t, id, 'finished');
    expect(done).toMatchObject({ sent: 60, to_send: 60, bounces: 0 });
    expect(recipients(a, b)).toEqual(expected('down', 60));
  });

  it('5xx recipients become hard bounces for that subscriber and campaign; the others are sent', async () => {
    reset();
    const bad = (i: number) => i % 5 === 0;
    a.reject = b.reject = (rcpt) => (bad(Number(/(\d+)@/u.exec(rcpt)?.[1])) ? 550 : null);
    const id = await run(await seedList(t.testDb.db, 50, 'bounce'));
    const done = await waitForCampaign(t, id, 'finished');
    expect(done).toMatchObject({ sent: 40, bounces: 10 });
    expect(recipients(a, b)).toEqual(expected('bounce', 50, bad));
    const rows = await t.testDb.db.sql<{ email: string; type: string; code: number }>(
      "SELECT s.email, b.type, (b.meta->>'code')::int AS code FROM bounces b JOIN subscribers s ON s.id = b.subscriber_id WHERE b.campaign_id = $1 ORDER BY s.email",
      [id],
    );
    expect(rows.map((r) => r.email)).toEqual(expected('bounce', 50, (i) => !bad(i)));
    expect(rows.every((r) => r.type === 'hard' && r.code === 550)).toBe(true);
  });

  it('past app.max_send_errors the campaign pauses and says why; resumed, it delivers the rest', async () => {
    reset();
    expect((await t.api('PUT', '/api/settings', { 'app.max_send_errors': 5 })).status).toBe(200);
    try {
      a.reject = b.reject = () => 451;
      const id = await run(await seedList(t.testDb.db, 30, 'errors'));
      const paused = await waitForCampaign(t, id, 'paused', 60_000);
      expect(paused.status_reason).toMatch(/5 send errors \(app\.max_send_errors = 5\)/);
      expect(paused.sent).toBe(0);
      a.reject = b.reject = null;
      expect((await t.api('PUT', '/api/settings', { 'app.max_send_errors': 1000 })).status).toBe(200);
      expect((await t.api('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status).toBe(200);
      expect(await waitForCampaign(t, id, 'finished', 60_000)).toMatchObject({ sent: 30, status_reason: '' });
      expect(recipients(a, b)).toEqual(expected('errors', 30));
    } finally {
      await t.api('PUT', '/api/settings', { 'app.max_send_errors': 1000 });
    }
  }, 150_000);
});
