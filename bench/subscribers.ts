/**
 * Subscriber queries at scale (issue 3 §6, issue 15 item 6): seeds 1,000,000 subscribers with set-based
 * SQL (bench/_seed.ts: `INSERT … SELECT … FROM generate_series`) into a fresh PostgreSQL database
 * (created here, dropped at the end), then 10,000,000 campaign views, 1,000,000 link clicks and 10,000
 * bounces (seedEngagement below, also generate_series), starts Mailroom on it, and measures p50/p95
 * latency over real HTTP of: the first page of GET /api/subscribers, a page filtered by a large and by a
 * small list, a page filtered by an `attribs` equality query, and pages filtered by engagement
 * sub-selects (viewed / did not view / clicked campaign N), each with its `total`.
 *
 * Baselines, same run and same database: the bare SQL a straightforward implementation would run for
 * the same answer (the page SELECT plus a COUNT(*) of the same filter), timed directly on one
 * connection without HTTP, JSON or the guard; for the engagement rows also that bare SQL with the
 * indexes as they were before migration 0010 (inside a transaction that is rolled back). Targets: p95 <
 * 200 ms for the first page, the list pages and the selective engagement queries, < 1 s for the attribs
 * query and the engagement queries matching a large share of subscribers.
 *
 * Run: npx tsx bench/subscribers.ts   (DATABASE_URL names the server; default postgres://postgres@127.0.0.1:5432/test)
 * Env: BENCH_SUBSCRIBERS (default 1000000), BENCH_VIEWS_PER_CAMPAIGN (default 1000000, ×10 campaigns),
 * BENCH_CLICKS (default 1000000), BENCH_KEEP=1 keeps the database.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { buildDeps } from '../src/deps.js';
import { dropDatabase, seedDatabase, type ListKey } from './_seed.js';
import { machineLine, writeSection } from './report.js';

const N = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
/** Views of each of the 10 big campaigns, and link clicks in all (defaults: 10,000,000 views, 1,000,000 clicks). */
const VIEWS_PER_CAMPAIGN = Number(process.env.BENCH_VIEWS_PER_CAMPAIGN ?? 1_000_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PASSWORD = 'bench-password-1';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

async function drop(name: string): Promise<void> {
  await dropDatabase(ADMIN_URL, name);
}

/** p50 and p95 of `n` sequential runs of `fn` after `warm` warm-up runs, in ms. */
async function latency(fn: () => Promise<void>, n: number, warm: number): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warm; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
  return { p50: at(0.5), p95: at(0.95) };
}

/** One measured request: the URL, the bare SQL of the baseline, the target p95 and how many runs. */
interface Scenario {
  name: string;
  url: string;
  sql: string[];
  target: number;
  runs: number;
  /** An engagement sub-select: also timed with the indexes as before migration 0010. */
  engagement?: boolean;
}

/** Campaigns of the engagement data: `big` has 1,000,000 views and 100,000 clicks (by default), `small` 1,000 views. */
interface Engagement { big: number; small: number; seconds: number; views: number; clicks: number }

/**
 * Seeds 10 campaigns with 1,000,000 views each (10,000,000 in all, each view's subscriber drawn by
 * hashing its number, so ~63% of subscribers view each campaign, some several times), an 11th with
 * 1,000 views, 1,000,000 clicks on 5 links of the first 10 campaigns, and 10,000 bounces; all with
 * `INSERT … SELECT … FROM generate_series`. The secondary indexes of the two big tables are dropped
 * during the load and rebuilt from their own definitions (a sorted build instead of 10,000,000 random
 * insertions), then `VACUUM ANALYZE`.
 */
