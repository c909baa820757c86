/**
 * The double opt-in round trip on real parts (issue 3, Done when): a real SMTP server and real HTTP.
 * Someone subscribes publicly to a double opt-in list → the opt-in e-mail arrives → a GET of its link
 * shows the confirmation page without confirming → a POST of that page's form confirms → the
 * membership is `confirmed` → a campaign to the list reaches the subscriber (and not an unconfirmed one).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitForCampaign } from '../helpers/campaigns.js';
import { mailsTo, optinLink, waitForMailTo } from '../helpers/mail.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let base: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url }, startRunner: true });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** The path and query of a link from an e-mail, requested on this test server instead of the public root URL. */
const local = (link: string) => {
  const u = new URL(link);
  return `${base}${u.pathname}${u.search}`;
};

describe('double opt-in round trip', () => {
  it('subscribe → opt-in e-mail → confirm → campaign delivered', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Confirmed readers', type: 'public', optin: 'double' })).body.data;

    const subscribe = await fetch(`${base}/api/public/subscription`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'round.trip@example.org', name: 'Round Trip', list_uuids: [list.uuid] }),
    });
    expect([subscribe.status, await subscribe.json()]).toEqual([200, { data: true }]);
    // A second subscriber who never confirms must not get the campaign.
    await fetch(`${base}/api/public/subscription`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([['email', 'never.confirms@example.org'], ['l', list.uuid]]).toString(),
    });

    const [mail] = await waitForMailTo(sink, 'round.trip@example.org');
    expect(mail!.parsed.subject).toBe('Confirm your subscription');
    expect(mail!.parsed.text ?? mail!.parsed.html).toContain('Confirmed readers');
    const link = optinLink(mail!);

    const page = await fetch(local(link));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('Confirm subscription');
    const member = async (email: string) => {
      const res = await t.api('GET', `/api/subscribers/lists/${list.id}?search=${encodeURIComponent(email)}`);
      return res.body.data.results[0].lists[0].subscription_status as string;
    };
    expect(await member('round.trip@example.org')).toBe('unconfirmed');

    // Submit the page's own form: its action and hidden fields.
    const action = /<form method="post" action="([^"]+)">/u.exec(html)![1]!;
    const fields = [...html.matchAll(/<input type="hidden" name="l" value="([^"]+)">/gu)].map((m) => ['l', m[1]!] as [string, string]);
    expect(fields).toEqual([['l', list.uuid]]);
    const confirm = await fetch(`${base}${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('Subscription confirmed');
    expect(await member('round.trip@example.org')).toBe('confirmed');
    expect(await member('never.confirms@example.org')).toBe('unconfirmed');

    const campaign = (await t.api('POST', '/api/campaigns', {
      name: 'First issue', subject: 'Welcome {{ .Subscriber.FirstName }}', lists: [list.id], type: 'regular', content_type: 'html', body: '<p>Hello {{ .Subscriber.Name }}</p>',
    })).body.data;
    expect((await t.api('PUT', `/api/campaigns/${campaign.id}/status`, { status: 'running' })).status).toBe(200);
    const done = await waitForCampaign(t, campaign.id, 'finished');
    expect(done).toMatchObject({ sent: 1, to_send: 1 });
    const received = mailsTo(sink, 'round.trip@example.org').filter((m) => m.parsed.subject === 'Welcome Round');
    expect(received).toHaveLength(1);
    expect(received[0]!.parsed.html).toContain('<p>Hello Round Trip</p>');
    expect(mailsTo(sink, 'never.confirms@example.org').filter((m) => m.parsed.subject?.startsWith('Welcome'))).toHaveLength(0);
  });
});
