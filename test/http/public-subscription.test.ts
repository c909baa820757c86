/**
 * Public subscription (spec 4.1, part 5; reference §17; issue 3 §3–4): the public lists, the public
 * endpoint with JSON and form bodies, its rules (public lists only; unsubscribed → unconfirmed; opt-in
 * e-mail for double opt-in lists), abuse protection (per-IP rate limit, honeypot, identical answers),
 * the HTML form, and the double opt-in pages (GET shows, POST confirms).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailsTo, optinLink, waitForMailTo } from '../helpers/mail.js';
import { multipart } from '../helpers/multipart.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
const lists: Record<string, { id: number; uuid: string }> = {};
let ipSeq = 0;

/** An unauthenticated request, from a fresh IP address unless `ip` is given. */
async function pub(method: string, url: string, opts: { json?: unknown; form?: Array<[string, string]>; ip?: string } = {}) {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (opts.json !== undefined) [headers['content-type'], payload] = ['application/json', JSON.stringify(opts.json)];
  if (opts.form !== undefined) [headers['content-type'], payload] = ['application/x-www-form-urlencoded', new URLSearchParams(opts.form).toString()];
  const res = await t.app.inject({ method: method as 'GET', url, headers, remoteAddress: opts.ip ?? `10.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`, ...(payload !== undefined ? { payload } : {}) });
  let body: any = res.body;
  try {
    body = JSON.parse(res.body);
  } catch {
    /* HTML */
  }
  return { status: res.statusCode, body, headers: res.headers, text: res.body };
}
async function subscriber(email: string) {
  const res = await t.api('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = '${email}'`)}`);
  return res.body.data.results[0] as { id: number; uuid: string; name: string; status: string; lists: Array<{ id: number; subscription_status: string }> } | undefined;
}
const statuses = (s: { lists: Array<{ id: number; subscription_status: string }> } | undefined) =>
  Object.fromEntries((s?.lists ?? []).map((l) => [l.id, l.subscription_status]));

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
  const make = async (key: string, body: Record<string, unknown>) => {
    const l = (await t.api('POST', '/api/lists', body)).body.data;
    lists[key] = { id: l.id, uuid: l.uuid };
  };
  await make('news', { name: 'News', type: 'public', optin: 'single' });
  await make('digest', { name: 'Digest', type: 'public', optin: 'double' });
  await make('weekly', { name: 'Weekly <b>"best"</b>', type: 'public', optin: 'double' });
  await make('private', { name: 'Staff only', type: 'private', optin: 'single' });
  await make('archived', { name: 'Old news', type: 'public', optin: 'single', status: 'archived' });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

describe('GET /api/public/lists', () => {
  it('answers the public, active lists as a bare array of uuid and name, without credentials', async () => {
    const res = await pub('GET', '/api/public/lists');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { uuid: lists['digest']!.uuid, name: 'Digest' },
      { uuid: lists['news']!.uuid, name: 'News' },
      { uuid: lists['weekly']!.uuid, name: 'Weekly <b>"best"</b>' },
    ]);
  });
});

