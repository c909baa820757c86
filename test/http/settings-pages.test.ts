/**
 * The settings page through the real app (issue 16 "Settings"): the form shows every setting, a save
 * writes what changed (303 + notice), a refused value comes back beside its field with 422 and nothing
 * saved, secrets never reach the HTML and survive a save, settings:get alone sees a read-only form and
 * cannot post, the CSRF token is required, SMTP blocks can be added and removed without JavaScript, and
 * the SMTP test sends through a real SMTP server (form post and htmx).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { formFields } from '../helpers/html-form.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { expectCspSafe } from '../helpers/ui.js';
import { NOTICE_COOKIE } from '../../src/ui/notice.js';

const SMTP_SECRET = 'smtp-pass-Zq81';
const S3_SECRET = 's3-secret-Wk22';

let t: TestApp;
let sink: SmtpSink;
beforeAll(async () => {
  t = await buildTestApp();
  sink = await startSmtpSink();
  const [smtp] = t.deps.settings.get(t.deps.core.smtp);
  await t.deps.settings.update({
    smtp: [{ ...smtp!, auth_protocol: 'login', username: 'mailer', password: SMTP_SECRET }],
    'upload.s3.aws_secret_access_key': S3_SECRET,
  });
});
afterAll(async () => {
  await sink?.close();
  await t?.close();
});

let seq = 0;
/** A signed-in user whose role holds `permissions` (or role 1, Super Admin): its cookie and CSRF token. */
async function signedIn(permissions: string[] | 'super') {
  seq += 1;
  let roleId = 1;
  if (permissions !== 'super') {
    const [role] = await t.deps.db.sql<{ id: number }>(`INSERT INTO roles (type, name, permissions) VALUES ('user', $1, $2) RETURNING id`, [`settings role ${seq}`, permissions]);
    roleId = role!.id;
  }
  const [user] = await t.deps.db.sql<{ id: number }>(
    `INSERT INTO users (username, password_hash, type, user_role_id, email) VALUES ($1, NULL, 'user', $2, $3) RETURNING id`,
    [`settings-${seq}`, roleId, `settings-${seq}@example.com`],
  );
  const token = await t.deps.sessions.start(user!.id, { ip: '127.0.0.1', userAgent: 'test' });
  const found = await t.deps.sessions.find(token);
  return { cookie: `session=${token}`, csrf: found!.principal.session!.csrf };
}

/** A setting's stored value, secrets unmasked. */
const stored = (key: string): unknown => t.deps.settings.get({ key, default: undefined } as never);

const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, cookie: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString() });

/** The settings form as the browser has it. */
async function currentForm(cookie: string): Promise<Record<string, string>> {
  const page = await get('/admin/settings', cookie);
  expect(page.statusCode).toBe(200);
  return formFields(page.body, /<form\b[^>]*data-cy="settings-form"/u);
}

