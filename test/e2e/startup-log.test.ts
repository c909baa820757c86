/**
 * The start-up log line of a real process (src/main.ts) names the `app.root_url` in effect — the stored
 * setting, as every link uses it — not MAILROOM_ROOT_URL, which only seeds the setting on first start
 * (docs/configuration.md, "Seeding on first start").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessStore, prepareProcessStore } from '../helpers/process-store.js';
import { startServer } from '../helpers/server-process.js';

let store: ProcessStore;

beforeAll(async () => {
  // As an operator would have it: the setting changed after first start (here by an earlier release
  // that kept the trailing slash), and the environment still holding another value.
  store = await prepareProcessStore(async (db) => {
    await db.sql(`INSERT INTO settings (key, value) VALUES ('app.root_url', '"https://lists.example.org/"')`);
  });
}, 120_000);
afterAll(async () => store?.cleanup());

describe('the start-up log', () => {
  it('shows the app.root_url setting in effect, not MAILROOM_ROOT_URL', async () => {
    const server = await startServer({ ...store.env, MAILROOM_ROOT_URL: 'http://env.example', MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9', MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'info' });
    try {
      const startedLine = () =>
        server
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { msg?: string; root_url?: string })
          .find((l) => l.msg === 'mailroom started');
      // The line is written before the server answers /health; its pipe may be read a moment later.
      for (let i = 0; i < 50 && startedLine() === undefined; i++) await new Promise((r) => setTimeout(r, 100));
      expect(startedLine()?.root_url).toBe('https://lists.example.org');
      expect((await server.api('GET', '/api/settings')).body.data['app.root_url']).toBe('https://lists.example.org');
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
  });
});