describe('POST /api/public/subscription', () => {
  it('creates the subscriber with unconfirmed memberships and sends the opt-in e-mail for double opt-in lists', async () => {
    const res = await pub('POST', '/api/public/subscription', { json: { email: 'New.Reader@Example.com', list_uuids: [lists['news']!.uuid, lists['digest']!.uuid] } });
    expect(res).toMatchObject({ status: 200, body: { data: true } });
    const s = await subscriber('new.reader@example.com');
    expect(s).toMatchObject({ name: 'New Reader', status: 'enabled' });
    expect(statuses(s)).toEqual({ [lists['news']!.id]: 'unconfirmed', [lists['digest']!.id]: 'unconfirmed' });
    const [mail] = await waitForMailTo(sink, 'new.reader@example.com');
    expect(optinLink(mail!)).toBe(`http://mailroom.test/subscription/optin/${s!.uuid}?l=${lists['digest']!.uuid}`);
    expect(mail!.parsed.html).toContain('Digest');
    expect(mail!.parsed.html).not.toContain('>News<');
  });

  it('accepts a form body with repeated l', async () => {
    const res = await pub('POST', '/api/public/subscription', { form: [['email', 'form.body@example.com'], ['name', 'Form Body'], ['l', lists['news']!.uuid], ['l', lists['weekly']!.uuid]] });
    expect(res).toMatchObject({ status: 200, body: { data: true } });
    const s = await subscriber('form.body@example.com');
    expect(s?.name).toBe('Form Body');
    expect(statuses(s)).toEqual({ [lists['news']!.id]: 'unconfirmed', [lists['weekly']!.id]: 'unconfirmed' });
  });

  it('adds memberships to an existing subscriber and turns unsubscribed ones unconfirmed again, keeping the name', async () => {
    const id = (await t.api('POST', '/api/subscribers', { email: 'known@example.com', name: 'Known', lists: [lists['news']!.id, lists['digest']!.id], preconfirm_subscriptions: true })).body.data.id;
    await t.api('PUT', `/api/subscribers/lists/${id}`, { action: 'unsubscribe', target_list_ids: [lists['news']!.id] });
    const res = await pub('POST', '/api/public/subscription', { json: { email: 'known@example.com', name: 'Someone Else', list_uuids: [lists['news']!.uuid, lists['digest']!.uuid, lists['weekly']!.uuid] } });
    expect(res.status).toBe(200);
    const s = await subscriber('known@example.com');
    expect(s?.name).toBe('Known');
    expect(statuses(s)).toEqual({ [lists['news']!.id]: 'unconfirmed', [lists['digest']!.id]: 'confirmed', [lists['weekly']!.id]: 'unconfirmed' });
    const [mail] = await waitForMailTo(sink, 'known@example.com');
    expect(optinLink(mail!)).toBe(`http://mailroom.test/subscription/optin/${s!.uuid}?l=${lists['weekly']!.uuid}`);
  });

  it('ignores private, archived, unknown and malformed list uuids; none valid is a 400 that creates nothing', async () => {
    const ok = await pub('POST', '/api/public/subscription', { json: { email: 'mixed@example.com', list_uuids: [lists['private']!.uuid, 'nope', lists['news']!.uuid, '00000000-0000-0000-0000-000000000001'] } });
    expect(ok.status).toBe(200);
    expect(statuses(await subscriber('mixed@example.com'))).toEqual({ [lists['news']!.id]: 'unconfirmed' });
    for (const list_uuids of [[lists['private']!.uuid], [lists['archived']!.uuid], [], ['x']]) {
      const res = await pub('POST', '/api/public/subscription', { json: { email: 'nolists@example.com', list_uuids } });
      expect(res).toMatchObject({ status: 400, body: { message: 'list_uuids: no public list selected' } });
    }
    expect(await subscriber('nolists@example.com')).toBeUndefined();
  });

  it('refuses bad e-mails and names with 400 naming the field', async () => {
    const l = [lists['news']!.uuid];
    expect((await pub('POST', '/api/public/subscription', { json: { email: 'Jane <jane@x.org>', list_uuids: l } })).body.message).toMatch(/^email: must be a bare address/);
    expect((await pub('POST', '/api/public/subscription', { json: { email: 'nope', list_uuids: l } })).body.message).toMatch(/^email: is not a valid/);
    expect((await pub('POST', '/api/public/subscription', { json: { list_uuids: l } })).body.message).toBe('email: is required');
    expect((await pub('POST', '/api/public/subscription', { json: { email: 'n@x.org', name: 'n'.repeat(2001), list_uuids: l } })).body.message).toMatch(/^name: must be at most 2000/);
    expect((await pub('POST', '/api/public/subscription', { json: { email: 'n@x.org', list_uuids: [1] } })).status).toBe(400);
  });

  it('answers identically whether the address is new, known, or blocklisted (which stays blocklisted)', async () => {
    await t.api('POST', '/api/subscribers', { email: 'exists@example.com', lists: [lists['digest']!.id] });
    await t.api('POST', '/api/subscribers', { email: 'banned@example.com', status: 'blocklisted' });
    const answers = [];
    for (const email of ['fresh@example.com', 'exists@example.com', 'banned@example.com']) {
      const res = await pub('POST', '/api/public/subscription', { json: { email, list_uuids: [lists['digest']!.uuid] } });
      answers.push({ status: res.status, body: res.text, type: res.headers['content-type'], length: res.headers['content-length'] });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const banned = await subscriber('banned@example.com');
    expect(banned?.status).toBe('blocklisted');
    expect(statuses(banned)).toEqual({});
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'banned@example.com')).toHaveLength(0);
  });

  it('treats a filled honeypot as success but does nothing', async () => {
    const res = await pub('POST', '/api/public/subscription', { json: { email: 'bot@example.com', list_uuids: [lists['digest']!.uuid], nonce: 'gotcha' } });
    expect(res).toMatchObject({ status: 200, body: { data: true } });
    expect(await subscriber('bot@example.com')).toBeUndefined();
    await t.deps.optinMailer.drain();
    expect(mailsTo(sink, 'bot@example.com')).toHaveLength(0);
  });

  it('throttles opt-in e-mails to one address (3 per hour)', async () => {
    const doubles = [];
    for (let i = 0; i < 4; i++) doubles.push((await t.api('POST', '/api/lists', { name: `Throttle ${i}`, type: 'public', optin: 'double' })).body.data.uuid);
    for (const uuid of doubles) {
      expect((await pub('POST', '/api/public/subscription', { json: { email: 'flooded@example.com', list_uuids: [uuid] } })).status).toBe(200);
      await t.deps.optinMailer.drain();
    }
    expect(mailsTo(sink, 'flooded@example.com')).toHaveLength(3);
    const id = (await subscriber('flooded@example.com'))!.id;
    expect((await t.api('POST', `/api/subscribers/${id}/optin`)).status).toBe(200);
    expect(mailsTo(sink, 'flooded@example.com')).toHaveLength(4);
  });
});