describe('GET /admin/settings', () => {
  it('shows every setting in tabs, CSP-safe, with the secrets nowhere in the page', async () => {
    const s = await signedIn('super');
    const page = await get('/admin/settings?tab=smtp', s.cookie);
    expect(page.statusCode).toBe(200);
    expectCspSafe(page.body);
    for (const tab of ['general', 'performance', 'privacy', 'security', 'media', 'smtp', 'messengers', 'mailroom']) expect(page.body).toContain(`href="/admin/settings?tab=${tab}"`);
    const names = Object.keys(formFields(page.body, /<form\b[^>]*data-cy="settings-form"/u));
    for (const key of Object.keys(t.deps.settings.masked())) {
      if (key === 'messengers') continue; // no block yet: its "Add" button stands for it
      const present = names.some((n) => n === key || n.startsWith(`${key}.`)) || page.body.includes(`name="${key}"`);
      expect(present, key).toBe(true);
    }
    expect(page.body).not.toContain(SMTP_SECRET);
    expect(page.body).not.toContain(S3_SECRET);
    expect(page.body).not.toContain('•');
    expect(page.body).toContain('data-cy="btn-save"');
    expect(page.body).toContain('data-cy="btn-test-smtp"');
    expect(page.body).toMatch(/id="settings-panel-smtp"[^>]*tabindex/u);
  });

  it('answers settings:get with a read-only form without Save; settings:manage is needed to post', async () => {
    const viewer = await signedIn(['settings:get']);
    const page = await get('/admin/settings', viewer.cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('data-cy="btn-save"');
    expect(page.body).not.toContain('data-cy="btn-test-smtp"');
    expect(page.body).toMatch(/<fieldset class="settings-fields" disabled/u);
    const form = formFields(page.body, /<form\b[^>]*data-cy="settings-form"/u);
    const res = await post('/admin/settings', viewer.cookie, { ...form, 'app.concurrency': '3', _csrf: viewer.csrf });
    expect(res.statusCode).toBe(403);
    expect(t.deps.settings.get(t.deps.core.concurrency)).toBe(10);
    const test = await post('/admin/settings/smtp/test?server=0', viewer.cookie, { ...form, 'smtp_test_email.0': 'a@example.com', _csrf: viewer.csrf });
    expect(test.statusCode).toBe(403);
    const nobody = await signedIn(['lists:get_all']);
    expect((await get('/admin/settings', nobody.cookie)).statusCode).toBe(403);
  });
});

describe('POST /admin/settings', () => {
  it('saves a change: 303 to its tab with a notice; the value is stored and the SMTP password kept', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    const res = await post('/admin/settings', s.cookie, { ...form, 'app.concurrency': '7', _action: 'save' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/settings?tab=performance');
    expect(t.deps.settings.get(t.deps.core.concurrency)).toBe(7);
    expect(t.deps.settings.get(t.deps.core.smtp)[0]!.password).toBe(SMTP_SECRET);
    expect(stored('upload.s3.aws_secret_access_key')).toBe(S3_SECRET);
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    expect(cookie.startsWith(`${NOTICE_COOKIE}=`)).toBe(true);
    const next = await get('/admin/settings?tab=performance', `${s.cookie}; ${cookie}`);
    expect(next.body).toContain('Settings saved.');
    expect(next.body).toMatch(/name="app.concurrency"[^>]*value="7"/u);
  });

  it('writes only what changed, so a value changed meanwhile elsewhere is not overwritten', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    await t.deps.settings.update({ 'app.batch_size': 333 });
    const res = await post('/admin/settings', s.cookie, { ...form, 'app.max_send_errors': '55' });
    expect(res.statusCode).toBe(303);
    expect(t.deps.settings.get(t.deps.engine.maxSendErrors)).toBe(55);
    expect(t.deps.settings.get(t.deps.core.batchSize)).toBe(333);
  });

  it('a refused value: 422, the message beside the field named by the service, what was typed kept, nothing saved', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    const res = await post('/admin/settings', s.cookie, { ...form, 'app.concurrency': '9', 'smtp.0.port': '70000' });
    expect(res.statusCode).toBe(422);
    expectCspSafe(res.body);
    expect(res.body).toMatch(/id="f-smtp.0.port"[^>]*aria-describedby="f-smtp.0.port-error"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-smtp.0.port"/u);
    expect(res.body).toMatch(/<p class="field-error" id="f-smtp.0.port-error">.*must be at most 65535/u);
    expect(res.body).toMatch(/name="smtp.0.port"[^>]*value="70000"/u);
    expect(res.body).toMatch(/name="app.concurrency"[^>]*value="9"/u);
    expect(res.body).toContain('data-dirty="true"');
    // The SMTP tab is the one shown.
    expect(res.body).toMatch(/id="settings-tab-smtp"[^>]*aria-selected="true"/u);
    expect(t.deps.settings.get(t.deps.core.concurrency)).not.toBe(9);
    expect(t.deps.settings.get(t.deps.core.smtp)[0]!.port).not.toBe(70000);
    expect(res.body).not.toContain(SMTP_SECRET);
  });

  it('a typed password replaces the stored one; re-pointing the host without it asks for it beside the field', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    const moved = await post('/admin/settings', s.cookie, { ...form, 'smtp.0.host': 'relay.example.net' });
    expect(moved.statusCode).toBe(422);
    expect(moved.body).toMatch(/id="f-smtp.0.password-error">.*must be sent again/u);
    const res = await post('/admin/settings', s.cookie, { ...form, 'smtp.0.password': 'a-new-secret' });
    expect(res.statusCode).toBe(303);
    expect(t.deps.settings.get(t.deps.core.smtp)[0]!.password).toBe('a-new-secret');
    const page = await get('/admin/settings', s.cookie);
    expect(page.body).not.toContain('a-new-secret');
    await t.deps.settings.update({ smtp: [{ ...t.deps.settings.get(t.deps.core.smtp)[0]!, password: SMTP_SECRET }] });
  });

  it('lists one value a line, and saves the group fields of an object setting', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    const res = await post('/admin/settings', s.cookie, {
      ...form,
      'privacy.domain_blocklist': 'Spam.example\r\n\r\n  junk.example  ',
      'security.public_subscription_rate_limit.requests': '12',
      'security.public_subscription_rate_limit.window': '2m',
    });
    expect(res.statusCode).toBe(303);
    const all = t.deps.settings.masked();
    expect(all['privacy.domain_blocklist']).toEqual(['spam.example', 'junk.example']);
    expect(all['security.public_subscription_rate_limit']).toEqual({ requests: 12, window: '2m' });
  });

  it('adds and removes SMTP servers without JavaScript (re-rendered, not saved until Save)', async () => {
    const s = await signedIn('super');
    const form = await currentForm(s.cookie);
    const added = await post('/admin/settings', s.cookie, { ...form, _action: 'add:smtp' });
    expect(added.statusCode).toBe(200);
    expect(added.body).toContain('Not saved yet');
    expect(added.body).toContain('name="smtp.1.host"');
    expect(t.deps.settings.get(t.deps.core.smtp)).toHaveLength(1);
    const withTwo = formFields(added.body, /<form\b[^>]*data-cy="settings-form"/u);
    const saved = await post('/admin/settings', s.cookie, { ...withTwo, 'smtp.1.host': 'backup.example.net', 'smtp.1.name': 'backup' });
    expect(saved.statusCode).toBe(303);
    const servers = t.deps.settings.get(t.deps.core.smtp);
    expect(servers.map((b) => b.host)).toEqual([servers[0]!.host, 'backup.example.net']);
    expect(servers[0]!.password).toBe(SMTP_SECRET);
    expect(servers[1]!.password).toBe('');
    const again = await currentForm(s.cookie);
    const removed = await post('/admin/settings', s.cookie, { ...again, _action: 'remove:smtp.1' });
    expect(removed.body).not.toContain('name="smtp.1.host"');
    const save = await post('/admin/settings', s.cookie, formFields(removed.body, /<form\b[^>]*data-cy="settings-form"/u));
    expect(save.statusCode).toBe(303);
    expect(t.deps.settings.get(t.deps.core.smtp)).toHaveLength(1);
    expect(t.deps.settings.get(t.deps.core.smtp)[0]!.password).toBe(SMTP_SECRET);
  });

  it('requires the CSRF token', async () => {
    const s = await signedIn('super');
    const { _csrf: _, ...form } = await currentForm(s.cookie);
    const res = await post('/admin/settings', s.cookie, { ...form, 'app.concurrency': '4' });
    expect(res.statusCode).toBe(403);
    const wrong = await post('/admin/settings', s.cookie, { ...form, 'app.concurrency': '4', _csrf: 'not-it' });
    expect(wrong.statusCode).toBe(403);
    expect(t.deps.settings.get(t.deps.core.concurrency)).not.toBe(4);
  });
});

