/**
 * Issue 14 finding 2, as an operator meets it: a real Mailroom process (main.ts, both stores) is sent
 * the 32-byte CSV `email,name\n"x"y@example.com,a\n`, then a CSV whose last quote is never closed. Its
 * csv-parse error was emitted before the importer listened, which ended the process (on PostgreSQL).
 * Now the process keeps running: each import ends `failed` with a log line naming the line, and the
 * next import succeeds. (test/http/import-broken-files.test.ts covers more broken files in-process.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH } from '../helpers/app.js';
import { prepareProcessStore, type ProcessStore } from '../helpers/process-store.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

let store: ProcessStore;
let server: ServerProcess | null = null;

beforeAll(async () => {
  store = await prepareProcessStore(async () => undefined);
  server = await startServer({ ...store.env, MAILROOM_API_ONLY: 'true', MAILROOM_INSTANCE_ID: 'import-broken-file-test' }, 120_000);
}, 180_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  await store?.cleanup();
}, 60_000);

async function upload(s: ServerProcess, csv: string): Promise<number> {
  const form = new FormData();
  form.append('params', JSON.stringify({ mode: 'subscribe' }));
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'broken.csv');
  const res = await fetch(`http://127.0.0.1:${s.port}/api/import/subscribers`, { method: 'POST', headers: { authorization: AUTH }, body: form });
  await res.text();
  return res.status;
}

/** Polls until the import ends; fails at once if the process exits meanwhile. */
async function waitDone(s: ServerProcess): Promise<{ status: string; imported: number }> {
  for (;;) {
    expect(s.child.exitCode, s.output()).toBe(null);
    const status = (await s.api('GET', '/api/import/subscribers')).body.data;
    if (status.status !== 'importing' && status.status !== 'stopping') return status;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a broken CSV sent to a running server', () => {
  it('fails the import with a log line, and the process keeps serving', async () => {
    const s = server!;
    const broken: Array<[string, RegExp]> = [
      ['email,name\n"x"y@example.com,a\n', /Failed after line 0: malformed CSV at line 2: Invalid Closing Quote/u],
      ['email,name\nann@broken.test,Ann\nbob@broken.test,"Bob\n', /Failed after line 0: malformed CSV at line 3: Quote Not Closed/u],
    ];
    for (const [csv, logged] of broken) {
      await s.api('DELETE', '/api/import/subscribers');
      expect(await upload(s, csv)).toBe(200);
      expect(await waitDone(s)).toMatchObject({ status: 'failed', imported: 0 });
      expect((await s.api('GET', '/api/import/subscribers/logs')).body.data).toMatch(logged);
      expect((await fetch(`http://127.0.0.1:${s.port}/health`)).status).toBe(200);
    }
    await s.api('DELETE', '/api/import/subscribers');
    expect(await upload(s, 'email,name\nann@fine.test,Ann\nbob@fine.test,Bob\n')).toBe(200);
    expect(await waitDone(s)).toMatchObject({ status: 'finished', imported: 2 });
    expect(s.child.exitCode).toBe(null);
  }, 120_000);
});