describe('per-IP rate limit', () => {
  it('answers 429 past the limit for one address, others unaffected; 0 turns it off', async () => {
    await t.deps.settings.update({ 'security.public_subscription_rate_limit': { requests: 3, window: '1m' } });
    try {
      const body = { json: { email: 'limited@example.com', list_uuids: [lists['news']!.uuid] }, ip: '192.0.2.7' };
      for (let i = 0; i < 3; i++) expect((await pub('POST', '/api/public/subscription', body)).status).toBe(200);
      const over = await pub('POST', '/api/public/subscription', body);
      expect(over.status).toBe(429);
      expect(over.body.message).toMatch(/^too many subscription requests from your address; try again in /);
      expect((await pub('POST', '/api/public/subscription', { ...body, ip: '192.0.2.8' })).status).toBe(200);
      const form = await pub('POST', '/subscription/form', { form: [['email', 'limited@example.com'], ['l', lists['news']!.uuid]], ip: '192.0.2.9' });
      expect(form.status).toBe(200);
      for (let i = 0; i < 3; i++) await pub('POST', '/subscription/form', { form: [['email', 'limited@example.com'], ['l', lists['news']!.uuid]], ip: '192.0.2.9' });
      const page = await pub('POST', '/subscription/form', { form: [['email', 'limited@example.com'], ['l', lists['news']!.uuid]], ip: '192.0.2.9' });
      expect(page.status).toBe(429);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Too many requests');
      await t.deps.settings.update({ 'security.public_subscription_rate_limit': { requests: 0, window: '1m' } });
      expect((await pub('POST', '/api/public/subscription', body)).status).toBe(200);
    } finally {
      await t.deps.settings.update({ 'security.public_subscription_rate_limit': { requests: 10, window: '1m' } });
    }
  });
});

