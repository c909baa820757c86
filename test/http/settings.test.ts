/**
 * Settings API (reference §12): flat keys, secrets masked, validation naming the key, empty/masked
 * secrets keep the stored one, changes applied without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAILROOM_SMTP_URL: 'smtp://user:s3cret@smtp.example.com:2525', MAILROOM_API_ONLY: 'true' } });
});
afterAll(async () => t.close());

describe('settings', () => {
  it('are seeded from the environment on first start, with secrets masked', async () => {
    const { body } = await t.api('GET', '/api/settings');
    expect(body.data['app.root_url']).toBe(ROOT_URL);
    expect(body.data['app.from_email']).toBe('Mailroom Test <news@mailroom.test>');
    expect(body.data['app.concurrency']).toBe(10);
    expect(body.data.smtp).toHaveLength(1);
    expect(body.data.smtp[0]).toMatchObject({ host: 'smtp.example.com', port: 2525, username: 'user', password: '••••••', enabled: true, auth_protocol: 'login' });
  });

  it('change only the keys sent, and keep a secret sent back masked or empty', async () => {
    const before = (await t.api('GET', '/api/settings')).body.data;
    const smtp = [{ ...before.smtp[0], port: 587 }, { ...before.smtp[0], uuid: 'second', name: 'backup', password: '' }];
    const res = await t.api('PUT', '/api/settings', { 'app.concurrency': 4, smtp });
    expect(res.status).toBe(200);
    expect(res.body.data['app.concurrency']).toBe(4);
    expect(res.body.data['app.root_url']).toBe(ROOT_URL);
    const stored = t.deps.settings.get(t.deps.core.smtp);
    expect(stored.map((s) => [s.port, s.password])).toEqual([[587, 's3cret'], [2525, '']]);
    expect(t.deps.messengers.names()).toEqual(['email', 'email-backup', 'email-primary']);
  });

  it('refuse unknown keys and invalid values with 400 naming the key, writing nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ 'app.nope': 1 }, /^app\.nope: is not a known setting/],
      [{ 'app.concurrency': 0 }, /^app\.concurrency: must be >= 1/],
      [{ 'app.concurrency': '5' }, /^app\.concurrency: must be integer/],
      [{ 'app.root_url': 'ftp://x' }, /^app\.root_url: /],
      [{ 'app.from_email': 'nobody' }, /^app\.from_email: must be `Name <address>`/],
      [{ smtp: [{ host: 'x' }] }, /^smtp\.0\.\w+: is required/],
      [{ 'app.concurrency': 7, smtp: 'x' }, /^smtp: must be array/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('PUT', '/api/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api('GET', '/api/settings')).body.data['app.concurrency']).toBe(4);
  });

  it("apply another instance's change after a refresh", async () => {
    await t.testDb.db.sql(`UPDATE settings SET value = '"Other <o@x.org>"', updated_at = now() + interval '1 second' WHERE key = 'app.from_email'`);
    expect(await t.deps.settings.refresh()).toBe(true);
    expect((await t.api('GET', '/api/settings')).body.data['app.from_email']).toBe('Other <o@x.org>');
  });
});
