/**
 * JSON nested deeper than a field may nest (issue 14 finding 9): `attribs` nested 5,000 deep answered
 * 500 (the stack overflowed). Every JSON body, and the JSON carried in a form field or a CSV cell, is
 * refused with a 400 naming the field when a value nests more than 100 levels, before it is parsed;
 * up to 100 levels, and large but legal values, are accepted and read back unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';

let t: TestApp;
let dataDir: string;
let listId: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-deep-'));
  t = await buildTestApp({ env: { MAILROOM_DATA_DIR: dataDir, MAILROOM_API_ONLY: 'true' } });
  listId = (await t.api('POST', '/api/lists', { name: 'Deep', type: 'public', optin: 'single' })).body.data.id;
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** JSON text of an object nested `levels` deep: `{"k":{"k":…{"k":leaf}}}`. */
const objects = (levels: number, leaf = '"bottom"') => '{"k":'.repeat(levels) + leaf + '}'.repeat(levels);
/** JSON text of arrays nested `levels` deep. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const tooDeep = (field: string) => `${field}: must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;

describe('subscriber attribs', () => {
  it('5,000 levels (objects or arrays) is a 400 naming attribs on create, replace and patch, and changes nothing', async () => {
    const created = await t.api('POST', '/api/subscribers', { email: 'deep@example.org', name: 'Deep', attribs: { city: 'Leeds' }, lists: [listId] });
    expect(created.status).toBe(200);
    const id = created.body.data.id as number;
    for (const deep of [objects(5000), `{"a":${arrays(5000)}}`]) {
      const bodies: Array<[string, string, string]> = [
        ['POST', '/api/subscribers', `{"email":"deep2@example.org","name":"D","attribs":${deep}}`],
        ['PUT', `/api/subscribers/${id}`, `{"email":"deep@example.org","name":"Deep","attribs":${deep}}`],
        ['PATCH', `/api/subscribers/${id}`, `{"attribs":${deep}}`],
      ];
      for (const [method, url, body] of bodies) {
        const res = await t.api(method, url, body);
        expect(res.status, `${method} ${url}`).toBe(400);
        expect(res.body).toEqual({ message: tooDeep('attribs') });
      }
    }
    const after = await t.api('GET', `/api/subscribers/${id}`);
    expect(after.body.data.attribs).toEqual({ city: 'Leeds' });
    expect((await t.api('GET', '/api/subscribers?query=' + encodeURIComponent("subscribers.email = 'deep2@example.org'"))).body.data.total).toBe(0);
  });

  it('exactly 100 levels is accepted and read back unchanged; 101 is refused', async () => {
    const ok = await t.api('POST', '/api/subscribers', `{"email":"hundred@example.org","attribs":${objects(MAX_JSON_DEPTH)}}`);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect(JSON.stringify((await t.api('GET', `/api/subscribers/${ok.body.data.id}`)).body.data.attribs)).toBe(objects(MAX_JSON_DEPTH));
    const over = await t.api('POST', '/api/subscribers', `{"email":"hundred1@example.org","attribs":${objects(MAX_JSON_DEPTH + 1)}}`);
    expect(over.status).toBe(400);
    expect(over.body.message).toBe(tooDeep('attribs'));
  });

  it('a NUL character at the deepest accepted level is still found and named', async () => {
    const res = await t.api('POST', '/api/subscribers', `{"email":"nul@example.org","attribs":${objects(MAX_JSON_DEPTH, '"a\\u0000b"')}}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`attribs${'.k'.repeat(MAX_JSON_DEPTH)}: must not contain NUL characters`);
  });

  it('large but legal attribs (wide, long strings, just under 64 KiB) are stored whole', async () => {
    const wide = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key_${i}`, i % 2 === 0 ? i : `v${i}`]));
    const res = await t.api('POST', '/api/subscribers', { email: 'wide@example.org', attribs: wide });
    expect(res.status).toBe(200);
    expect((await t.api('GET', `/api/subscribers/${res.body.data.id}`)).body.data.attribs).toEqual(wide);
    const long = { note: 'é'.repeat(20_000), list: Array.from({ length: 100 }, (_, i) => ({ i, deep: JSON.parse(objects(20)) })) };
    const big = await t.api('POST', '/api/subscribers', { email: 'long@example.org', attribs: long });
    expect(big.status, JSON.stringify(big.body).slice(0, 200)).toBe(200);
    expect((await t.api('GET', `/api/subscribers/${big.body.data.id}`)).body.data.attribs).toEqual(long);
    const over = await t.api('POST', '/api/subscribers', { email: 'over@example.org', attribs: { note: 'x'.repeat(70_000) } });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/^attribs: must be at most 65536 bytes/u);
  });

  it('a 1 MiB body of brackets is refused at once, naming the body', async () => {
    const started = Date.now();
    const res = await t.api('POST', '/api/subscribers', arrays(512 * 1024 - 10));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(tooDeep('body'));
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('every other JSON that reaches the server', () => {
  it('any route: a deep value in any field is refused naming that field, never 500', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/api/tx', `{"subscriber_email":"deep@example.org","template_id":1,"data":${objects(5000)}}`, 'data'],
      ['POST', '/api/campaigns', `{"name":"c","subject":"s","lists":[${listId}],"archive_meta":${objects(5000)}}`, 'archive_meta'],
      ['PUT', '/api/settings', `{"app.site_name":${arrays(5000)}}`, 'app.site_name'],
      ['POST', '/api/lists', `{"name":"l","tags":${arrays(5000)}}`, 'tags'],
      ['PUT', '/api/subscribers/lists', `{"ids":${arrays(5000)},"action":"add","target_list_ids":[1]}`, 'ids'],
      ['POST', '/api/public/subscription', `{"email":"x@example.org","list_uuids":${arrays(5000)}}`, 'list_uuids'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await t.app.inject({ method: method as 'POST', url, payload: body, headers: { authorization: AUTH, 'content-type': 'application/json; charset=utf-8' } });
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 200)}`).toBe(400);
      expect(res.json()).toEqual({ message: tooDeep(field) });
    }
  });

  it('the tx form: `data` JSON nested too deeply is a 400 naming data.data', async () => {
    const { payload, contentType } = multipart([{ name: 'data', value: `{"subscriber_email":"deep@example.org","template_id":1,"data":${objects(5000)}}` }]);
    const res = await t.app.inject({ method: 'POST', url: '/api/tx', payload, headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: tooDeep('data.data') });
  });

  it('an import: a deep `attributes` cell skips that row with its reason; the others are imported and the server keeps serving', async () => {
    const csv = ['email,name,attributes', 'ok1@deep.test,One,"{""a"":1}"', `bad@deep.test,Bad,"${objects(5000).replace(/"/gu, '""')}"`, `ok2@deep.test,Two,"${objects(MAX_JSON_DEPTH).replace(/"/gu, '""')}"`].join('\n');
    const { payload, contentType } = multipart([
      { name: 'params', value: JSON.stringify({ mode: 'subscribe', lists: [listId] }) },
      { name: 'file', filename: 'deep.csv', content: csv, type: 'text/csv' },
    ]);
    const started = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
    expect(started.statusCode, started.body).toBe(200);
    let status: { status: string; imported: number; total: number };
    do {
      status = (await t.api('GET', '/api/import/subscribers')).body.data;
      if (status.status === 'importing') await new Promise((r) => setTimeout(r, 50));
    } while (status.status === 'importing' || status.status === 'stopping');
    expect(status).toMatchObject({ status: 'finished', imported: 2 });
    const logs = (await t.api('GET', '/api/import/subscribers/logs')).body.data as string;
    expect(logs).toContain(tooDeep('attributes'));
    const [row] = await t.deps.db.sql<{ attribs: unknown }>("SELECT attribs FROM subscribers WHERE email = 'ok2@deep.test'");
    expect(JSON.stringify(row!.attribs)).toBe(objects(MAX_JSON_DEPTH));
    expect((await t.api('GET', '/api/lists')).status).toBe(200);
  });

  it('the import params: nested too deeply is a 400 naming params.<field>', async () => {
    const { payload, contentType } = multipart([
      { name: 'params', value: `{"mode":"subscribe","lists":${arrays(5000)}}` },
      { name: 'file', filename: 'x.csv', content: 'email\nx@deep.test\n', type: 'text/csv' },
    ]);
    const res = await t.app.inject({ method: 'POST', url: '/api/import/subscribers', payload, headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: tooDeep('params.lists') });
  });
});