describe('one rate limit across the API and the form (issue 14 finding 9)', () => {
  it('counts the API and the form, in any body encoding, against one limit per address; a forged X-Forwarded-For does not escape it', async () => {
    await t.deps.settings.update({ 'security.public_subscription_rate_limit': { requests: 4, window: '1m' } });
    try {
      const ip = '198.51.100.23';
      const uuid = lists['news']!.uuid;
      let n = 0;
      const forged = () => ({ 'x-forwarded-for': `203.0.113.${++n}` });
      const mp = multipart([{ name: 'email', value: 'alternate@example.com' }, { name: 'l', value: uuid }]);
      const send = [
        () => t.app.inject({ method: 'POST', url: '/api/public/subscription', remoteAddress: ip, headers: { 'content-type': 'application/json', ...forged() }, payload: JSON.stringify({ email: 'alternate@example.com', list_uuids: [uuid] }) }),
        () => t.app.inject({ method: 'POST', url: '/subscription/form', remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded', ...forged() }, payload: `email=alternate%40example.com&l=${uuid}` }),
        () => t.app.inject({ method: 'POST', url: '/api/public/subscription', remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded', ...forged() }, payload: `email=alternate%40example.com&l=${uuid}` }),
        () => t.app.inject({ method: 'POST', url: '/subscription/form', remoteAddress: ip, headers: { 'content-type': mp.contentType, ...forged() }, payload: mp.payload }),
      ];
      const statuses: number[] = [];
      for (const s of send) statuses.push((await s()).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200]);
      // The fifth and sixth, one through each entry point, are over the shared limit.
      expect((await send[0]!()).statusCode).toBe(429);
      const page = await send[1]!();
      expect(page.statusCode).toBe(429);
      expect(page.body).toContain('Too many requests');
      // Another address still has its own full count.
      expect((await pub('POST', '/subscription/form', { form: [['email', 'alternate@example.com'], ['l', uuid]], ip: '198.51.100.24' })).status).toBe(200);
    } finally {
      await t.deps.settings.update({ 'security.public_subscription_rate_limit': { requests: 10, window: '1m' } });
    }
  });
});

describe('the subscription form', () => {
  it('is a usable HTML page listing the public lists, escaped, with a hidden honeypot', async () => {
    const res = await pub('GET', `/subscription/form?l=${lists['digest']!.uuid}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<form method="post" action="/subscription/form">');
    expect(res.text).toContain('name="email"');
    expect(res.text).toContain(`<input type="checkbox" name="l" value="${lists['digest']!.uuid}" checked> Digest`);
    expect(res.text).toContain(`value="${lists['news']!.uuid}"> News`);
    expect(res.text).toContain('Weekly &lt;b&gt;&quot;best&quot;&lt;/b&gt;');
    expect(res.text).not.toContain('<b>"best"</b>');
    expect(res.text).not.toContain('Staff only');
    expect(res.text).toMatch(/<input type="text" name="nonce" value="" tabindex="-1" autocomplete="off">/);
  });

  it('subscribes from a form post and says to check the inbox only for double opt-in lists', async () => {
    const double = await pub('POST', '/subscription/form', { form: [['email', 'page.double@example.com'], ['name', ''], ['l', lists['digest']!.uuid], ['nonce', '']] });
    expect(double.status).toBe(200);
    expect(double.text).toContain('Click the link in it to confirm');
    const single = await pub('POST', '/subscription/form', { form: [['email', 'page.single@example.com'], ['l', lists['news']!.uuid]] });
    expect(single.text).toContain('You are subscribed.');
    expect(statuses(await subscriber('page.single@example.com'))).toEqual({ [lists['news']!.id]: 'unconfirmed' });
    await waitForMailTo(sink, 'page.double@example.com');
  });

  it('shows the form again, with the values typed (escaped) and what was wrong', async () => {
    const bad = await pub('POST', '/subscription/form', { form: [['email', '"><script>alert(1)</script>'], ['name', '<i>me</i>'], ['l', lists['news']!.uuid]] });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid e-mail address');
    expect(bad.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(bad.text).toContain('value="&lt;i&gt;me&lt;/i&gt;"');
    expect(bad.text).not.toContain('<script>alert(1)');
    const none = await pub('POST', '/subscription/form', { form: [['email', 'nolist@example.com']] });
    expect([none.status, none.text.includes('Choose at least one list.')]).toEqual([400, true]);
    const empty = await pub('POST', '/subscription/form', {});
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('<form method="post"');
  });

  it('is off (404) together with the public endpoint when public subscription is disabled', async () => {
    await t.deps.settings.update({ 'app.enable_public_subscription_page': false });
    try {
      expect((await pub('GET', '/subscription/form')).status).toBe(404);
      expect((await pub('POST', '/subscription/form', { form: [['email', 'off@example.com'], ['l', lists['news']!.uuid]] })).status).toBe(404);
      const api = await pub('POST', '/api/public/subscription', { json: { email: 'off@example.com', list_uuids: [lists['news']!.uuid] } });
      expect(api).toMatchObject({ status: 404, body: { message: 'public subscription is not enabled' } });
      expect(await subscriber('off@example.com')).toBeUndefined();
    } finally {
      await t.deps.settings.update({ 'app.enable_public_subscription_page': true });
    }
  });
});

describe('double opt-in pages', () => {
  it('GET shows what will be confirmed and never confirms; POST confirms only the lists in the link', async () => {
    await t.api('POST', '/api/subscribers', { email: 'two.lists@example.com', lists: [lists['digest']!.id, lists['weekly']!.id] });
    const s = (await subscriber('two.lists@example.com'))!;
    const url = `/subscription/optin/${s.uuid}?l=${lists['weekly']!.uuid}`;
    const page = await pub('GET', url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Weekly &lt;b&gt;');
    expect(page.text).not.toContain('Digest');
    expect(page.text).toContain(`<form method="post" action="/subscription/optin/${s.uuid}">`);
    expect(page.text).toContain(`<input type="hidden" name="l" value="${lists['weekly']!.uuid}">`);
    await pub('GET', url);
    expect(statuses(await subscriber('two.lists@example.com'))).toEqual({ [lists['digest']!.id]: 'unconfirmed', [lists['weekly']!.id]: 'unconfirmed' });
    const done = await pub('POST', `/subscription/optin/${s.uuid}`, { form: [['l', lists['weekly']!.uuid]] });
    expect([done.status, done.text.includes('Subscription confirmed')]).toEqual([200, true]);
    expect(statuses(await subscriber('two.lists@example.com'))).toEqual({ [lists['digest']!.id]: 'unconfirmed', [lists['weekly']!.id]: 'confirmed' });
    const again = await pub('POST', `/subscription/optin/${s.uuid}`, { form: [['l', lists['weekly']!.uuid]] });
    expect(again.text).toContain('Nothing to confirm');
    await pub('POST', `/subscription/optin/${s.uuid}`);
    expect(statuses(await subscriber('two.lists@example.com'))).toEqual({ [lists['digest']!.id]: 'confirmed', [lists['weekly']!.id]: 'confirmed' });
  });

  it('records the confirming IP only when privacy.record_optin_ip is on', async () => {
    await t.api('POST', '/api/subscribers', { email: 'ip.off@example.com', lists: [lists['digest']!.id] });
    await t.api('POST', '/api/subscribers', { email: 'ip.on@example.com', lists: [lists['digest']!.id] });
    await pub('POST', `/subscription/optin/${(await subscriber('ip.off@example.com'))!.uuid}`, { ip: '198.51.100.1' });
    await t.deps.settings.update({ 'privacy.record_optin_ip': true });
    try {
      await pub('POST', `/subscription/optin/${(await subscriber('ip.on@example.com'))!.uuid}`, { ip: '198.51.100.2' });
    } finally {
      await t.deps.settings.update({ 'privacy.record_optin_ip': false });
    }
    const meta = await t.testDb.db.sql<{ email: string; meta: Record<string, unknown>; status: string }>(
      "SELECT s.email, sl.meta, sl.status FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email LIKE 'ip.%' ORDER BY s.email",
    );
    expect(meta).toEqual([{ email: 'ip.off@example.com', meta: {}, status: 'confirmed' }, { email: 'ip.on@example.com', meta: { optin_ip: '198.51.100.2' }, status: 'confirmed' }]);
  });

  it('answers HTML errors: 404 for unknown or malformed subscribers, 400 for a malformed list uuid', async () => {
    const unknown = await pub('GET', '/subscription/optin/00000000-0000-0000-0000-00000000abcd');
    expect([unknown.status, unknown.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    expect((await pub('POST', '/subscription/optin/not-a-uuid')).status).toBe(404);
    const s = (await subscriber('two.lists@example.com'))!;
    const bad = await pub('GET', `/subscription/optin/${s.uuid}?l=nope`);
    expect([bad.status, bad.text.includes('This link is not valid.')]).toEqual([400, true]);
  });

  it("confirms nothing for a blocklisted subscriber", async () => {
    await t.api('POST', '/api/subscribers', { email: 'blocked.page@example.com', lists: [lists['digest']!.id] });
    const s = (await subscriber('blocked.page@example.com'))!;
    await t.api('PUT', `/api/subscribers/${s.id}/blocklist`);
    expect((await pub('GET', `/subscription/optin/${s.uuid}`)).text).toContain('Nothing to confirm');
    await pub('POST', `/subscription/optin/${s.uuid}`);
    expect(statuses(await subscriber('blocked.page@example.com'))).toEqual({ [lists['digest']!.id]: 'unsubscribed' });
  });
});
