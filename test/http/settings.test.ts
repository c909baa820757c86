/**
 * Settings API (reference §12): flat keys, secrets masked, validation naming the key, empty/masked
 * secrets keep the stored one while where it is sent is unchanged (issue 14 finding 1), changes applied
 * without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaSettings } from '../../src/modules/media/settings.js';
import { buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';

const mediaDefs = mediaSettings();

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
    const smtp = [{ ...before.smtp[0], max_conns: 4 }, { ...before.smtp[0], uuid: 'second', name: 'backup', password: '' }];
    const res = await t.api('PUT', '/api/settings', { 'app.concurrency': 4, smtp });
    expect(res.status).toBe(200);
    expect(res.body.data['app.concurrency']).toBe(4);
    expect(res.body.data['app.root_url']).toBe(ROOT_URL);
    const stored = t.deps.settings.get(t.deps.core.smtp);
    expect(stored.map((s) => [s.max_conns, s.password])).toEqual([[4, 's3cret'], [10, '']]);
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

  it('store app.root_url without trailing slashes, so links never contain //', async () => {
    const res = await t.api('PUT', '/api/settings', { 'app.root_url': 'https://news.example.org/mail//' });
    expect(res.status).toBe(200);
    expect(res.body.data['app.root_url']).toBe('https://news.example.org/mail');
    const rss = await t.app.inject({ method: 'GET', url: '/archive.xml' });
    expect(rss.body).toContain('<link>https://news.example.org/mail/archive</link>');
    const bad = await t.api('PUT', '/api/settings', { 'app.root_url': 'https:///' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^app\.root_url: /);
    // A value stored with the slash (by an earlier release) is read without it.
    await t.testDb.db.sql(`UPDATE settings SET value = '"https://old.example.org/"', updated_at = clock_timestamp() + interval '1 second' WHERE key = 'app.root_url'`);
    expect(await t.deps.settings.refresh()).toBe(true);
    expect((await t.api('GET', '/api/settings')).body.data['app.root_url']).toBe('https://old.example.org');
    expect((await t.api('PUT', '/api/settings', { 'app.root_url': ROOT_URL })).status).toBe(200);
  });

  it('refuse an smtp list without an enabled server, as listmonk does, writing nothing', async () => {
    const before = t.deps.settings.get(t.deps.core.smtp);
    const masked = (await t.api('GET', '/api/settings')).body.data.smtp;
    for (const smtp of [[], masked.map((s: any) => ({ ...s, enabled: false }))]) {
      const res = await t.api('PUT', '/api/settings', { smtp });
      expect(res.status, JSON.stringify(smtp)).toBe(400);
      expect(res.body.message).toBe('smtp: at least one SMTP block should be enabled');
    }
    expect(t.deps.settings.get(t.deps.core.smtp)).toEqual(before);
  });

  it("give new smtp blocks (no uuid, or an empty one) a uuid of their own and never another block's password", async () => {
    const [primary] = (await t.api('GET', '/api/settings')).body.data.smtp;
    const { uuid: _, ...withoutUuid } = primary;
    const smtp = [
      { ...primary, uuid: '', name: 'copy' }, // new, password sent back masked: nothing to keep
      primary, // the stored block, password masked: keeps its own
      { ...withoutUuid, name: 'fresh', password: 'n3w' },
      { ...primary, uuid: '', name: 'another', password: '' }, // a second new block with "": not a duplicate
    ];
    const res = await t.api('PUT', '/api/settings', { smtp });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = t.deps.settings.get(t.deps.core.smtp);
    expect(stored.map((s) => [s.name, s.password])).toEqual([['copy', ''], ['primary', 's3cret'], ['fresh', 'n3w'], ['another', '']]);
    expect(stored[1]!.uuid).toBe(primary.uuid);
    for (const i of [0, 2, 3]) expect(stored[i]!.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u);
    expect(new Set(stored.map((s) => s.uuid)).size).toBe(4);

    const dup = await t.api('PUT', '/api/settings', { smtp: [primary, { ...primary, name: 'twin' }] });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe(`smtp: server uuids must be unique ("${primary.uuid}" is used more than once)`);
    expect(t.deps.settings.get(t.deps.core.smtp)).toHaveLength(4);
  });

  it('give new messenger blocks a uuid and refuse two blocks with the same one', async () => {
    const block = { enabled: true, name: 'hook', root_url: 'https://hooks.example.org/in', username: 'u', password: 'pw', max_conns: 2, timeout: '5s', max_msg_retries: 1 };
    const res = await t.api('PUT', '/api/settings', { messengers: [block, { ...block, uuid: '', name: 'hook-2' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = t.deps.settings.get(t.deps.messengerDefs.messengers);
    expect(stored.map((b) => b.password)).toEqual(['pw', 'pw']);
    expect(stored.every((b) => /^[0-9a-f-]{36}$/u.test(b.uuid))).toBe(true);
    expect(stored[0]!.uuid).not.toBe(stored[1]!.uuid);

    const [first] = res.body.data.messengers;
    const dup = await t.api('PUT', '/api/settings', { messengers: [first, { ...first, name: 'hook-3' }] });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe(`messengers: messenger uuids must be unique ("${first.uuid}" is used more than once)`);
    expect(t.deps.settings.get(t.deps.messengerDefs.messengers).map((b) => b.name)).toEqual(['hook', 'hook-2']);
    expect((await t.api('PUT', '/api/settings', { messengers: [] })).status).toBe(200);
  });

  it('store upload.extensions lower-case without the dot, and refuse entries that are still not extensions', async () => {
    const res = await t.api('PUT', '/api/settings', { 'upload.extensions': ['JPG', '.png', ' .Pdf ', 'jpg', '*'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data['upload.extensions']).toEqual(['jpg', 'png', 'pdf', '*']);
    for (const bad of [['png', '.'], ['png', 'j pg'], ['png', '..jpg'], ['png', 5]]) {
      const refused = await t.api('PUT', '/api/settings', { 'upload.extensions': bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.message).toMatch(/^upload\.extensions\.1: /);
    }
    expect((await t.api('GET', '/api/settings')).body.data['upload.extensions']).toEqual(['jpg', 'png', 'pdf', '*']);
  });

  it('keep a stored SMTP password sent back masked only while host, port, user and TLS are unchanged (issue 14 finding 1)', async () => {
    const seeded = { host: 'smtp.example.com', port: 2525, username: 'user', password: 's3cret' };
    const [primary] = (await t.api('PUT', '/api/settings', { smtp: [{ ...(await t.api('GET', '/api/settings')).body.data.smtp[0], ...seeded }] })).body.data.smtp;
    const stored = () => t.deps.settings.get(t.deps.core.smtp);
    const before = stored();
    const moves: Array<[Record<string, unknown>, string]> = [
      [{ host: 'attacker.example.net' }, 'host'],
      [{ port: 25 }, 'port'],
      [{ username: 'other' }, 'username'],
      [{ tls_type: 'none' }, 'tls_type'],
      [{ tls_skip_verify: true }, 'tls_skip_verify'],
      [{ host: 'attacker.example.net', username: 'x' }, 'host and username'],
    ];
    for (const [change, named] of moves) {
      for (const password of [primary.password, '']) {
        const res = await t.api('PUT', '/api/settings', { 'app.concurrency': 9, smtp: [{ ...primary, ...change, password }] });
        expect(res.status, JSON.stringify(change)).toBe(400);
        expect(res.body.message).toBe(
          `smtp.0.password: must be sent again: ${named} changed, and a stored secret is kept only while host, port, username, tls_type and tls_skip_verify stay the same`,
        );
      }
    }
    expect(stored()).toEqual(before);
    expect(t.deps.settings.get(t.deps.core.concurrency)).not.toBe(9);
    // Sending the password again moves it; sending it back masked afterwards keeps it.
    expect((await t.api('PUT', '/api/settings', { smtp: [{ ...primary, host: 'relay.example.org', password: 'n3w-pass' }] })).status).toBe(200);
    const moved = (await t.api('GET', '/api/settings')).body.data.smtp[0];
    expect((await t.api('PUT', '/api/settings', { smtp: [{ ...moved, max_conns: 3 }] })).status).toBe(200);
    expect(stored()[0]).toMatchObject({ host: 'relay.example.org', password: 'n3w-pass', max_conns: 3 });
    // A block that sends no password drops the stored one when it moves, instead of being refused.
    const none = await t.api('PUT', '/api/settings', { smtp: [{ ...moved, host: 'open-relay.example.org', auth_protocol: 'none' }] });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(stored()[0]).toMatchObject({ host: 'open-relay.example.org', password: '' });
    // ... so switching authentication back on later cannot reuse it.
    expect(stored()[0]!.password).toBe('');
    expect((await t.api('PUT', '/api/settings', { smtp: [{ ...primary, ...seeded }] })).status).toBe(200);
  });

  it('keep a stored messenger password only while root_url and username are unchanged', async () => {
    const block = { enabled: true, name: 'hook', root_url: 'https://hooks.example.org/in', username: 'u', password: 'pw', max_conns: 2, timeout: '5s', max_msg_retries: 1 };
    const [saved] = (await t.api('PUT', '/api/settings', { messengers: [block] })).body.data.messengers;
    for (const [change, named] of [[{ root_url: 'https://attacker.example.net/in' }, 'root_url'], [{ username: 'v' }, 'username']] as const) {
      const res = await t.api('PUT', '/api/settings', { messengers: [{ ...saved, ...change }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`messengers.0.password: must be sent again: ${named} changed, and a stored secret is kept only while root_url and username stay the same`);
    }
    expect(t.deps.settings.get(t.deps.messengerDefs.messengers)[0]).toMatchObject({ root_url: block.root_url, password: 'pw' });
    expect((await t.api('PUT', '/api/settings', { messengers: [{ ...saved, max_conns: 5 }] })).status).toBe(200);
    expect((await t.api('PUT', '/api/settings', { messengers: [{ ...saved, root_url: 'https://new.example.org/in', password: 'pw2' }] })).status).toBe(200);
    expect(t.deps.settings.get(t.deps.messengerDefs.messengers)[0]).toMatchObject({ root_url: 'https://new.example.org/in', password: 'pw2', max_conns: 2 });
    expect((await t.api('PUT', '/api/settings', { messengers: [] })).status).toBe(200);
  });

  it('keep the stored S3 secret key only while endpoint, bucket and access key are unchanged', async () => {
    const s3 = { 'upload.s3.url': 'https://s3.example.org', 'upload.s3.bucket': 'news', 'upload.s3.aws_access_key_id': 'AKID1', 'upload.s3.aws_secret_access_key': 'k-secret' };
    expect((await t.api('PUT', '/api/settings', s3)).status).toBe(200);
    const secret = () => t.deps.settings.get(mediaDefs.s3SecretKey);
    const masked = (await t.api('GET', '/api/settings')).body.data['upload.s3.aws_secret_access_key'];
    expect(masked).toBe('••••••••');
    const moves: Array<[Record<string, unknown>, string]> = [
      [{ 'upload.s3.url': 'https://attacker.example.net' }, 'upload.s3.url'],
      [{ 'upload.s3.bucket': 'other' }, 'upload.s3.bucket'],
      [{ 'upload.s3.aws_access_key_id': 'AKID2' }, 'upload.s3.aws_access_key_id'],
      [{ 'upload.s3.url': 'https://attacker.example.net', 'upload.s3.bucket': 'b' }, 'upload.s3.url and upload.s3.bucket'],
    ];
    for (const [change, named] of moves) {
      // The secret absent, sent back masked, or empty: all refused.
      for (const sent of [{}, { 'upload.s3.aws_secret_access_key': masked }, { 'upload.s3.aws_secret_access_key': '' }]) {
        const res = await t.api('PUT', '/api/settings', { ...change, ...sent });
        expect(res.status, JSON.stringify({ ...change, ...sent })).toBe(400);
        expect(res.body.message).toBe(
          `upload.s3.aws_secret_access_key: must be sent again: ${named} changed, and a stored secret is kept only while upload.s3.url, upload.s3.bucket and upload.s3.aws_access_key_id stay the same`,
        );
      }
    }
    expect(t.deps.settings.get(mediaDefs.s3Url)).toBe('https://s3.example.org');
    expect(secret()).toBe('k-secret');
    // Unchanged destination (or other S3 keys) keeps it; sending the secret again moves it.
    expect((await t.api('PUT', '/api/settings', { ...s3, 'upload.s3.aws_secret_access_key': masked, 'upload.s3.aws_default_region': 'eu-west-3' })).status).toBe(200);
    expect(secret()).toBe('k-secret');
    expect((await t.api('PUT', '/api/settings', { 'upload.s3.url': 'https://minio.example.org', 'upload.s3.aws_secret_access_key': 'k2' })).status).toBe(200);
    expect(secret()).toBe('k2');
  });

  it("apply another instance's change after a refresh", async () => {
    await t.testDb.db.sql(`UPDATE settings SET value = '"Other <o@x.org>"', updated_at = now() + interval '1 second' WHERE key = 'app.from_email'`);
    expect(await t.deps.settings.refresh()).toBe(true);
    expect((await t.api('GET', '/api/settings')).body.data['app.from_email']).toBe('Other <o@x.org>');
  });
});
