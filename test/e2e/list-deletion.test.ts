/**
 * Issue 14 finding 10: deleting a list while a campaign is sending to it ended the campaign `finished`
 * with part of its audience never sent (1,000 of 4,900). Now the deletion pauses the campaign, in the
 * same transaction, with a `status_reason` naming the list and the progress; nothing more goes to the
 * deleted list's subscribers, and resuming sends to the remaining lists and finishes. Real engine, real
 * SMTP server, driven over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { seedList } from '../helpers/seed.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

const N = 120;
let t: TestApp;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink({ parse: false });
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, settings: { 'app.message_rate': 0, 'app.concurrency': 2, 'app.batch_size': 20 }, startRunner: true });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** Polls until `check` holds (50 ms steps); throws after `timeoutMs`. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const recipients = () => sink.messages.flatMap((m) => m.envelope.to);

describe('deleting a list while a campaign sends to it', () => {
  it('pauses the campaign with a reason naming the list; resuming sends to the remaining list and finishes', async () => {
    // Subscriber ids of "first" come before those of "second": the engine sends in id order.
    const first = await seedList(t.deps.db, N, 'first');
    const second = await seedList(t.deps.db, N, 'second');
    await t.deps.db.sql("UPDATE lists SET name = 'First \"readers\"' WHERE id = $1", [first]);
    sink.delayMs = 30;
    const c = (await t.api('POST', '/api/campaigns', { name: 'Both', subject: 'Hi', lists: [first, second], body: '<p>x</p>' })).body.data;
    expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status).toBe(200);
    await until('some messages', () => sink.messages.length >= 15);

    expect((await t.api('DELETE', `/api/lists/${first}`)).status).toBe(200);
    const paused = await waitForCampaign(t, c.id, 'paused');
    expect(paused.status_reason).toMatch(new RegExp(`^list "First "readers"" \\(id ${first}\\) was deleted while the campaign was running \\(\\d+ of ${2 * N} sent\\); its subscribers no longer receive it\\. Resume to send to the remaining lists, or cancel$`));
    // In-flight sends settle, then nothing more is sent.
    await until('the batch released', async () => (await t.deps.db.sql<{ n: number }>("SELECT count(*)::int AS n FROM campaign_batches WHERE campaign_id = $1 AND status = 'open' AND owner IS NOT NULL", [c.id]))[0]!.n === 0);
    const atPause = recipients().length;
    expect(atPause).toBeLessThan(N);
    const settled = (await t.api('GET', `/api/campaigns/${c.id}`)).body.data;
    expect(settled.status).toBe('paused');
    expect(settled.sent).toBe(atPause);

    sink.delayMs = 0;
    expect((await t.api('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status).toBe(200);
    const done = await waitForCampaign(t, c.id, 'finished');
    const got = recipients();
    expect(got.filter((r) => r.startsWith('first'))).toHaveLength(atPause);
    expect(got.filter((r) => r.startsWith('second')).sort()).toEqual(Array.from({ length: N }, (_, i) => `second${i + 1}@example.org`).sort());
    expect(new Set(got).size).toBe(got.length);
    expect(done).toMatchObject({ sent: atPause + N, to_send: atPause + N });
  });

  it('leaves campaigns that are not running alone', async () => {
    const list = await seedList(t.deps.db, 3, 'idle');
    const draft = (await t.api('POST', '/api/campaigns', { name: 'Draft', subject: 'Hi', lists: [list], body: 'x' })).body.data;
    expect((await t.api('DELETE', `/api/lists/${list}`)).status).toBe(200);
    expect((await t.api('GET', `/api/campaigns/${draft.id}`)).body.data).toMatchObject({ status: 'draft', status_reason: '' });
  });
});
