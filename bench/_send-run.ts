/**
 * One measured run of bench/send, in its own process (so peak memory belongs to this run alone):
 *   _send-run.ts mailroom <store> <n> <sinkPort>   — a campaign to n subscribers through the engine
 *   _send-run.ts blast    <store> <n> <sinkPort>   — the same rendered messages sent by a bare nodemailer pool
 * <store> is `pglite` or a PostgreSQL URL. Prints one JSON line with the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import nodemailer from 'nodemailer';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/db.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-store.js';
import { openPostgres } from '../src/db/pg-store.js';
import { buildDeps } from '../src/deps.js';
import { CampaignMessageBuilder, type SubscriberForMessage } from '../src/mail/campaign-message.js';
import { CampaignLinks, LinkRegistry } from '../src/modules/tracking/links.js';
import type { RunningCampaign } from '../src/workers/campaign-store.js';

const [mode, store, nText, portText] = process.argv.slice(2) as [string, string, string, string];
const N = Number(nText);
const PORT = Number(portText);
const CONNS = 10;
const CONCURRENCY = 20;
const BODY = `<h2>Hello {{ .Subscriber.FirstName }}</h2>
<p>Your city: {{ .Subscriber.Attribs.city }}. ${'This month in the newsletter: news, notes and links. '.repeat(20)}</p>
<p><a href="{{ TrackLink "https://example.org/article?id=1" }}">Read the article</a></p>`;

async function openStore(): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (store === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
    const db = await openPglite(dir);
    return { db, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `mailroom_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: store });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(store);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), { maxConnections: 10 });
  return {
    db,
    drop: async () => {
      const c = new pg.Client({ connectionString: store });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function seed(db: Db): Promise<number> {
  await migrate(db);
  const [list] = await db.sql<{ id: number }>("INSERT INTO lists (name, type, optin) VALUES ('Bench', 'private', 'single') RETURNING id");
  await db.sql(`INSERT INTO subscribers (email, name, attribs)
    SELECT 'reader' || g || '@example.org', 'Reader' || g || ' Bench', jsonb_build_object('city', 'City ' || (g % 50)) FROM generate_series(1, $1::int) g`, [N]);
  await db.sql("INSERT INTO subscriber_lists (subscriber_id, list_id, status) SELECT id, $1::int, 'confirmed' FROM subscribers", [list!.id]);
  // The audience of a real campaign was loaded long before it is sent, and autovacuum has analyzed and
  // vacuumed it since. Without this the first batches are planned without statistics (a carve costs
  // 636 ms instead of 6 ms on PGlite at 100,000) and the embedded autovacuum's first VACUUM of the
  // freshly seeded tables runs inside the timed send; the CI PostgreSQL server has no autovacuum at all.
  await db.sql('VACUUM ANALYZE');
  return list!.id;
}

/** Samples RSS and the JS heap every 50 ms until stopped; returns their peaks (MiB). */
function rssSampler(): { stop: () => number; heap: () => number } {
  let peak = process.memoryUsage().rss;
  let heap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 50);
  return { stop: () => (clearInterval(timer), Math.round(peak / 2 ** 20)), heap: () => Math.round(heap / 2 ** 20) };
}

/** The configuration both sides start from (the blast uses it for the default templates and settings). */
function engineConfig(): ReturnType<typeof loadConfig> {
  return loadConfig({ MAILROOM_SMTP_URL: `smtp://127.0.0.1:${PORT}`, MAILROOM_ROOT_URL: 'https://lists.example.org', MAILROOM_FROM_EMAIL: 'Bench <bench@example.org>', LOG_LEVEL: 'silent', MAILROOM_ADMIN_PASSWORD: 'bench-password' });
}

