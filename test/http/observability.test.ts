/**
 * Observability (issue "Trustworthy" §6–7): /metrics in Prometheus format behind credentials, with HTTP
 * latency, messages sent and failed per messenger and campaign progress; /api/health turns unhealthy
 * (503, with the reason) while a messenger keeps failing and healthy again when it recovers.
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

describe('health', () => {
  it('turns unhealthy while the SMTP server refuses everything, and healthy again after', async () => {
    expect((await t.api('GET', '/api/health')).body).toEqual({ data: true });
    sink.reject = () => 452; // "insufficient system storage": a full queue
    const list = (await t.api('POST', '/api/lists', { name: 'H' })).body.data.id;
    for (let i = 0; i < 4; i++) await t.api('POST', '/api/subscribers', { email: `h${i}@x.org`, lists: [list] });
    const c = (await t.api('POST', '/api/campaigns', { name: 'H', subject: 'H', lists: [list], body: 'x' })).body.data;
    await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    let res = await t.api('GET', '/api/health');
    for (let i = 0; i < 100 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.api('GET', '/api/health');
    }
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/^unhealthy: messenger "email" failing/);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
    expect(await metrics()).toMatch(/mailroom_messages_failed_total\{messenger="email",kind="transient"\} [1-9]/);
    sink.reject = null;
    const done = await waitForCampaign(t, c.id, 'finished');
    expect(done.sent).toBe(4);
    expect((await t.api('GET', '/api/health')).body).toEqual({ data: true });
  });
});
