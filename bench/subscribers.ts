/**
 * Subscriber queries at scale (issue 3 §6): seeds 1,000,000 subscribers with set-based SQL
 * (bench/_seed.ts: `INSERT … SELECT … FROM generate_series`) into a fresh PostgreSQL database (created
 * here, dropped at the end), starts Mailroom on it, and measures p50/p95 latency over real HTTP of: the
 * first page of GET /api/subscribers, a page filtered by a large and by a small list, and a page
 * filtered by an `attribs` equality query, each with its `total`.
 *
 * Baseline, same run and same database: the bare SQL a straightforward implementation would run for
 * the same answer (the page SELECT plus a COUNT(*) of the same filter), timed directly on one
 * connection without HTTP, JSON or the guard. Targets: p95 < 200 ms for the first page and the list
 * pages, < 1 s for the attribs query.
 *
 * Run: npx tsx bench/subscribers.ts   (DATABASE_URL names the server; default postgres://postgres@127.0.0.1:5432/test)
 * Env: BENCH_SUBSCRIBERS (default 1000000), BENCH_KEEP=1 keeps the database.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { buildDeps } from '../src/deps.js';
import { dropDatabase, seedDatabase, type ListKey } from './_seed.js';
import { machineLine, writeSection } from './report.js';

const N = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
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
}

function scenarios(lists: Record<ListKey, number>): Scenario[] {
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
  ];
}

async function main(): Promise<void> {
  console.log(`seeding ${N.toLocaleString('en-US')} subscribers into a fresh database on ${new URL(ADMIN_URL).host} …`);
  const seeded = await seedDatabase(ADMIN_URL, `mailroom_bench_${randomBytes(4).toString('hex')}`, N);
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s (${seeded.name})`);
  const config = loadConfig({ DATABASE_URL: seeded.url, MAILROOM_ADMIN_PASSWORD: PASSWORD, MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'silent', MAILROOM_DATA_DIR: '/tmp/mailroom-bench-unused' });
  const deps = await buildDeps(config, pino({ level: 'silent' }));
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const sql = new pg.Client({ connectionString: seeded.url });
  await sql.connect();
  const rows: string[] = [];
  try {
    for (const s of scenarios(seeded.lists)) {
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
      rows.push(`| ${s.name} | ${total.toLocaleString('en-US')} | ${f(http.p50)} | **${f(http.p95)}** | ${f(bare.p50)} | ${f(bare.p95)} | < ${s.target} | ${http.p95 < s.target ? 'met' : '**missed**'} |`);
    }
  } finally {
    await sql.end();
    await app.close();
    await deps.close();
    if (process.env.BENCH_KEEP !== '1') await drop(seeded.name);
  }
  writeSection('subscribers', section(seeded.seconds, rows));
}

function section(seedSeconds: number, rows: string[]): string {
  return `## subscribers

Measured ${machineLine()}, PostgreSQL on the same machine, one Mailroom process.

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

Why Mailroom beats its baseline where it does: the unfiltered total and the total of a single list (with or
without a subscription status) come from counts maintained by triggers (\`subscriber_totals\`,
\`list_subscriber_counts\`), so they never count a million rows; the page itself walks the primary key
backwards (and, for a list, probes \`subscriber_lists\`' primary key). Expressions and searches have to count the
rows they match. What is indexed: docs/subscribers.md.
Run: \`npx tsx bench/subscribers.ts\` (\`DATABASE_URL\` names the PostgreSQL server; a database is created and dropped).
`;
}

await main();