describe('POST /admin/settings/smtp/test', () => {
  const sinkServer = (form: Record<string, string>) => ({
    ...form,
    'smtp.0.host': '127.0.0.1',
    'smtp.0.port': String(sink.port),
    'smtp.0.auth_protocol': 'none',
    'smtp.0.username': '',
    'smtp.0.tls_type': 'none',
  });

  it('sends through the server as typed (form post) and shows the result beside it; nothing is saved', async () => {
    const s = await signedIn('super');
    const form = sinkServer(await currentForm(s.cookie));
    const before = sink.messages.length;
    const res = await post('/admin/settings/smtp/test?server=0', s.cookie, { ...form, 'smtp_test_email.0': 'check@example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('The test e-mail was sent to check@example.com.');
    expect(res.body).toMatch(/name="smtp.0.port"[^>]*value="\d+"/u);
    await sink.waitFor(before + 1);
    expect(sink.messages.at(-1)!.envelope.to).toEqual(['check@example.com']);
    expect(t.deps.settings.get(t.deps.core.smtp)[0]!.port).toBe(9);
  });

  it('htmx: answers the result box alone; a bad recipient is an error in it', async () => {
    const s = await signedIn('super');
    const form = sinkServer(await currentForm(s.cookie));
    const ok = await post('/admin/settings/smtp/test?server=0', s.cookie, { ...form, 'smtp_test_email.0': 'htmx@example.com' }, { 'hx-request': 'true' });
    expect(ok.statusCode).toBe(200);
    expect(ok.body.startsWith('<div id="smtp-test-result-0"')).toBe(true);
    expect(ok.body).toContain('notice-success');
    const bad = await post('/admin/settings/smtp/test?server=0', s.cookie, { ...form, 'smtp_test_email.0': 'not an address' }, { 'hx-request': 'true' });
    expect(bad.body).toContain('notice-error');
    const page = await post('/admin/settings/smtp/test?server=0', s.cookie, { ...form, 'smtp_test_email.0': 'not an address' });
    expect(page.statusCode).toBe(422);
    expect(page.body).toContain('id="f-smtp_test_email.0-error"');
  });
});
