/**
 * Media on an S3-compatible store (spec 4.5 "S3-compatible store as an option"), through the real AWS
 * SDK against a small local fake (test/helpers/fake-s3.ts). What this does not prove: request signing
 * accepted by real S3, multipart uploads, bucket policies. It proves the keys, bodies, content types,
 * URLs, proxying of private buckets, deletion, and that a failing store leaves nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';
import { multipart } from '../helpers/multipart.js';

let t: TestApp;
let s3: FakeS3;
let dataDir: string;
let png: Buffer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mailroom-s3-'));
  s3 = await startFakeS3();
  t = await buildTestApp({ env: { MAILROOM_DATA_DIR: dataDir } });
  png = await sharp({ create: { width: 400, height: 400, channels: 4, background: '#00000000' } }).png().toBuffer();
  const res = await t.api('PUT', '/api/settings', {
    'upload.provider': 's3',
    'upload.s3.url': s3.url,
    'upload.s3.aws_access_key_id': 'AKIDEXAMPLE',
    'upload.s3.aws_secret_access_key': 'secret-example-key',
    'upload.s3.aws_default_region': 'eu-west-1',
    'upload.s3.bucket': 'newsletter',
    'upload.s3.bucket_path': '/media/',
  });
  expect(res.status).toBe(200);
  expect(res.body.data['upload.s3.aws_secret_access_key']).toBe('•'.repeat('secret-example-key'.length));
});
afterAll(async () => {
  await t.close();
  await s3.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function upload(filename: string, content: Buffer) {
  const { payload, contentType } = multipart([{ name: 'file', filename, content, type: 'image/png' }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/media', payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() };
}

describe('S3 media store', () => {
  it('puts the file and its thumbnail under the bucket path and links a public bucket directly', async () => {
    const res = await upload('Banner.png', png);
    expect(res.status).toBe(200);
    const m = res.body.data;
    expect(m).toMatchObject({
      provider: 's3',
      filename: 'Banner.png',
      uri: `${s3.url}/newsletter/media/Banner.png`,
      url: `${s3.url}/newsletter/media/Banner.png`,
      thumb_uri: `${s3.url}/newsletter/media/thumbs/Banner.png`,
      meta: { width: 400, height: 400 },
    });
    const stored = s3.objects.get('newsletter/media/Banner.png');
    expect(stored?.body.equals(png)).toBe(true);
    expect(stored?.contentType).toBe('image/png');
    expect((await sharp(s3.objects.get('newsletter/media/thumbs/Banner.png')!.body).metadata()).width).toBe(250);
    const put = s3.requests.find((r) => r.method === 'PUT' && r.path === 'newsletter/media/Banner.png');
    expect(put?.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request/);
    // Files are stored in the bucket, not on disk.
    expect((await t.app.inject({ method: 'GET', url: '/uploads/Banner.png' })).statusCode).toBe(200);
  });

  it('serves a private bucket through /uploads/ and lists only media of the current provider', async () => {
    await t.api('PUT', '/api/settings', { 'upload.s3.bucket_type': 'private' });
    const m = (await upload('private.png', png)).body.data;
    expect(m.uri).toBe('/uploads/private.png');
    expect(m.thumb_uri).toBe('/uploads/thumbs/private.png');
    const served = await t.app.inject({ method: 'GET', url: m.uri });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(png)).toBe(true);
    expect((await t.api('GET', '/api/media')).body.data.map((x: { filename: string }) => x.filename)).toEqual(['private.png', 'Banner.png']);
    await t.api('PUT', '/api/settings', { 'upload.provider': 'filesystem' });
    expect((await t.api('GET', '/api/media')).body.data).toEqual([]);
    await t.api('PUT', '/api/settings', { 'upload.provider': 's3' });
  });

  it('deletes the object and its thumbnail from the bucket', async () => {
    const m = (await upload('gone.png', png)).body.data;
    expect(s3.objects.has('newsletter/media/gone.png')).toBe(true);
    expect((await t.api('DELETE', `/api/media/${m.id}`)).body).toEqual({ data: true });
    expect(s3.objects.has('newsletter/media/gone.png')).toBe(false);
    expect(s3.objects.has('newsletter/media/thumbs/gone.png')).toBe(false);
  });

  it('answers 503 when the store fails, and keeps no row', async () => {
    const before = (await t.api('GET', '/api/media')).body.data.length;
    s3.failWith = 500;
    try {
      const res = await upload('fails.png', png);
      expect(res.status).toBe(503);
      expect(res.body.message).toBe('the s3 media store could not save the file; try again later');
    } finally {
      s3.failWith = null;
    }
    expect((await t.api('GET', '/api/media')).body.data.length).toBe(before);
  }, 30_000);
});