async function seedEngagement(url: string, n: number): Promise<Engagement> {
  const t0 = performance.now();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: camps } = await c.query<{ id: number }>(
      "INSERT INTO campaigns (name, subject, from_email, status) SELECT 'bench campaign ' || g, 'Subject ' || g, 'bench@example.com', 'finished' FROM generate_series(1, 11) g RETURNING id",
    );
    const ids = camps.map((r) => r.id);
    const { rows: links } = await c.query<{ id: number }>("INSERT INTO links (url) SELECT 'https://bench.example/' || g FROM generate_series(1, 5) g RETURNING id");
    const indexes: string[] = [];
    for (const table of ['campaign_views', 'link_clicks']) {
      const { rows } = await c.query<{ name: string; def: string }>(
        "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname <> $1 || '_pkey'",
        [table],
      );
      for (const r of rows) {
        indexes.push(r.def);
        await c.query(`DROP INDEX ${r.name}`);
      }
    }
    const views = 10 * VIEWS_PER_CAMPAIGN;
    await c.query(
      `INSERT INTO campaign_views (campaign_id, subscriber_id, created_at)
       SELECT ($1::int[])[(g - 1) / $4::int + 1], (abs(hashint8(g::bigint)::bigint) % $2)::int + 1,
              timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
       FROM generate_series(1, $3::int) g`,
      [ids.slice(0, 10), n, views, VIEWS_PER_CAMPAIGN],
    );
    await c.query(
      `INSERT INTO campaign_views (campaign_id, subscriber_id) SELECT $1::int, ((g::bigint * 997) % $2)::int + 1 FROM generate_series(1, 1000) g`,
      [ids[10], n],
    );
    const clicks = CLICKS;
    await c.query(
      `INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at)
       SELECT ($1::int[])[g % 10 + 1], ($2::int[])[g % 5 + 1], (abs(hashint8(g::bigint + 1000000000)::bigint) % $3)::int + 1,
              timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
       FROM generate_series(1, $4::int) g`,
      [ids.slice(0, 10), links.map((r) => r.id), n, clicks],
    );
    await c.query(
      `INSERT INTO bounces (subscriber_id, campaign_id, type, source)
       SELECT ((g::bigint * 7919) % $2)::int + 1, ($1::int[])[g % 10 + 1], CASE WHEN g % 4 = 0 THEN 'hard' ELSE 'soft' END, 'bench'
       FROM generate_series(1, 10000) g`,
      [ids.slice(0, 10), n],
    );
    for (const def of indexes) await c.query(def);
    await c.query('VACUUM ANALYZE campaign_views, link_clicks, bounces, campaigns, links');
    return { big: ids[0]!, small: ids[10]!, seconds: (performance.now() - t0) / 1000, views: views + 1000, clicks };
  } finally {
    await c.end();
  }
}

function scenarios(lists: Record<ListKey, number>, e: Engagement): Scenario[] {
  const page = (where: string) => `SELECT s.* FROM subscribers s WHERE ${where} ORDER BY s.id DESC LIMIT 20`;
  const count = (where: string) => `SELECT count(*) FROM subscribers s WHERE ${where}`;
  const inList = (id: number) => `EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id AND sl.list_id = ${id})`;
  const city = "s.attribs->>'city' = 'Berlin'";
  return [
    { name: 'first page, no filter', url: '/api/subscribers', sql: [page('true'), count('true')], target: 200, runs: 200 },
    { name: 'page of a list with 50% of subscribers', url: `/api/subscribers?list_id=${lists.big}`, sql: [page(inList(lists.big)), count(inList(lists.big))], target: 200, runs: 200 },
    { name: 'page of a list with 1% of subscribers', url: `/api/subscribers?list_id=${lists.small}`, sql: [page(inList(lists.small)), count(inList(lists.small))], target: 200, runs: 200 },
    {
      name: "`query=subscribers.attribs->>'city' = 'Berlin'` (5%)",
      url: `/api/subscribers?query=${encodeURIComponent("subscribers.attribs->>'city' = 'Berlin'")}`,
      sql: [page(city), count(city)],
      target: 1000,
      runs: 40,
    },
    ...engagementScenarios(e),
  ];
}

/** Engagement sub-selects as listmonk's docs write them (issue 15 item 6). */
function engagementScenarios(e: Engagement): Scenario[] {
  const page = (where: string) => `SELECT subscribers.* FROM subscribers WHERE ${where} ORDER BY subscribers.id DESC LIMIT 20`;
  const count = (where: string) => `SELECT count(*) FROM subscribers WHERE ${where}`;
  const viewed = (c: number) => `EXISTS(SELECT 1 FROM campaign_views WHERE campaign_views.subscriber_id=subscribers.id AND campaign_views.campaign_id=${c})`;
  const clicked = (c: number) => `EXISTS(SELECT 1 FROM link_clicks WHERE link_clicks.subscriber_id=subscribers.id AND link_clicks.campaign_id=${c})`;
  const viewedIn = (c: number) => `subscribers.id IN (SELECT subscriber_id FROM campaign_views WHERE campaign_id = ${c})`;
  const one = (name: string, where: string, target: number, runs: number): Scenario => ({
    name, url: `/api/subscribers?query=${encodeURIComponent(where)}`, sql: [page(where), count(where)], target, runs, engagement: true,
  });
  return [
    one(`viewed campaign N (${VIEWS_PER_CAMPAIGN.toLocaleString('en-US')} views), \`EXISTS(… campaign_views …)\``, viewed(e.big), 1000, 20),
    one('did not view campaign N, `NOT EXISTS(…)`', `NOT ${viewed(e.big)}`, 1000, 20),
    one('viewed a campaign with 1,000 views', viewed(e.small), 200, 40),
    one('same, `subscribers.id IN (SELECT subscriber_id FROM campaign_views …)`', viewedIn(e.small), 200, 40),
    one(`clicked campaign N (${(CLICKS / 10).toLocaleString('en-US')} clicks), \`EXISTS(… link_clicks …)\``, clicked(e.big), 1000, 20),
  ];
}

