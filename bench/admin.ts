/**
 * Admin pages against their API answers (issue 16 "Done when": a page costs at most 1.5× its API
 * answer). Seeds 1,000,000 subscribers (bench/_seed.ts) into a fresh PostgreSQL database (dropped at
 * the end), adds 50 users, signs a Super Admin in, then measures each page's server time next to the
 * JSON API answer(s) holding the same data, both through the full Fastify pipeline (`app.inject`: the
 * server's time without the network), with the same session cookie, alternating page and API so a
 * load change hits both:
 *
 * - `GET /admin` (dashboard) against `GET /api/dashboard/counts` + `GET /api/dashboard/charts`;
 * - `GET /admin/settings` against `GET /api/settings`;
 * - `GET /admin/users` against `GET /api/users`.
 *
 * Run: npx tsx bench/admin.ts   (DATABASE_URL names the server; default postgres://postgres@127.0.0.1:5432/test)
 * Env: BENCH_SUBSCRIBERS (default 1000000), BENCH_RUNS (default 60), BENCH_KEEP=1 keeps the database.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { buildDeps } from '../src/deps.js';
import { dropDatabase, seedDatabase } from './_seed.js';
import { machineLine, writeSection } from './report.js';

const N = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One comparison: a page and the API requests answering the same data. */
interface Pair {
  page: string;
  api: string[];
}

const PAIRS: Pair[] = [
  { page: '/admin', api: ['/api/dashboard/counts', '/api/dashboard/charts'] },
  { page: '/admin/settings', api: ['/api/settings'] },
  { page: '/admin/users', api: ['/api/users'] },
];

/** Median of `xs` (ms). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const seeded = await seedDatabase(ADMIN_URL, `mailroom_bench_${randomBytes(4).toString('hex')}`, N);
  console.log(`seeded ${N.toLocaleString('en-US')} subscribers in ${seeded.seconds.toFixed(0)} s`);
  const config = loadConfig({ DATABASE_URL: seeded.url, MAILROOM_ADMIN_PASSWORD: 'bench-password-1', MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'silent', MAILROOM_DATA_DIR: '/tmp/mailroom-bench-unused' });
  const deps = await buildDeps(config, pino({ level: 'silent' }));
  const app = await buildApp(deps);
  const rows: string[] = [];
  let worst = 0;
  try {
    await app.ready();
    for (let i = 0; i < 50; i++) {
      await deps.db.sql(`INSERT INTO users (username, email, name, type, user_role_id, password_hash) VALUES ($1, $2, $3, 'user', 1, NULL)`, [`user${i}`, `user${i}@example.com`, `User ${i}`]);
    }
    const [{ id }] = (await deps.db.sql<{ id: number }>(`SELECT id FROM users WHERE username = 'user0'`)) as [{ id: number }];
    const cookie = `session=${await deps.sessions.start(id, { ip: '127.0.0.1', userAgent: 'bench' })}`;
    const get = async (url: string): Promise<number> => {
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url, headers: { cookie } });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      return ms;
    };
    for (const pair of PAIRS) {
      const page: number[] = [];
      const api: number[] = [];
      for (let i = 0; i < 5; i++) {
        await get(pair.page);
        for (const u of pair.api) await get(u);
      }
      for (let i = 0; i < RUNS; i++) {
        page.push(await get(pair.page));
        let sum = 0;
        for (const u of pair.api) sum += await get(u);
        api.push(sum);
      }
      const ratio = median(page) / median(api);
      worst = Math.max(worst, ratio);
      rows.push(`| \`GET ${pair.page}\` | ${median(page).toFixed(1)} | ${pair.api.map((u) => `\`GET ${u}\``).join(' + ')} | ${median(api).toFixed(1)} | ${ratio.toFixed(2)} |`);
      console.log(rows[rows.length - 1]);
    }
  } finally {
    await app.close();
    await deps.close();
    if (!process.env.BENCH_KEEP) await dropDatabase(ADMIN_URL, seeded.name);
  }
  writeSection(
    'admin pages',
    `## admin pages

Issue 16's target: an admin page costs at most 1.5× the JSON API answer for the same data. ${N.toLocaleString('en-US')}
subscribers, 50 users, PostgreSQL; each figure is the median of ${RUNS} requests through the whole server
(\`app.inject\`, same session cookie, page and API alternating). Measured ${machineLine()}; load average
(1 min) ${loadavg()[0]!.toFixed(1)} at the end.

| page | ms | API answer(s) for the same data | ms | page / API |
|---|---:|---|---:|---:|
${rows.join('\n')}

Worst ratio: **${worst.toFixed(2)}** (target ≤ 1.5). Run: \`npm run bench admin\`.
`,
  );
  if (worst > 1.5) process.exitCode = 1;
}

await main();
