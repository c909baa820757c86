/**
 * A full disk under MAILROOM_DATA_DIR (a real one: a 2 MiB tmpfs, filled up): a media upload and an
 * import upload answer 507 with a message saying the disk is full, keep nothing (no media row, no
 * import started, no partial file), and both work again once space is freed.
 *
 * Mounting needs root (CAP_SYS_ADMIN), which CI's machine has; elsewhere this file is skipped with a
 * warning.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, buildTestApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';

const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-full-disk-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dataDir], { stdio: 'pipe' });
  mounted = true;
} catch (err) {
  console.warn(`skipping the full-disk tests: cannot mount a tmpfs (${(err as Error).message.split('\n')[0]})`);
}

let t: TestApp;
let png: Buffer;
const FILLER = join(dataDir, 'filler');

beforeAll(async () => {
  if (!mounted) return;
  t = await buildTestApp({ env: { MAILROOM_DATA_DIR: dataDir } });
  // Large enough that no import or media test could fit it into what is left.
  png = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
});
afterAll(async () => {
  if (!mounted) return;
  await t?.close();
  execFileSync('umount', [dataDir]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Fills the file system: a file grows until the disk refuses a byte more. */
function fillDisk(): void {
  const chunk = Buffer.alloc(64 * 1024);
  let size = 0;
  for (;;) {
    try {
      writeFileSync(FILLER, chunk, { flag: size === 0 ? 'w' : 'a' });
      size += chunk.length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
      throw err;
    }
  }
  // What a failed append left: the partial chunk may still have been written; either way the disk is full.
  expect(statSync(FILLER).size).toBeGreaterThan(1024 * 1024);
}

async function post(url: string, parts: Part[]) {
  const { payload, contentType } = multipart(parts);
  const res = await t.app.inject({ method: 'POST', url, payload, headers: { authorization: AUTH, 'content-type': contentType } });
  return { status: res.statusCode, body: res.json() };
}

const csv = () => `email,name,attributes\n${Array.from({ length: 4000 }, (_, i) => `reader${i}@example.org,Reader ${i},"{""n"": ${i}}"`).join('\n')}\n`;
const importFile = () => post('/api/import/subscribers', [{ name: 'params', value: JSON.stringify({ mode: 'subscribe', lists: [] }) }, { name: 'file', filename: 'readers.csv', content: csv(), type: 'text/csv' }]);
/** Every file under the data dir except the filler (uploads, incoming media, import uploads). */
const leftovers = (): string[] =>
  readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && join(e.parentPath, e.name) !== FILLER).map((e) => join(e.parentPath, e.name));

describe.skipIf(!mounted)('a full disk', () => {
  it('answers 507 to a media upload and keeps nothing', async () => {
    fillDisk();
    const res = await post('/api/media', [{ name: 'file', filename: 'photo.png', content: png, type: 'image/png' }]);
    expect(res.status).toBe(507);
    expect(res.body.message).toMatch(/disk is full; the request was not completed/);
    expect((await t.api('GET', '/api/media')).body.data).toEqual([]);
    expect(leftovers()).toEqual([]);
  });

  it('answers 507 to an import upload, starts nothing and keeps nothing', async () => {
    const res = await importFile();
    expect(res.status).toBe(507);
    expect(res.body.message).toMatch(/disk is full/);
    expect((await t.api('GET', '/api/import/subscribers')).body.data.status).toBe('none');
    expect(leftovers()).toEqual([]);
  });

  it('works again once space is freed', async () => {
    rmSync(FILLER);
    const media = await post('/api/media', [{ name: 'file', filename: 'photo.png', content: png, type: 'image/png' }]);
    expect(media.status).toBe(200);
    expect((await t.api('GET', '/api/media')).body.data).toHaveLength(1);
    expect((await importFile()).status).toBe(200);
    let status = '';
    for (let i = 0; i < 100 && status !== 'finished'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await t.api('GET', '/api/import/subscribers')).body.data.status;
    }
    expect(status).toBe('finished');
    expect((await t.api('GET', '/api/subscribers?per_page=1')).body.data.total).toBe(4000);
  });
});