/**
 * The bare SQL of the engagement scenarios with the indexes as migration 0001 left them (single-column
 * subscriber indexes, no (campaign, subscriber) index): rebuilt inside a transaction, timed, rolled back.
 */
async function beforeMigration0010(sql: pg.Client, list: Scenario[]): Promise<Map<string, { p50: number; p95: number }>> {
  const out = new Map<string, { p50: number; p95: number }>();
  await sql.query('BEGIN');
  try {
    await sql.query(`DROP INDEX campaign_views_campaign_subscriber_idx, campaign_views_subscriber_campaign_idx,
      link_clicks_campaign_subscriber_idx, link_clicks_subscriber_campaign_idx`);
    await sql.query('CREATE INDEX campaign_views_subscriber_idx ON campaign_views (subscriber_id)');
    await sql.query('CREATE INDEX link_clicks_subscriber_idx ON link_clicks (subscriber_id)');
    for (const s of list) {
      out.set(s.name, await latency(async () => {
        for (const q of s.sql) await sql.query(q);
      }, Math.max(5, Math.floor(s.runs / 4)), 1));
    }
  } finally {
    await sql.query('ROLLBACK');
  }
  return out;
}

async function main(): Promise<void> {
  console.log(`seeding ${N.toLocaleString('en-US')} subscribers into a fresh database on ${new URL(ADMIN_URL).host} …`);
  const seeded = await seedDatabase(ADMIN_URL, `mailroom_bench_${randomBytes(4).toString('hex')}`, N);
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s (${seeded.name})`);
  const engagement = await seedEngagement(seeded.url, N);
  console.log(`seeded ${engagement.views.toLocaleString('en-US')} views, ${engagement.clicks.toLocaleString('en-US')} clicks and 10,000 bounces in ${engagement.seconds.toFixed(1)} s`);
  const config = loadConfig({ DATABASE_URL: seeded.url, MAILROOM_ADMIN_PASSWORD: PASSWORD, MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'silent', MAILROOM_DATA_DIR: '/tmp/mailroom-bench-unused' });
  const deps = await buildDeps(config, pino({ level: 'silent' }));
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const sql = new pg.Client({ connectionString: seeded.url });
  await sql.connect();
  const rows: string[] = [];
  const engagementRows: string[] = [];
  const loadAtStart = loadavg()[0] ?? 0;
  try {
    const all = scenarios(seeded.lists, engagement);
    const measured = new Map<string, { total: number; http: { p50: number; p95: number }; bare: { p50: number; p95: number } }>();
    for (const s of all) {
      let total = 0;
      const http = await latency(async () => {
        const res = await fetch(base + s.url, { headers: { authorization: AUTH } });
        const body = (await res.json()) as { data: { total: number; results: unknown[] } };
        if (res.status !== 200 || body.data.results.length !== 20) throw new Error(`${s.url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        total = body.data.total;
      }, s.runs, 5);
      const bare = await latency(async () => {
        for (const q of s.sql) await sql.query(q);
      }, s.runs, 3);
      const f = (ms: number) => ms.toFixed(1);
      console.log(`${s.name}: total ${total}; HTTP p50 ${f(http.p50)} ms, p95 ${f(http.p95)} ms; bare SQL p50 ${f(bare.p50)} ms, p95 ${f(bare.p95)} ms (target p95 < ${s.target} ms)`);
      measured.set(s.name, { total, http, bare });
      if (s.engagement !== true) {
        rows.push(`| ${s.name} | ${total.toLocaleString('en-US')} | ${f(http.p50)} | **${f(http.p95)}** | ${f(bare.p50)} | ${f(bare.p95)} | < ${s.target} | ${http.p95 < s.target ? 'met' : '**missed**'} |`);
      }
    }
    const eng = all.filter((s) => s.engagement === true);
    const before = await beforeMigration0010(sql, eng);
    for (const s of eng) {
      const m = measured.get(s.name)!;
      const b = before.get(s.name)!;
      const f = (ms: number) => ms.toFixed(1);
      console.log(`${s.name}: bare SQL before migration 0010 p50 ${f(b.p50)} ms, p95 ${f(b.p95)} ms`);
      engagementRows.push(`| ${s.name} | ${m.total.toLocaleString('en-US')} | ${f(m.http.p50)} | **${f(m.http.p95)}** | ${f(m.bare.p50)} | ${f(m.bare.p95)} | ${f(b.p50)} | ${f(b.p95)} | < ${s.target} | ${m.http.p95 < s.target ? 'met' : '**missed**'} |`);
    }
  } finally {
    await sql.end();
    await app.close();
    await deps.close();
    if (process.env.BENCH_KEEP !== '1') await drop(seeded.name);
  }
  const load = `${loadAtStart.toFixed(1)} when the measurements started and ${(loadavg()[0] ?? 0).toFixed(1)} at the end`;
  writeSection('subscribers', section(seeded.seconds, rows, engagement, engagementRows, load));
}

