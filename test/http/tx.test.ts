/**
 * Transactional messages, spec 4.4 (reference §9): what arrives at a real SMTP server (parsed with
 * mailparser), attachments, content types, recipient selection and modes, and every refusal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { headerValue, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let sink: SmtpSink;
let sampleTx: number;
let campaignTpl: number;
let markdownTx: number;
let strictTx: number;

async function insertTemplate(name: string, subject: string, body: string, type = 'tx'): Promise<number> {
  const [row] = await t.deps.db.sql<{ id: number }>('INSERT INTO templates (name, type, subject, body) VALUES ($1, $2, $3, $4) RETURNING id', [name, type, subject, body]);
  return row!.id;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: sink.url } });
  const templates = (await t.api('GET', '/api/templates')).body.data as Array<{ id: number; name: string; type: string }>;
  sampleTx = templates.find((x) => x.name === 'Sample transactional template')!.id;
  campaignTpl = templates.find((x) => x.type === 'campaign')!.id;
  markdownTx = await insertTemplate('Markdown tx', 'Your code, {{ .Subscriber.FirstName }}', '# Hello {{ .Subscriber.Name }}\n\nYour code is **{{ .Tx.Data.code }}**.\n\n- {{ .Tx.Data.items | join ", " }}\n');
  strictTx = await insertTemplate('Strict tx', 'Item', 'Item: {{ index .Tx.Data.items 2 }}');
  for (const [email, name, status] of [['ann@example.org', 'Ann Archer', 'enabled'], ['bob@example.org', 'Bob Brown', 'enabled'], ['blocked@example.org', 'Blocked Person', 'blocklisted'], ['refuse@example.org', 'Refused Reader', 'enabled']]) {
    const res = await t.api('POST', '/api/subscribers', { email, name, status, attribs: { city: 'Leeds' } });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
  await sink.close();
});
beforeEach(() => {
  sink.messages.length = 0;
  sink.reject = null;
});

async function postMultipart(parts: Part[]) {
  const { payload, contentType } = multipart(parts);
  const res = await t.app.inject({ method: 'POST', url: '/api/tx', payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() };
}

const idOf = async (email: string): Promise<number> => (await t.deps.db.sql<{ id: number }>('SELECT id FROM subscribers WHERE email = $1', [email]))[0]!.id;

describe('POST /api/tx delivers', () => {
  it('renders the sample template with .Tx.Data for one subscriber, without List-Unsubscribe', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ANN@example.org', template_id: sampleTx, data: { order_id: 'A-1001', shipping_date: '2026-12-01' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: true });
    // The answer came after the server accepted the message, so it is already there.
    expect(sink.messages).toHaveLength(1);
    const mail = sink.messages[0]!.parsed;
    expect(sink.messages[0]!.envelope.to).toEqual(['ann@example.org']);
    expect(mail.subject).toBe('Welcome Ann Archer');
    expect(mail.from?.value[0]).toEqual({ name: 'Mailroom Test', address: 'news@mailroom.test' });
    expect(mail.html).toContain('A-1001');
    expect(mail.html).toContain('2026-12-01');
    expect(headerValue(mail, 'List-Unsubscribe')).toBeUndefined();
    expect(headerValue(mail, 'List-Unsubscribe-Post')).toBeUndefined();
  });

  it('sends two attachments intact with .Tx.Data values, sender and headers (multipart)', async () => {
    const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    const text = 'Invoice A-2002\nTotal: 12.50 EUR\n';
    const data = {
      subscriber_id: await idOf('bob@example.org'),
      template_id: sampleTx,
      from_email: 'Shop Orders <orders@shop.test>',
      headers: [{ 'X-Order-Id': 'A-2002' }, { 'Reply-To': 'help@shop.test' }],
      data: { order_id: 'A-2002', shipping_date: 'tomorrow & later' },
    };
    const res = await postMultipart([
      { name: 'data', value: JSON.stringify(data) },
      { name: 'file', filename: 'photo.bin', content: binary, type: 'application/octet-stream' },
      { name: 'file', filename: 'invoice.txt', content: text, type: 'text/plain' },
    ]);
    expect(res.status).toBe(200);
    const mail = sink.messages[0]!.parsed;
    expect(mail.from?.value[0]).toEqual({ name: 'Shop Orders', address: 'orders@shop.test' });
    expect(headerValue(mail, 'X-Order-Id')).toBe('A-2002');
    expect(mail.replyTo?.text).toBe('help@shop.test');
    expect(mail.html).toContain('A-2002');
    expect(mail.html).toContain('tomorrow &amp; later');
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([['photo.bin', 'application/octet-stream'], ['invoice.txt', 'text/plain']]);
    expect(mail.attachments[0]!.content.equals(binary)).toBe(true);
    expect(mail.attachments[1]!.content.toString('utf8')).toBe(text);
  });

  it('converts a markdown template to HTML', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: markdownTx, content_type: 'markdown', data: { code: '123-456', items: ['tea', 'cake'] } });
    expect(res.status).toBe(200);
    const mail = sink.messages[0]!.parsed;
    expect(mail.subject).toBe('Your code, Ann');
    expect(mail.html).toContain('<h1>Hello Ann Archer</h1>');
    expect(mail.html).toContain('<strong>123-456</strong>');
    expect(mail.html).toContain('<li>tea, cake</li>');
  });

  it('sends plain text as text only, with the subject override rendered', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: markdownTx, content_type: 'plain', subject: 'Code for {{ .Subscriber.Email }}: {{ .Tx.Data.code }}', data: { code: '<7>', items: [] } });
    expect(res.status).toBe(200);
    const mail = sink.messages[0]!.parsed;
    expect(mail.subject).toBe('Code for ann@example.org: <7>');
    expect(mail.html).toBe(false);
    expect(mail.text).toContain('Your code is **<7>**');
  });

  it('sends one message per recipient with each subscriber\'s data', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_ids: [await idOf('ann@example.org'), await idOf('bob@example.org')], template_id: sampleTx, data: { order_id: 'X', shipping_date: 'Y' } });
    expect(res.status).toBe(200);
    expect(sink.messages.map((m) => m.parsed.subject).sort()).toEqual(['Welcome Ann Archer', 'Welcome Bob Brown']);
  });

  it('uses a template edited after it was cached', async () => {
    const id = await insertTemplate('Editable', 'Version {{ .Tx.Data.v }}', 'one');
    await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: id, content_type: 'plain', data: { v: 1 } });
    await t.deps.db.sql("UPDATE templates SET body = 'two', subject = 'Edited {{ .Tx.Data.v }}', updated_at = now() + interval '1 second' WHERE id = $1", [id]);
    await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: id, content_type: 'plain', data: { v: 2 } });
    expect(sink.messages.map((m) => [m.parsed.subject, m.parsed.text?.trim()])).toEqual([['Version 1', 'one'], ['Edited 2', 'two']]);
  });
});

describe('POST /api/tx subscriber modes', () => {
  it('default: sends to the subscribers found, then answers 400 naming the others', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_emails: ['bob@example.org', 'nobody@example.org'], template_id: sampleTx });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('subscriber_emails: sent to 1 of 2 recipients; not found: nobody@example.org');
    expect(sink.messages.map((m) => m.envelope.to[0])).toEqual(['bob@example.org']);
    const byId = await t.api('POST', '/api/tx', { subscriber_id: 999999, template_id: sampleTx });
    expect(byId.status).toBe(400);
    expect(byId.body.message).toBe('subscriber_id: sent to 0 of 1 recipient; not found: subscriber 999999');
  });

  it('fallback: mails unknown addresses as bare recipients and known ones as subscribers', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_emails: ['stranger@example.net', 'ann@example.org'], subscriber_mode: 'fallback', template_id: markdownTx, content_type: 'plain', subject: '{{ .Subscriber.Email }}/{{ .Subscriber.Name }}' });
    expect(res.status).toBe(200);
    expect(sink.messages.map((m) => m.parsed.subject).sort()).toEqual(['ann@example.org/Ann Archer', 'stranger@example.net/']);
  });

  it('external: never looks subscribers up, and refuses ids', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', subscriber_mode: 'external', template_id: markdownTx, content_type: 'plain', subject: '[{{ .Subscriber.Name }}]' });
    expect(res.status).toBe(200);
    expect(sink.messages[0]!.parsed.subject).toBe('[]');
    const ids = await t.api('POST', '/api/tx', { subscriber_ids: [1], subscriber_mode: 'external', template_id: sampleTx });
    expect(ids.status).toBe(400);
    expect(ids.body.message).toBe('subscriber_ids: cannot be used with subscriber_mode "external", which takes e-mail addresses');
  });

  it('does not mail blocklisted subscribers and says so', async () => {
    const res = await t.api('POST', '/api/tx', { subscriber_emails: ['blocked@example.org', 'ann@example.org'], template_id: sampleTx });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('subscriber_emails: sent to 1 of 2 recipients; blocklisted: blocked@example.org');
    expect(sink.messages.map((m) => m.envelope.to[0])).toEqual(['ann@example.org']);
  });
});

describe('POST /api/tx when the mail server refuses', () => {
  it('answers 502 naming a recipient refused for good (5xx), after sending to the rest', async () => {
    sink.reject = (rcpt) => (rcpt === 'refuse@example.org' ? 550 : null);
    const res = await t.api('POST', '/api/tx', { subscriber_emails: ['refuse@example.org', 'ann@example.org'], template_id: sampleTx });
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/^subscriber_emails: sent to 1 of 2 recipients; not accepted: refuse@example\.org \(550 /);
    expect(sink.messages.map((m) => m.envelope.to[0])).toEqual(['ann@example.org']);
  });

  it('answers 503 when the server keeps failing temporarily (4xx)', async () => {
    sink.reject = () => 451;
    const res = await t.api('POST', '/api/tx', { subscriber_email: 'ann@example.org', template_id: sampleTx });
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/^subscriber_email: sent to 0 of 1 recipient; failed temporarily: ann@example\.org \(451 /);
    expect(sink.messages).toHaveLength(0);
  });
});

describe('POST /api/tx refuses bad requests and sends nothing', () => {
  const cases: Array<[string, () => Promise<Record<string, unknown>>, RegExp]> = [
    ['no recipient selector', async () => ({ template_id: sampleTx }), /^subscriber_email, subscriber_id, subscriber_emails, subscriber_ids: give exactly one of them \(got none\)$/],
    ['two selectors', async () => ({ template_id: sampleTx, subscriber_email: 'ann@example.org', subscriber_ids: [1] }), /give exactly one of them \(got subscriber_email and subscriber_ids\)$/],
    ['an empty list of addresses', async () => ({ template_id: sampleTx, subscriber_emails: [] }), /^subscriber_emails: must not be empty$/],
    ['an invalid address', async () => ({ template_id: sampleTx, subscriber_emails: ['ann@example.org', 'not an address'] }), /^subscriber_emails\.1: is not a valid e-mail address$/],
    ['a missing template_id', async () => ({ subscriber_email: 'ann@example.org' }), /^template_id: is required$/],
    ['an unknown template', async () => ({ subscriber_email: 'ann@example.org', template_id: 999999 }), /^template_id: template 999999 not found$/],
    ['a campaign template', async () => ({ subscriber_email: 'ann@example.org', template_id: campaignTpl }), /^template_id: template \d+ is a campaign template; \/api\/tx needs a transactional \(tx\) template$/],
    ['an unknown messenger', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, messenger: 'pigeon' }), /^messenger: unknown messenger "pigeon"; available: email$/],
    ['a bad from_email', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, from_email: 'nobody' }), /^from_email: must be `Name <address>` or an e-mail address$/],
    ['a reserved header', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, headers: [{ 'X-Ok': '1' }, { Subject: 'x' }] }), /^headers\.1: "Subject" is set by Mailroom and cannot be given$/],
    ['a header with a line break', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, headers: [{ 'X-Evil': 'a\r\nBcc: victim@example.org' }] }), /^headers\.0: the value of "X-Evil" must not contain line breaks$/],
    ['a bad content_type', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, content_type: 'pdf' }), /^content_type: must be one of html, markdown, plain, richtext$/],
    ['data that is not an object', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, data: [1, 2] }), /^data: must be object$/],
    ['a subject that does not parse', async () => ({ subscriber_email: 'ann@example.org', template_id: sampleTx, subject: '{{ .Tx.Data.x | }}' }), /^subject: template: subject:1/],
    ['a template failing for this data', async () => ({ subscriber_emails: ['ann@example.org', 'bob@example.org'], template_id: strictTx, data: { items: [1] } }), /^template_id: template \d+ could not be rendered for ann@example\.org: .*index out of range/],
  ];
  for (const [what, body, message] of cases) {
    it(`answers 400 for ${what}`, async () => {
      const res = await t.api('POST', '/api/tx', await body());
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(sink.messages).toHaveLength(0);
    });
  }

  it('answers 400 for a multipart request without data or with malformed JSON', async () => {
    const none = await postMultipart([{ name: 'file', filename: 'a.txt', content: 'x' }]);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('data: is required: the message as JSON');
    const bad = await postMultipart([{ name: 'data', value: '{"template_id": ' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^data: malformed JSON/);
    const wrongField = await postMultipart([{ name: 'data', value: '{}' }, { name: 'attachment', filename: 'a.txt', content: 'x' }]);
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.message).toBe('attachment: attachments must be sent as `file` parts');
    expect(sink.messages).toHaveLength(0);
  });

  it('answers 400 for a truncated multipart request', async () => {
    const { payload, contentType } = multipart([{ name: 'data', value: JSON.stringify({ subscriber_email: 'ann@example.org', template_id: sampleTx }) }, { name: 'file', filename: 'a.bin', content: Buffer.alloc(5000, 7) }]);
    const res = await t.app.inject({ method: 'POST', url: '/api/tx', payload: payload.subarray(0, payload.length - 100), headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^body: malformed multipart\/form-data/);
    expect(sink.messages).toHaveLength(0);
  });

  it('answers 413 when attachments exceed tx.max_attachments_size', async () => {
    await t.api('PUT', '/api/settings', { 'tx.max_attachments_size': 4096 });
    try {
      const data = JSON.stringify({ subscriber_email: 'ann@example.org', template_id: sampleTx });
      const res = await postMultipart([{ name: 'data', value: data }, { name: 'file', filename: 'a.bin', content: Buffer.alloc(3000) }, { name: 'file', filename: 'b.bin', content: Buffer.alloc(3000) }]);
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('file: attachments are larger than the 4 KiB limit (setting tx.max_attachments_size)');
      expect(sink.messages).toHaveLength(0);
    } finally {
      await t.api('PUT', '/api/settings', { 'tx.max_attachments_size': 10 * 1024 * 1024 });
    }
  });

  it('answers 401 without credentials and 415 for a text body', async () => {
    const anon = await t.app.inject({ method: 'POST', url: '/api/tx', payload: { subscriber_email: 'ann@example.org', template_id: sampleTx } });
    expect(anon.statusCode).toBe(401);
    const text = await t.app.inject({ method: 'POST', url: '/api/tx', payload: 'hello', headers: { authorization: AUTH, 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expect(sink.messages).toHaveLength(0);
  });
});
