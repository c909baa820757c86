/**
 * E-mail domain rules (listmonk's `privacy.domain_blocklist` and `privacy.domain_allowlist`, reference
 * §12 and its subscriber field rules): refused on API create, on a PUT/PATCH that changes the address,
 * on the public subscription form, and row by row in an import; stored addresses are not re-checked;
 * the settings are normalised and validated naming the item.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { domainRefusal, domainRules } from '../../src/modules/subscribers/domains.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';

let t: TestApp;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-domains-'));
  t = await buildTestApp({ env: { MAILROOM_DATA_DIR: dataDir } });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  expect((await t.api('PUT', '/api/settings', { 'privacy.domain_blocklist': [], 'privacy.domain_allowlist': [] })).status).toBe(200);
});

const rules = (block: string[], allow: string[] = []) => t.api('PUT', '/api/settings', { 'privacy.domain_blocklist': block, 'privacy.domain_allowlist': allow });
const create = (email: string) => t.api('POST', '/api/subscribers', { email, name: 'Reader' });

describe('domainRefusal', () => {
  it('matches exact domains and one level of `*.` as listmonk does', () => {
    const r = domainRules([], ['spam.test', '*.junk.test']);
    expect(domainRefusal('a@spam.test', r)).toBe('the e-mail domain is blocklisted');
    expect(domainRefusal('a@SPAM.test', r)).toBe('the e-mail domain is blocklisted');
    expect(domainRefusal('a@sub.spam.test', r)).toBeNull();
    expect(domainRefusal('a@junk.test', r)).toBe('the e-mail domain is blocklisted');
    expect(domainRefusal('a@x.junk.test', r)).toBe('the e-mail domain is blocklisted');
    expect(domainRefusal('a@y.x.junk.test', r)).toBeNull(); // deeper: only the first label becomes `*`
    expect(domainRefusal('a@fine.test', r)).toBeNull();
    const allow = domainRules(['ok.test'], ['ok.test']);
    expect(domainRefusal('a@ok.test', allow)).toBeNull(); // the allowlist wins; the blocklist is not consulted
    expect(domainRefusal('a@other.test', allow)).toBe('the e-mail domain is not on the allowlist');
  });
});

describe('the domain settings', () => {
  it('are trimmed, lower-cased and de-duplicated, and refuse what is not a domain naming the item', async () => {
    expect((await rules([' Spam.TEST ', 'spam.test', '', '*.Junk.test'])).status).toBe(200);
    expect((await t.api('GET', '/api/settings')).body.data['privacy.domain_blocklist']).toEqual(['spam.test', '*.junk.test']);
    const bad = await rules(['ok.test', 'not a domain']);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/privacy\.domain_blocklist.*item 2 \("not a domain"\)/);
    expect((await t.api('PUT', '/api/settings', { 'privacy.domain_allowlist': ['*.'] })).status).toBe(400);
  });
});

describe('subscribers with domain rules', () => {
  it('refuses a blocklisted domain on create, and on a PUT or PATCH that changes the address', async () => {
    const kept = await create('kept@spam.test'); // stored before the rule
    expect(kept.status).toBe(200);
    const id = kept.body.data.id;
    expect((await rules(['spam.test'])).status).toBe(200);

    const refused = await create('new@spam.test');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('email: the e-mail domain is blocklisted');
    expect((await t.api('GET', `/api/subscribers?query=${encodeURIComponent("subscribers.email = 'new@spam.test'")}`)).body.data.total).toBe(0);

    // The stored address is not re-checked: its subscriber can still be edited.
    expect((await t.api('PUT', `/api/subscribers/${id}`, { email: 'kept@spam.test', name: 'Renamed' })).status).toBe(200);
    expect((await t.api('PATCH', `/api/subscribers/${id}`, { name: 'Renamed again' })).status).toBe(200);
    const other = (await create('mover@fine.test')).body.data.id;
    const put = await t.api('PUT', `/api/subscribers/${other}`, { email: 'mover@spam.test', name: 'Mover' });
    expect(put.status).toBe(400);
    expect(put.body.message).toBe('email: the e-mail domain is blocklisted');
    const patch = await t.api('PATCH', `/api/subscribers/${other}`, { email: 'mover@spam.test' });
    expect(patch.status).toBe(400);
    expect((await t.api('GET', `/api/subscribers/${other}`)).body.data.email).toBe('mover@fine.test');
  });

  it('accepts only allowlisted domains while the allowlist is not empty', async () => {
    expect((await rules(['partner.test'], ['partner.test', '*.staff.test'])).status).toBe(200);
    expect((await create('a@partner.test')).status).toBe(200);
    expect((await create('b@team.staff.test')).status).toBe(200);
    const refused = await create('c@elsewhere.test');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('email: the e-mail domain is not on the allowlist');
  });

  it('refuses a blocklisted domain on the public subscription form', async () => {
    const list = (await t.api('POST', '/api/lists', { name: 'Public domains', type: 'public', optin: 'single' })).body.data;
    expect((await rules(['*.spam.test'])).status).toBe(200);
    const subscribe = (email: string) =>
      t.app.inject({ method: 'POST', url: '/api/public/subscription', payload: { email, list_uuids: [list.uuid] }, remoteAddress: `10.9.0.${Math.floor(Math.random() * 250)}` });
    const refused = await subscribe('bot@x.spam.test');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('email: the e-mail domain is blocklisted');
    expect((await subscribe('person@fine.test')).statusCode).toBe(200);
  });

  it('an import skips rows of a refused domain with their line numbers', async () => {
    expect((await rules(['spam.test'])).status).toBe(200);
    const { payload, contentType } = multipart([
      { name: 'params', value: JSON.stringify({ mode: 'subscribe' }) },
      { name: 'file', filename: 'domains.csv', content: 'email,name\none@import.test,One\ntwo@spam.test,Two\nthree@import.test,Three\n', type: 'text/csv' },
    ]);
    const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(200);
    let status: { status: string; imported: number; skipped: number } = { status: 'importing', imported: 0, skipped: 0 };
    for (let i = 0; i < 200 && (status.status === 'importing' || status.status === 'stopping'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await t.api('GET', '/api/import/subscribers')).body.data;
    }
    expect(status).toMatchObject({ status: 'finished', imported: 2, skipped: 1 });
    expect((await t.api('GET', '/api/import/subscribers/logs')).body.data).toContain('Skipped line 3: email: the e-mail domain is blocklisted');
    expect((await t.api('GET', `/api/subscribers?query=${encodeURIComponent("subscribers.email LIKE '%@spam.test' AND subscribers.name = 'Two'")}`)).body.data.total).toBe(0);
  });
});
