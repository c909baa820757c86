/**
 * Several instances on one PostgreSQL (issue 5, Done when): three Mailroom processes send one
 * 20,000-subscriber campaign through two SMTP servers; one is killed with SIGKILL mid-run. Its batch is
 * taken over when its lease expires, and the campaign finishes with:
 * - every subscriber receiving the message;
 * - duplicates within the bound: a killed instance can lose the outcome of at most WINDOW dispatched
 *   messages of the one batch it held (per campaign), so total accepted − distinct accepted ≤ WINDOW.
 *   Message-IDs are deterministic per (campaign, subscriber), so "distinct" counts distinct Message-IDs;
 * - `sent` equal to the number of distinct messages the SMTP servers accepted (a message accepted by
 *   SMTP whose confirmation died with the killed process is necessarily sent again, and counted once).
 * A fourth, API-only instance (MAILROOM_API_ONLY) serves the API and never claims work.
 * PostgreSQL only: the embedded store (PGlite) serves a single process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUNNER_OPTIONS } from '../../src/workers/campaign-runner.js';
import { storeKind } from '../helpers/db.js';
import { type ProcessStore, prepareProcessStore } from '../helpers/process-store.js';
import { seedList } from '../helpers/seed.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { rawMessageId, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

const N = 20_000;
const WINDOW = DEFAULT_RUNNER_OPTIONS.window;

describe.skipIf(storeKind !== 'postgres')('three instances on one PostgreSQL, one killed (PostgreSQL only: PGlite serves one process)', () => {
  let sinks: SmtpSink[] = [];
  let store: ProcessStore;
  let listId = 0;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    sinks = [await startSmtpSink({ parse: false }), await startSmtpSink({ parse: false })];
    store = await prepareProcessStore(async (db) => {
      listId = await seedList(db, N, 'multi');
    });
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    for (const s of sinks) await s.close();
    await store?.cleanup();
  });

  function smtpBlock(name: string, sink: SmtpSink) {
    return {
      uuid: `uuid-${name}`, name, enabled: true, host: '127.0.0.1', port: sink.port, hello_hostname: '', auth_protocol: 'none', username: '',
      password: '', tls_type: 'none', tls_skip_verify: false, max_conns: 5, idle_timeout: '15s', wait_timeout: '5s', max_msg_retries: 2, email_headers: [],
    };
  }

  it('every subscriber receives the campaign, duplicates stay within the bound, and sent is exact', async () => {
    const env = { ...store.env, MAILROOM_ROOT_URL: 'http://mailroom.test', MAILROOM_SMTP_URL: sinks[0]!.url };
    const api = await startServer({ ...env, MAILROOM_INSTANCE_ID: 'api-only', MAILROOM_API_ONLY: 'true' });
    servers.push(api);
    expect((await api.api('PUT', '/api/settings', { 'app.message_rate': 0, smtp: [smtpBlock('one', sinks[0]!), smtpBlock('two', sinks[1]!)] })).status).toBe(200);
    for (const id of ['node-1', 'node-2', 'node-3']) servers.push(await startServer({ ...env, MAILROOM_INSTANCE_ID: id }));

    const created = await api.api('POST', '/api/campaigns', { name: 'Together', subject: 'Hi {{ .Subscriber.FirstName }}', lists: [listId], body: '<p>{{ .Subscriber.Attribs.n }}</p>' });
    expect(created.status).toBe(200);
    const { id, uuid } = created.body.data;
    expect((await api.api('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status).toBe(200);

    const accepted = () => sinks.reduce((n, s) => n + s.messages.length, 0);
    const db = await store.open();
    const owners = new Set<string>();
    try {
      while (accepted() < N / 3) {
        for (const r of await db.sql<{ owner: string }>("SELECT DISTINCT owner FROM campaign_batches WHERE owner IS NOT NULL")) owners.add(r.owner);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await servers[2]!.kill('SIGKILL')).toBeNull();
      const until = Date.now() + 240_000;
      let c: any = {};
      while (Date.now() < until) {
        c = (await api.api('GET', `/api/campaigns/${id}`)).body.data;
        if (c.status === 'finished') break;
        for (const r of await db.sql<{ owner: string }>("SELECT DISTINCT owner FROM campaign_batches WHERE owner IS NOT NULL")) owners.add(r.owner);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(c.status).toBe('finished');

      const byId = new Map<string, number>();
      for (const s of sinks) for (const m of s.messages) {
        const mid = rawMessageId(m.raw)!;
        expect(mid.startsWith(`${uuid}.`)).toBe(true);
        byId.set(mid, (byId.get(mid) ?? 0) + 1);
      }
      const recipients = new Set(sinks.flatMap((s) => s.messages.flatMap((m) => m.envelope.to)));
      const missing = [];
      for (let i = 1; i <= N; i++) if (!recipients.has(`multi${i}@example.org`)) missing.push(i);
      expect(missing).toEqual([]);
      expect(byId.size).toBe(N);
      const duplicates = accepted() - byId.size;
      console.log(`multi-instance: ${accepted()} accepted, ${byId.size} distinct, ${duplicates} duplicates (bound ${WINDOW}); servers ${sinks.map((s) => s.messages.length).join('/')}; owners ${[...owners].sort().join(',')}`);
      expect(duplicates).toBeLessThanOrEqual(WINDOW);
      expect(c.sent).toBe(byId.size);
      expect(c.to_send).toBe(N);
      expect(owners.has('api-only')).toBe(false);
      expect([...owners].filter((o) => o.startsWith('node-')).length).toBeGreaterThanOrEqual(2);
      expect(sinks.every((s) => s.messages.length > N / 4)).toBe(true);
    } finally {
      await db.close();
    }
  }, 400_000);
});