function section(seedSeconds: number, rows: string[], e: Engagement, engagementRows: string[], load: string): string {
  return `## subscribers

Measured ${machineLine()}, PostgreSQL on the same machine, one Mailroom process; load average (1 min)
${load}.

Data: ${N.toLocaleString('en-US')} subscribers seeded with set-based \`INSERT … SELECT … FROM generate_series\`
(bench/_seed.ts; ${seedSeconds.toFixed(0)} s including both membership tables and \`VACUUM ANALYZE\`), each with
\`attribs\` \`{"city", "plan", "n"}\` (20 cities), 1% blocklisted, 2% disabled; a list holding every second
subscriber and one holding 1%. Each request asks for the first page (20 rows, newest first) and its \`total\`,
sequentially over real HTTP (keep-alive, JSON parsed).
Baseline: the bare SQL of a straightforward implementation for the same answer (the page \`SELECT\` plus a
\`COUNT(*)\` of the same filter), timed directly on one connection in the same run, without HTTP, JSON or the
guard's read-only transaction. Latencies in ms. The machine is shared with other work, so absolute figures
vary between runs; compare within a row.

| request | total | HTTP p50 | HTTP p95 | bare SQL p50 | bare SQL p95 | target p95 | |
|---|---:|---:|---:|---:|---:|---:|---|
${rows.join('\n')}

Engagement segmentation (issue 15 item 6): the same database plus ${e.views.toLocaleString('en-US')} campaign views
(10 campaigns with ${VIEWS_PER_CAMPAIGN.toLocaleString('en-US')} each, each view's subscriber drawn by a hash, and one with 1,000),
${e.clicks.toLocaleString('en-US')} link clicks and 10,000 bounces, seeded with \`generate_series\` in ${e.seconds.toFixed(0)} s
(indexes rebuilt after the load). Queries as listmonk's documentation writes them; page of 20 (newest first)
plus \`total\`. "Before 0010": the same bare SQL with the indexes migration 0001 had (single-column
\`subscriber_id\` indexes, views and clicks indexed by campaign only with \`created_at\`), rebuilt in a
transaction that is then rolled back.

| request | total | HTTP p50 | HTTP p95 | bare SQL p50 | bare SQL p95 | before 0010 p50 | before 0010 p95 | target p95 | |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
${engagementRows.join('\n')}

What migration 0010 changes: a total reads the campaign's viewers from \`(campaign_id, subscriber_id)\` alone
(an index-only scan) instead of fetching every view row, and a page probes \`(subscriber_id, campaign_id)\` once
per subscriber until it has 20. A total still counts every match, so segments of hundreds of thousands of
subscribers take about half a second to a second (a hash join of the campaign's index entries with all
subscribers); \`NOT EXISTS\` is an anti-join over every subscriber and is the slowest. A selective segment
answers in tens of milliseconds either way.

Why Mailroom beats its baseline where it does: the unfiltered total and the total of a single list (with or
without a subscription status) come from counts maintained by triggers (\`subscriber_totals\`,
\`list_subscriber_counts\`), so they never count a million rows; the page itself walks the primary key
backwards (and, for a list, probes \`subscriber_lists\`' primary key). Expressions and searches have to count the
rows they match. What is indexed: docs/subscribers.md.
Run: \`npx tsx bench/subscribers.ts\` (\`DATABASE_URL\` names the PostgreSQL server; a database is created and dropped).
`;
}

await main();
