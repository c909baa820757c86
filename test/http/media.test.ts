/**
 * Media API, spec 4.5 (reference §11): upload, thumbnails, serving under /uploads/, listing newest
 * first, deletion, and the refusals (path in the name, extension, size, non-images, scriptable SVG).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, ROOT_URL, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';

let t: TestApp;
let dataDir: string;
let png: Buffer;
let jpeg: Buffer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-media-'));
  t = await buildTestApp({ env: { MAILROOM_DATA_DIR: dataDir } });
  png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#3366cc' } }).png().toBuffer();
  jpeg = await sharp({ create: { width: 300, height: 1000, channels: 3, background: '#cc3366' } }).jpeg().toBuffer();
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Posts a multipart body with credentials. */
async function post(url: string, parts: Part[]) {
  const { payload, contentType } = multipart(parts);
  const res = await t.app.inject({ method: 'POST', url, payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() };
}

const upload = (filename: string, content: Buffer | string, type = 'application/octet-stream') => post('/api/media', [{ name: 'file', filename, content, type }]);
const get = (url: string) => t.app.inject({ method: 'GET', url });
const uploadsDir = () => join(dataDir, 'uploads');
const storedFiles = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()).filter((f) => !f.startsWith('.')) : []);

describe('POST /api/media', () => {
  it('stores an image under a sanitised name with its size and a thumbnail, and serves both', async () => {
    const res = await upload('My Holiday (1).png', png, 'image/png');
    expect(res.status).toBe(200);
    const m = res.body.data;
    expect(m).toMatchObject({
      filename: 'My-Holiday-1.png',
      content_type: 'image/png',
      uri: '/uploads/My-Holiday-1.png',
      thumb_uri: '/uploads/thumbs/My-Holiday-1.png',
      url: `${ROOT_URL}/uploads/My-Holiday-1.png`,
      thumb_url: `${ROOT_URL}/uploads/thumbs/My-Holiday-1.png`,
      provider: 'filesystem',
      size: png.length,
      meta: { width: 600, height: 400 },
    });
    expect(m.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(m.created_at)).not.toBeNaN();

    const file = await get(m.uri);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.rawPayload.equals(png)).toBe(true);

    const thumb = await get(m.thumb_uri);
    expect(thumb.statusCode).toBe(200);
    const meta = await sharp(thumb.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 250, height: 167 });
  });

  it('takes the real format and oriented size from the image, and thumbnails tall images by height', async () => {
    const res = await upload('tall.jpg', jpeg);
    expect(res.body.data).toMatchObject({ content_type: 'image/jpeg', meta: { width: 300, height: 1000 } });
    const meta = await sharp((await get(res.body.data.thumb_uri)).rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', height: 250, width: 75 });
  });

  it('makes a taken name unique with a random suffix', async () => {
    const first = await upload('logo.png', png);
    const second = await upload('logo.png', png);
    expect(first.body.data.filename).toBe('logo.png');
    expect(second.body.data.filename).toMatch(/^logo-[a-z0-9]{6}\.png$/);
    expect((await get(second.body.data.uri)).statusCode).toBe(200);
  });

  it('stores other allowed files without a thumbnail', async () => {
    const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    const res = await upload('Terms & Conditions.pdf', pdf, 'application/pdf');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ filename: 'Terms-Conditions.pdf', content_type: 'application/pdf', thumb_uri: null, thumb_url: null, meta: {} });
    const served = await get(res.body.data.uri);
    expect(served.headers['content-disposition']).toBe('inline; filename="Terms-Conditions.pdf"');
    expect(served.rawPayload.equals(pdf)).toBe(true);
  });

  it('serves an uploaded SVG with script so that the script cannot run', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>';
    const res = await upload('evil.svg', svg, 'image/svg+xml');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ content_type: 'image/svg+xml', thumb_uri: res.body.data.uri });
    const served = await get(res.body.data.uri);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(served.headers['content-security-policy']);
    expect(csp).toMatch(/(^|;\s*)sandbox(;|$)/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|allow-scripts/);
  });

  it('accepts uploads by extensions written upper-case or with a dot in upload.extensions', async () => {
    expect((await t.api('PUT', '/api/settings', { 'upload.extensions': ['.TXT', 'PNG'] })).status).toBe(200);
    try {
      expect((await upload('Notes.TXT', 'hello')).status).toBe(200);
      expect((await upload('pixel.png', png, 'image/png')).status).toBe(200);
      const refused = await upload('photo.jpg', jpeg, 'image/jpeg');
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('file: .jpg files are not allowed; allowed extensions: txt, png');
    } finally {
      await t.api('PUT', '/api/settings', { 'upload.extensions': ['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'pdf'] });
    }
  });

  it('serves uploaded HTML as a sandboxed download when HTML is allowed', async () => {
    await t.api('PUT', '/api/settings', { 'upload.extensions': ['html', 'png'] });
    try {
      const res = await upload('page.html', '<html><script>alert(1)</script></html>', 'text/html');
      expect(res.status).toBe(200);
      const served = await get(res.body.data.uri);
      expect(served.headers['content-disposition']).toBe('attachment; filename="page.html"');
      expect(served.headers['content-security-policy']).toContain('sandbox');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await t.api('PUT', '/api/settings', { 'upload.extensions': ['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'pdf'] });
    }
  });

  const refused: Array<[string, () => Promise<{ status: number; body: any }>, number, RegExp]> = [
    ['a name with a path', () => upload('../../etc/cron.d/evil.png', png), 400, /^file: the file name must not contain a path/],
    ['a name with a backslash path', () => upload('..\\..\\evil.png', png), 400, /^file: the file name must not contain a path/],
    ['a disallowed extension', () => upload('setup.exe', 'MZ\x90\x00'), 400, /^file: \.exe files are not allowed; allowed extensions: jpg, jpeg, png, gif, webp, svg, pdf$/],
    ['a file without an extension', () => upload('README', 'hello'), 400, /^file: files without an extension are not allowed/],
    ['a .png that is not an image', () => upload('fake.png', '<html><script>alert(1)</script></html>', 'image/png'), 400, /^file: is not a readable image/],
    ['an empty file', () => upload('empty.png', Buffer.alloc(0)), 400, /^file: is empty/],
    ['no file part', () => post('/api/media', [{ name: 'note', value: 'no file here' }]), 400, /^file: is required/],
    ['a file in another field', () => post('/api/media', [{ name: 'upload', filename: 'a.png', content: png }]), 400, /^file: is required/],
  ];
  for (const [what, send, status, message] of refused) {
    it(`refuses ${what} and stores nothing`, async () => {
      const before = (await t.api('GET', '/api/media')).body.data.length;
      const filesBefore = storedFiles().length;
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.body.message).toMatch(message);
      expect((await t.api('GET', '/api/media')).body.data.length).toBe(before);
      expect(storedFiles().length).toBe(filesBefore);
      expect(existsSync(join(dataDir, 'etc'))).toBe(false);
    });
  }

  it('answers 400 for a truncated upload and stores nothing', async () => {
    const before = (await t.api('GET', '/api/media')).body.data.length;
    const { payload, contentType } = multipart([{ name: 'file', filename: 'cut.png', content: png }]);
    const res = await t.app.inject({ method: 'POST', url: '/api/media', payload: payload.subarray(0, payload.length - 200), headers: { authorization: AUTH, 'content-type': contentType } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^body: malformed multipart\/form-data/);
    expect((await t.api('GET', '/api/media')).body.data.length).toBe(before);
    expect(readdirSync(join(uploadsDir(), '.incoming'))).toEqual([]);
  });

  it('answers 413 past upload.max_file_size and stores nothing', async () => {
    await t.api('PUT', '/api/settings', { 'upload.max_file_size': 4096 });
    try {
      const before = (await t.api('GET', '/api/media')).body.data.length;
      const res = await upload('big.pdf', Buffer.alloc(10_000, 1));
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('file: larger than the 4 KiB upload limit (setting upload.max_file_size)');
      expect((await t.api('GET', '/api/media')).body.data.length).toBe(before);
      expect(readdirSync(join(uploadsDir(), '.incoming'))).toEqual([]);
    } finally {
      await t.api('PUT', '/api/settings', { 'upload.max_file_size': 10 * 1024 * 1024 });
    }
  });

  it('answers 415 for a JSON body and 401 without credentials', async () => {
    const json = await t.api('POST', '/api/media', { file: 'x' });
    expect(json.status).toBe(415);
    const { payload, contentType } = multipart([{ name: 'file', filename: 'a.png', content: png }]);
    const anon = await t.app.inject({ method: 'POST', url: '/api/media', payload, headers: { 'content-type': contentType } });
    expect(anon.statusCode).toBe(401);
  });
});

describe('GET /api/media', () => {
  it('lists newest first, filters by name and pages', async () => {
    const a = (await upload('list-a.png', png)).body.data;
    const b = (await upload('list-b.png', png)).body.data;
    const all = (await t.api('GET', '/api/media')).body.data;
    expect(all[0].id).toBe(b.id);
    expect(all[1].id).toBe(a.id);
    const times = all.map((m: { created_at: string }) => Date.parse(m.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const found = (await t.api('GET', '/api/media?query=LIST-')).body.data;
    expect(found.map((m: { filename: string }) => m.filename)).toEqual(['list-b.png', 'list-a.png']);
    const page = (await t.api('GET', '/api/media?query=list-&per_page=1&page=2')).body.data;
    expect(page.map((m: { id: number }) => m.id)).toEqual([a.id]);
    expect((await t.api('GET', '/api/media?query=%25')).body.data).toEqual([]);
  });

  it('gets one media object and answers 404 for an unknown id', async () => {
    const m = (await upload('single.png', png)).body.data;
    expect((await t.api('GET', `/api/media/${m.id}`)).body.data).toEqual(m);
    const res = await t.api('GET', '/api/media/999999');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('media 999999 not found');
  });
});

describe('DELETE /api/media/:id', () => {
  it('removes the row, the file and the thumbnail', async () => {
    const m = (await upload('doomed.png', png)).body.data;
    expect(existsSync(join(uploadsDir(), 'doomed.png'))).toBe(true);
    expect(existsSync(join(uploadsDir(), 'thumbs', 'doomed.png'))).toBe(true);
    expect((await t.api('DELETE', `/api/media/${m.id}`)).body).toEqual({ data: true });
    expect(existsSync(join(uploadsDir(), 'doomed.png'))).toBe(false);
    expect(existsSync(join(uploadsDir(), 'thumbs', 'doomed.png'))).toBe(false);
    expect((await get(m.uri)).statusCode).toBe(404);
    expect((await get(m.thumb_uri)).statusCode).toBe(404);
    expect((await t.api('GET', '/api/media')).body.data.some((x: { id: number }) => x.id === m.id)).toBe(false);
    const again = await t.api('DELETE', `/api/media/${m.id}`);
    expect(again.status).toBe(404);
  });
});

describe('GET /uploads/', () => {
  it('serves only registered files and refuses odd names', async () => {
    expect((await get('/uploads/nothing-here.png')).statusCode).toBe(404);
    expect((await get('/uploads/.incoming')).statusCode).toBe(400);
    expect((await get('/uploads/..%2F..%2Fetc%2Fpasswd')).statusCode).toBe(400);
    expect((await get('/uploads/thumbs/Terms-Conditions.pdf')).statusCode).toBe(404);
  });
});
