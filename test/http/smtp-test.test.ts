/**
 * POST /api/settings/smtp/test (listmonk's "test connection", issue 16), on both stores, against real
 * SMTP servers: the test e-mail arrives; a masked password means the stored one only while host, port,
 * username and TLS are unchanged; a refused login, a refused recipient and a dead port are 400s with a
 * clear message (the generic one for connection and login failures, as for every send); bad input is
 * a 400 naming the field, never a 500.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../src/modules/users/service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_FAILED } from '../../src/mail/messenger.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/server-process.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

let t: TestApp;
let open: SmtpSink;
let locked: SmtpSink;
let other: SmtpSink;

/** An SMTP block for a sink, as the settings form sends it. */
function block(sink: SmtpSink, extra: Record<string, unknown> = {}) {
  return {
    uuid: 'block-1', name: 'primary', enabled: true, host: '127.0.0.1', port: sink.port, hello_hostname: '', auth_protocol: 'none',
    username: '', password: '', tls_type: 'none', tls_skip_verify: false, max_conns: 5, idle_timeout: '15s', wait_timeout: '5s',
    max_msg_retries: 2, email_headers: [], ...extra,
  };
}

beforeAll(async () => {
  open = await startSmtpSink();
  locked = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
  other = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
  t = await buildTestApp({ env: { MAILROOM_API_ONLY: 'true' } });
  const saved = await t.api('PUT', '/api/settings', { smtp: [block(locked, { auth_protocol: 'login', username: 'mailer', password: 's3cret' })] });
  expect(saved.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.close();
  for (const s of [open, locked, other]) await s?.close();
});

describe('SMTP test', () => {
  it('sends the test e-mail through the posted server, from app.from_email', async () => {
    const res = await t.api('POST', '/api/settings/smtp/test', { ...block(open, { uuid: 'unsaved' }), email: 'Ops@Example.com' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([`test e-mail sent to ops@example.com through 127.0.0.1:${open.port}`]);
    await open.waitFor(1);
    const mail = open.messages[0]!;
    expect(mail.envelope.to).toEqual(['ops@example.com']);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Mailroom Test', address: 'news@mailroom.test' }]);
    expect(mail.parsed.subject).toBe('Check the connection');
    expect(mail.parsed.text).toContain(`127.0.0.1:${open.port}`);
  });

  it('uses the stored password for a masked one while the server is the same', async () => {
    const masked = (await t.api('GET', '/api/settings')).body.data.smtp[0];
    expect(masked.password).toBe('••••••');
    const res = await t.api('POST', '/api/settings/smtp/test', { ...masked, email: 'ops@example.com' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await locked.waitFor(1);
    expect(locked.messages[0]!.envelope.to).toEqual(['ops@example.com']);
  });

  it('refuses a masked password for another port, and never sends the stored one there', async () => {
    const masked = (await t.api('GET', '/api/settings')).body.data.smtp[0];
    const res = await t.api('POST', '/api/settings/smtp/test', { ...masked, port: other.port, email: 'ops@example.com' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^password: must be sent again: port changed/);
    // The password itself is accepted for the new server.
    const typed = await t.api('POST', '/api/settings/smtp/test', { ...masked, port: other.port, password: 's3cret', email: 'ops@example.com' });
    expect(typed.status).toBe(200);
    expect(other.messages).toHaveLength(1);
  });

  it('answers 400 with the generic message when the login is refused or the port is dead', async () => {
    const wrong = await t.api('POST', '/api/settings/smtp/test', { ...block(locked), auth_protocol: 'login', username: 'mailer', password: 'wrong', email: 'ops@example.com' });
    expect(wrong).toMatchObject({ status: 400, body: { message: `the test e-mail could not be sent: ${CONNECTION_FAILED}` } });
    const dead = await t.api('POST', '/api/settings/smtp/test', { ...block(open), port: await freePort(), email: 'ops@example.com' });
    expect(dead).toMatchObject({ status: 400, body: { message: `the test e-mail could not be sent: ${CONNECTION_FAILED}` } });
  });

  it('answers 400 with the server\'s reply when it refuses the recipient', async () => {
    open.reject = () => 550;
    try {
      const res = await t.api('POST', '/api/settings/smtp/test', { ...block(open), email: 'nobody@example.com' });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^the test e-mail could not be sent: .*550/);
    } finally {
      open.reject = null;
    }
  });

  it('refuses bad input with 400 naming the field, sending nothing', async () => {
    const before = open.messages.length;
    const cases: Array<[unknown, RegExp]> = [
      ['', /^host: is required|^body/],
      [{}, /is required/],
      [{ ...block(open) }, /^email: is required/],
      [{ ...block(open), email: null }, /^email: must not be null/],
      [{ ...block(open), email: 'not-an-address' }, /^email: /],
      [{ ...block(open), email: 42 }, /^email: must be string/],
      [{ ...block(open), host: undefined, email: 'a@example.com' }, /^host: is required/],
      [{ ...block(open), host: null, email: 'a@example.com' }, /^host: must not be null/],
      [{ ...block(open), port: 'x', email: 'a@example.com' }, /^port: must be integer/],
      [{ ...block(open), port: 70000, email: 'a@example.com' }, /^port: /],
      [{ ...block(open), tls_type: 'SSL', email: 'a@example.com' }, /^tls_type: /],
      [{ ...block(open), email_headers: [{ Bcc: 'spy@example.com' }], email: 'a@example.com' }, /^email_headers\.0/],
      [{ ...block(open), wait_timeout: 'soon', email: 'a@example.com' }, /^wait_timeout: /],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('POST', '/api/settings/smtp/test', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    // Optional fields sent as null are "not given": the defaults apply.
    const nulls = await t.api('POST', '/api/settings/smtp/test', { host: '127.0.0.1', port: open.port, tls_type: 'none', password: null, uuid: null, email: 'a@example.com' });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(200);
    expect(open.messages.length).toBe(before + 1);
  });
});

let seq = 0;
/** An API user whose role holds `permissions`; answers its Authorization header (`token user:token`). */
async function apiUser(permissions: string[]): Promise<string> {
  seq += 1;
  const token = randomBytes(24).toString('hex');
  const [role] = await t.testDb.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`ops role ${seq}`, permissions]);
  await t.testDb.db.sql(`INSERT INTO users (username, password_hash, type, user_role_id, status, email) VALUES ($1, $2, 'api', $3, 'enabled', $4)`, [`ops-${seq}`, hashToken(token), role!.id, `ops-${seq}@api`]);
  return `token ops-${seq}:${token}`;
}

describe('SMTP test: permissions', () => {
  it('answers 403 without settings:manage, and works with it', async () => {
    const body = { ...block(open), email: 'perm@example.com' };
    const denied = await t.api('POST', '/api/settings/smtp/test', body, { authorization: await apiUser(['settings:get', 'settings:maintain']) });
    expect(denied).toMatchObject({ status: 403, body: { message: 'permission denied: settings:manage' } });
    expect((await t.api('POST', '/api/settings/smtp/test', body, { authorization: await apiUser(['settings:manage']) })).status).toBe(200);
  });
});