async function runMailroom(db: Db, listId: number): Promise<Record<string, number>> {
  const deps = await buildDeps(engineConfig(), pino({ level: 'silent' }), { db });
  const smtp = deps.settings.get(deps.core.smtp).map((s) => ({ ...s, tls_type: 'none' as const, max_conns: CONNS }));
  await deps.settings.update({ 'app.message_rate': 0, 'app.concurrency': CONCURRENCY, smtp });
  const c = await deps.campaigns.create({ name: 'Bench', subject: 'Hello {{ .Subscriber.FirstName }}', lists: [listId], body: BODY } as never);
  if (global.gc) global.gc();
  const rssBefore = Math.round(process.memoryUsage().rss / 2 ** 20);
  const sampler = rssSampler();
  const started = performance.now();
  await deps.runner!.start();
  await deps.campaigns.setStatus(c.id, 'running' as never);
  for (;;) {
    const [row] = await db.sql<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [c.id]);
    if (row!.status === 'finished') break;
    // Polled like an operator's script would; the poll runs in the engine's process (PGlite: on its
    // thread), so it is kept sparse: it ends the clock at most 250 ms late on a send of over a minute.
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = sampler.stop();
  const [row] = await db.sql<{ sent: number }>('SELECT sent FROM campaigns WHERE id = $1', [c.id]);
  await deps.close();
  return { seconds, rate: N / seconds, sent: row!.sent, rssBefore, rssPeak: peak, heapPeak: sampler.heap() };
}

async function runBlast(db: Db, listId: number): Promise<Record<string, number>> {
  // Exactly the messages the engine sends: the same start-up (default templates, settings), the same
  // campaign created through the same service, the same builder with the campaign's template and its
  // registered tracked links, every subscriber of the list. The sink counts bytes, and bench/send
  // checks that both sides delivered the same number of bytes per message.
  const deps = await buildDeps(engineConfig(), pino({ level: 'silent' }), { db });
  const created = await deps.campaigns.create({ name: 'Bench', subject: 'Hello {{ .Subscriber.FirstName }}', lists: [listId], body: BODY } as never);
  const [campaign] = await db.sql<RunningCampaign>(
    'SELECT c.*, t.body AS template_body FROM campaigns c LEFT JOIN templates t ON t.id = c.template_id WHERE c.id = $1',
    [created.id],
  );
  const rootUrl = 'https://lists.example.org';
  const links = new CampaignLinks(new LinkRegistry(db), campaign!, rootUrl, false);
  const builder = new CampaignMessageBuilder(campaign!, campaign!.template_body, {
    rootUrl, trackViews: true, individualTracking: false, unsubscribeHeader: true, trackLink: (u, s) => links.trackLink(u, s),
  });
  await links.registerAll(builder.trackedUrls());
  const subs = await db.sql<SubscriberForMessage>('SELECT s.* FROM subscribers s JOIN subscriber_lists sl ON sl.subscriber_id = s.id WHERE sl.list_id = $1 ORDER BY s.id', [listId]);
  const messages = subs.map((s) => builder.render(s));
  subs.length = 0;
  const transport = nodemailer.createTransport({ pool: true, host: '127.0.0.1', port: PORT, secure: false, ignoreTLS: true, maxConnections: CONNS, maxMessages: 1000 });
  const sampler = rssSampler();
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < messages.length) {
      const m = messages[next++]!;
      await transport.sendMail({
        from: m.from, to: { name: m.to.name, address: m.to.address }, subject: m.subject, html: m.html, text: m.text,
        headers: m.headers.map(([key, value]) => ({ key, value })), messageId: `<${m.messageId}>`, disableFileAccess: true, disableUrlAccess: true,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  await deps.close();
  return { seconds, rate: N / seconds, sent: messages.length, rssBefore: 0, rssPeak: sampler.stop(), heapPeak: sampler.heap() };
}

const { db, drop } = await openStore();
try {
  const listId = await seed(db);
  const result = mode === 'blast' ? await runBlast(db, listId) : await runMailroom(db, listId);
  process.stdout.write(`${JSON.stringify({ mode, store: store === 'pglite' ? 'pglite' : 'postgres', n: N, ...result })}\n`);
} finally {
  await db.close();
  await drop();
}
process.exit(0);
