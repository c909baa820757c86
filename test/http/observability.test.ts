/**
 * Observability (issue "Trustworthy" §6–7): /metrics in Prometheus format behind credentials, with HTTP
 * latency, messages sent and failed per messenger and campaign progress; /api/health turns unhealthy
 * (503, with the reason) while a messenger cannot be connected to and healthy again when it recovers.
 * Issue 14 finding 6: refusals of one recipient (which an anonymous subscriber can cause) never make it
 * unhealthy, replaced messengers are forgotten, and the public /health gives no reasons.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { waitForCampaign } from '../helpers/campaigns.js';

let t: TestApp;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

async function metrics(): Promise<string> {
  const res = await t.api('GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return res.body as unknown as string;
}

describe('metrics', () => {
  it('needs credentials', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
  });

  it('counts HTTP requests, messages per messenger, and campaign progress', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'M' })).body.data.id;
    for (let i = 0; i < 5; i++) await t.api('POST', '/api/subscribers', { email: `m${i}@x.org`, lists: [list] });
    const c = (await t.api('POST', '/api/campaigns', { name: 'M', subject: 'M', lists: [list], body: 'x' })).body.data;
    await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    await waitForCampaign(t, c.id, 'finished');
    const text = await metrics();
    expect(text).toMatch(/mailroom_http_request_duration_seconds_count\{method="POST",route="\/api\/subscribers",status="200"\} 5/);
    expect(text).toMatch(/mailroom_messages_sent_total\{messenger="email"\} 5/);
    expect(text).toMatch(/mailroom_process_cpu_user_seconds_total/);
  });
});

/** Polls `check` every 50 ms until it returns true; throws after `timeoutMs`. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const publicHealth = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/health' });
  return { status: res.statusCode, body: res.json() };
};

/** Points the `smtp` setting's server at `port` (messengers are rebuilt). */
async function smtpPort(port: number): Promise<void> {
  const smtp = (await t.api('GET', '/api/settings')).body.data.smtp;
  expect((await t.api('PUT', '/api/settings', { smtp: [{ ...smtp[0], port }] })).status).toBe(200);
}

async function campaignTo(name: string, emails: string[]): Promise<number> {
  const list = (await t.api('POST', '/api/lists', { name })).body.data.id;
  for (const email of emails) expect((await t.api('POST', '/api/subscribers', { email, lists: [list], preconfirm_subscriptions: true })).status).toBe(200);
  const c = (await t.api('POST', '/api/campaigns', { name, subject: name, lists: [list], body: 'x' })).body.data;
  expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status).toBe(200);
  return c.id as number;
}

describe('health (issue 14 finding 6)', () => {
  it('stays healthy when the relay temp-rejects the address of an anonymous public subscription (450, retried)', async () => {
    expect(await publicHealth()).toEqual({ status: 200, body: { data: true } });
    const list = (await t.api('POST', '/api/lists', { name: 'Open', type: 'public', optin: 'double' })).body.data;
    let attempts = 0;
    sink.reject = (rcpt) => (rcpt === 'mallory@x.org' ? (attempts++, 450) : null);
    // No credentials: anyone can do this. The opt-in e-mail is tried three times (0 s, 1 s, 5 s).
    const res = await t.app.inject({ method: 'POST', url: '/api/public/subscription', payload: { email: 'mallory@x.org', list_uuids: [list.uuid] } });
    expect(res.statusCode).toBe(200);
    await until('three opt-in attempts', () => attempts >= 3);
    await t.deps.optinMailer.drain();
    expect(await publicHealth()).toEqual({ status: 200, body: { data: true } });
    expect((await t.api('GET', '/api/health')).body).toEqual({ data: true });
    // Every recipient of a campaign refused for now (RCPT TO 452): still about the recipients.
    sink.reject = () => 452;
    const id = await campaignTo('All refused', ['r1@x.org', 'r2@x.org', 'r3@x.org', 'r4@x.org']);
    await until('refusals counted', async () => /mailroom_messages_failed_total\{messenger="email",kind="transient"\} ([5-9]|\d\d)/.test(await metrics()));
    expect(await publicHealth()).toEqual({ status: 200, body: { data: true } });
    expect((await t.api('PUT', `/api/campaigns/${id}/status`, { status: 'cancelled' })).status).toBe(200);
    sink.reject = null;
  });

  it('turns unhealthy when the relay refuses connections, healthy again once it answers; /health gives no reasons', async () => {
    const down = await startSmtpSink();
    try {
      down.refuseConnections = true;
      await smtpPort(down.port);
      const id = await campaignTo('Down', ['d1@x.org', 'd2@x.org']);
      await until('unhealthy', async () => (await publicHealth()).status === 503);
      expect((await publicHealth()).body).toEqual({ message: 'unhealthy' });
      const api = await t.api('GET', '/api/health');
      expect(api.status).toBe(503);
      expect(api.body.message).toMatch(/^unhealthy: messenger "email" failing: \d+ sends in a row failed \(last: could not connect to the server or log in to it \(details in the server log\)\)/);
      // The reasons name no host or port (the real error is in the server log only).
      expect(api.body.message).not.toMatch(/127\.0\.0\.1|421|ECONN|\d{4,5}/);
      down.refuseConnections = false;
      expect((await waitForCampaign(t, id, 'finished')).sent).toBe(2);
      expect(await publicHealth()).toEqual({ status: 200, body: { data: true } });
    } finally {
      await smtpPort(sink.port);
      await down.close();
    }
  });

  it('forgets a failing messenger as soon as the settings replace it', async () => {
    const down = await startSmtpSink();
    down.refuseConnections = true;
    try {
      await smtpPort(down.port);
      const id = await campaignTo('Replaced', ['p1@x.org']);
      await until('unhealthy', async () => (await publicHealth()).status === 503);
      await smtpPort(sink.port);
      expect((await t.api('GET', '/api/health')).body).toEqual({ data: true });
      expect((await waitForCampaign(t, id, 'finished')).sent).toBe(1);
    } finally {
      await down.close();
    }
  });
});
