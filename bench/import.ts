/**
 * Import benchmark (issue "Transactional messages, media and bulk import" §4): generates a CSV of
 * 1,000,000 subscribers with attributes in a temporary directory, imports it through the HTTP API of
 * a real Mailroom process on a fresh PostgreSQL database (created and dropped here), and compares the
 * rate with a plain `COPY … FROM STDIN (FORMAT csv)` of the same file into a bare three-column table
 * in the same database, measured in the same run.
 *
 * A 100,000-row import runs first in the same process, so the peak RSS of the two sizes can be
 * compared: flat memory means the peak does not grow with the file. The whole sequence runs twice, with
 * the default two import writers and with one (each on a fresh database), so the second writer's gain
 * is measured in the same run.
 *
 * Run: npx tsx bench/import.ts [rows]   (needs PostgreSQL: BENCH_DATABASE_URL or DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres; prints figures; updates the "import" section of
 * docs/benchmarks.md when run with the default size)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { machineLine, writeSection } from './report.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SMALL = Math.min(100_000, Math.floor(ROWS / 10));
/** Import writers of the measured run: Mailroom's default on PostgreSQL (src/config.ts). */
const WRITERS = 2;
/** V8 old-space cap (MiB) of the run that shows the importer's memory does not grow with the file. */
const HEAP_CAP_MIB = 96;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const USER = 'admin';
const PASSWORD = 'bench-password-123';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const CITIES = ['Leeds', 'Lyon', 'Pune', 'Recife', 'Osaka', 'Tartu', 'Accra', 'Quito'];

/** Writes `rows` subscribers as CSV (email, name, attributes as JSON) to `path`. */
async function generate(path: string, rows: number, offset: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('email,name,attributes\n');
  let chunk = '';
  for (let i = offset; i < offset + rows; i++) {
    const attribs = JSON.stringify({ city: CITIES[i % CITIES.length], customer_id: i, plan: i % 3 === 0 ? 'pro' : 'free', tags: ['import', `cohort-${i % 12}`] });
    chunk += `user${i}@example.org,User Number ${i},"${attribs.replace(/"/gu, '""')}"\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The baseline: COPY of the CSV into a bare table (no indexes, no checks). Rows per second. */
async function bareCopy(url: string, path: string): Promise<number> {
  return withClient(url, async (c) => {
    await c.query('DROP TABLE IF EXISTS bench_bare');
    await c.query('CREATE TABLE bench_bare (email text, name text, attributes text)');
    const started = performance.now();
    await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), c.query(copyFrom('COPY bench_bare FROM STDIN (FORMAT csv, HEADER true)')));
    const secs = (performance.now() - started) / 1000;
    const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM bench_bare');
    await c.query('DROP TABLE bench_bare');
    return Number(rows[0]!.n) / secs;
  });
}

/**
 * The schema's floor: the same rows written with no checks, in two set-based statements (COPY into a
 * staging table, then INSERT … SELECT into subscribers with all their indexes, then the memberships),
 * on an emptied subscribers table. Rows per second.
 */
async function schemaFloor(url: string, path: string): Promise<number> {
  return withClient(url, async (c) => {
    await c.query('TRUNCATE subscribers CASCADE');
    const [list] = (await c.query<{ id: number }>("INSERT INTO lists (name) VALUES ('Floor') RETURNING id")).rows;
    // The imports before it leave WAL to flush; without a checkpoint the floor pays for their writes too.
    await c.query('CHECKPOINT');
    const started = performance.now();
    await c.query('CREATE TEMP TABLE bench_stage (email text, name text, attributes text)');
    await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), c.query(copyFrom('COPY bench_stage FROM STDIN (FORMAT csv, HEADER true)')));
    const res = await c.query('INSERT INTO subscribers (email, name, attribs) SELECT email, name, attributes::jsonb FROM bench_stage');
    await c.query("INSERT INTO subscriber_lists (subscriber_id, list_id, status) SELECT id, $1, 'confirmed' FROM subscribers", [list!.id]);
    const secs = (performance.now() - started) / 1000;
    await c.query('DROP TABLE bench_stage');
    return (res.rowCount ?? 0) / secs;
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts Mailroom on `url` and waits until it answers. */
async function startMailroom(url: string, dataDir: string, writers: number, heapMiB: number | null): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(heapMiB === null ? [] : [`--max-old-space-size=${heapMiB}`]), '--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, MAILROOM_DATA_DIR: dataDir, MAILROOM_ADMIN_USER: USER, MAILROOM_ADMIN_PASSWORD: PASSWORD, MAILROOM_API_ONLY: 'true', MAILROOM_IMPORT_WRITERS: String(writers), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { child, port };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Mailroom did not start');
}

async function api<T>(port: number, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: AUTH, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return ((await res.json()) as { data: T }).data;
}

/** Streams the file as a multipart upload (nothing is held in memory). */
function upload(port: number, path: string, params: object): Promise<number> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="params"\r\n\r\n${JSON.stringify(params)}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="subscribers.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/import/subscribers', headers: { authorization: AUTH, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + statSync(path).size + tail.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path);
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'mu').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

interface ImportRun {
  seconds: number;
  importSeconds: number;
  imported: number;
  peakMiB: number;
  /** Highest RSS sampled while the file was uploaded, and in the first and second half of the import. */
  uploadMaxMiB: number;
  firstHalfMaxMiB: number;
  secondHalfMaxMiB: number;
}

/** Imports `path` through the API into a new list and waits for the end; memory sampled every 250 ms. */
async function importViaApi(port: number, pid: number, path: string): Promise<ImportRun> {
  await api(port, 'DELETE', '/api/import/subscribers');
  const list = await api<{ id: number }>(port, 'POST', '/api/lists', { name: `Bench ${Date.now()}`, type: 'private', optin: 'single' });
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(memoryOf(pid).rss), 100);
  const started = performance.now();
  const status = await upload(port, path, { mode: 'subscribe', lists: [list.id], subscription_status: 'confirmed', overwrite: false });
  if (status !== 200) throw new Error(`upload answered ${status}`);
  const uploaded = samples.length;
  let s: { status: string; imported: number; skipped: number };
  do {
    await new Promise((r) => setTimeout(r, 100));
    s = await api(port, 'GET', '/api/import/subscribers');
  } while (s.status === 'importing' || s.status === 'stopping');
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (s.status !== 'finished' || s.skipped !== 0) throw new Error(`import ended ${JSON.stringify(s)}:\n${await api<string>(port, 'GET', '/api/import/subscribers/logs')}`);
  const log = await api<string>(port, 'GET', '/api/import/subscribers/logs');
  const importSeconds = Number(/Finished in ([\d.]+) s/u.exec(log)?.[1] ?? seconds);
  const during = samples.slice(uploaded);
  const max = (xs: number[]) => Math.max(0, ...xs);
  const half = Math.floor(during.length / 2);
  return {
    seconds,
    importSeconds,
    imported: s.imported,
    peakMiB: memoryOf(pid).peak,
    uploadMaxMiB: max(samples.slice(0, uploaded)),
    firstHalfMaxMiB: max(during.slice(0, half)),
    secondHalfMaxMiB: max(during.slice(half)),
  };
}

/** What one server configuration did: the small then the big import, each on a fresh database. */
interface Measured {
  idle: number;
  first: ImportRun;
  run: ImportRun;
}

/**
 * Creates database `url`, starts Mailroom on it with `writers` import writers (and V8's old space
 * capped at `heapMiB`, when given), imports the small then the big file, checks that the database
 * holds every row, and stops the server.
 */
async function measure(url: URL, dataDir: string, writers: number, small: string, big: string, heapMiB: number | null = null): Promise<Measured> {
  await withClient(ADMIN_URL, (c) => c.query(`CREATE DATABASE ${url.pathname.slice(1)}`));
  const started = await startMailroom(url.toString(), dataDir, writers, heapMiB);
  const server = started.child;
  try {
    const pid = server.pid!;
    const idle = memoryOf(pid).rss;
    const first = await importViaApi(started.port, pid, small);
    console.log(`${writers} writer(s), ${SMALL.toLocaleString('en')} rows: ${(first.imported / first.seconds).toFixed(0)} rows/s end to end, peak RSS ${first.peakMiB.toFixed(0)} MiB`);
    const run = await importViaApi(started.port, pid, big);
    console.log(`${writers} writer(s), ${ROWS.toLocaleString('en')} rows: ${(run.imported / run.seconds).toFixed(0)} rows/s end to end (${(run.imported / run.importSeconds).toFixed(0)} import phase), peak RSS ${run.peakMiB.toFixed(0)} MiB`);
    const counts = await withClient(url.toString(), async (c) => (await c.query<{ s: string; m: string }>('SELECT (SELECT count(*) FROM subscribers) AS s, (SELECT count(*) FROM subscriber_lists) AS m')).rows[0]!);
    if (Number(counts.s) !== ROWS + SMALL || Number(counts.m) !== ROWS + SMALL) throw new Error(`database holds ${counts.s} subscribers and ${counts.m} memberships`);
    return { idle, first, run };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-import-'));
  const dbName = `mailroom_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const oneUrl = new URL(ADMIN_URL);
  oneUrl.pathname = `/${dbName}_one`;
  const cappedUrl = new URL(ADMIN_URL);
  cappedUrl.pathname = `/${dbName}_capped`;
  try {
    const small = join(dir, 'small.csv');
    const big = join(dir, 'big.csv');
    console.log(`generating ${SMALL.toLocaleString('en')} and ${ROWS.toLocaleString('en')} rows in ${dir} …`);
    await generate(small, SMALL, ROWS);
    await generate(big, ROWS, 0);
    const mib = statSync(big).size / 2 ** 20;
    console.log(`big file: ${mib.toFixed(1)} MiB`);

    // The default (two writers), then one writer on its own fresh database: the same-run baseline
    // that shows what the second writer gives.
    const { idle, first, run } = await measure(url, join(dir, 'data'), WRITERS, small, big);
    const one = await measure(oneUrl, join(dir, 'data-one'), 1, small, big);
    // Flat memory, shown rather than read off peaks that follow the garbage collector: the same imports
    // with the server's JS heap capped at HEAP_CAP_MIB (it would fail with "heap out of memory" if the
    // importer kept anything per row of the file).
    const capped = await measure(cappedUrl, join(dir, 'data-capped'), WRITERS, small, big, HEAP_CAP_MIB);
    const copyRate = await bareCopy(url.toString(), big);
    const floorRate = await schemaFloor(url.toString(), big);
    const rate = run.imported / run.seconds;
    const importRate = run.imported / run.importSeconds;
    const oneRate = one.run.imported / one.run.seconds;
    const oneImportRate = one.run.imported / one.run.importSeconds;
    const load = loadavg()[0]!.toFixed(1);
    const lines = [
      `import through the API, end to end (upload + line count + import): ${rate.toFixed(0)} rows/s (${run.seconds.toFixed(1)} s)`,
      `the same with one writer (MAILROOM_IMPORT_WRITERS=1):               ${oneRate.toFixed(0)} rows/s (${one.run.seconds.toFixed(1)} s; import phase ${oneImportRate.toFixed(0)} rows/s); ${WRITERS} writers / 1: ${(rate / oneRate).toFixed(2)}`,
      `import phase alone (from the import log):                          ${importRate.toFixed(0)} rows/s (${run.importSeconds.toFixed(1)} s)`,
      `plain COPY of the same file into a bare table:                    ${copyRate.toFixed(0)} rows/s`,
      `schema floor (COPY to staging + INSERT … SELECT into subscribers + memberships, no checks): ${floorRate.toFixed(0)} rows/s`,
      `ratio end to end / COPY: ${(rate / copyRate).toFixed(2)}; import phase / COPY: ${(importRate / copyRate).toFixed(2)}; import phase / schema floor: ${(importRate / floorRate).toFixed(2)}`,
      `server RSS: idle ${idle.toFixed(0)} MiB; peak ${first.peakMiB.toFixed(0)} MiB after ${SMALL.toLocaleString('en')} rows, ${run.peakMiB.toFixed(0)} MiB after ${ROWS.toLocaleString('en')} rows; big import: upload max ${run.uploadMaxMiB.toFixed(0)} MiB, import max ${run.firstHalfMaxMiB.toFixed(0)} MiB (first half) / ${run.secondHalfMaxMiB.toFixed(0)} MiB (second half)`,
      `with the JS heap capped at ${HEAP_CAP_MIB} MiB: ${ROWS.toLocaleString('en')} rows in ${capped.run.seconds.toFixed(1)} s (${(capped.run.imported / capped.run.seconds).toFixed(0)} rows/s), peak RSS ${capped.first.peakMiB.toFixed(0)} MiB after ${SMALL.toLocaleString('en')} rows and ${capped.run.peakMiB.toFixed(0)} MiB after ${ROWS.toLocaleString('en')}`,
      `1-minute load average at the end: ${load} (${cpus().length} cores)`,
    ];
    for (const l of lines) console.log(l);
    if (ROWS !== 1_000_000) return;
    writeSection('import', `## import

Measured ${machineLine()}, PostgreSQL ${await withClient(url.toString(), async (c) => (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v)} on the same machine.

Workload: a generated CSV of ${ROWS.toLocaleString('en')} subscribers (${mib.toFixed(0)} MiB; columns \`email\`, \`name\`,
\`attributes\` holding a JSON object with four keys) uploaded to \`POST /api/import/subscribers\` of a real
Mailroom process (\`MAILROOM_API_ONLY=true\`) on a fresh database, in subscribe mode into one list as
\`confirmed\`. Timed from the start of the upload until the status is \`finished\`; every row is checked
and written as a subscriber with its membership (the database holds ${(ROWS + SMALL).toLocaleString('en')} of each afterwards).
Baseline, same run, same database: \`COPY … FROM STDIN (FORMAT csv, HEADER true)\` of the same file into
a bare table of three \`text\` columns (no indexes, no checks, no JSON parsing).

| | rows/s |
|---|---:|
| import through the API, end to end (upload, line count, import), ${WRITERS} writers (the default) | ${rate.toFixed(0)} |
| import phase alone (parse, check, COPY to staging, upsert, memberships), ${WRITERS} writers | ${importRate.toFixed(0)} |
| import through the API, end to end, one writer (\`MAILROOM_IMPORT_WRITERS=1\`) | ${oneRate.toFixed(0)} |
| import phase alone, one writer | ${oneImportRate.toFixed(0)} |
| plain COPY into a bare table (the issue's baseline) | ${copyRate.toFixed(0)} |
| schema floor: COPY to staging + one INSERT … SELECT into \`subscribers\` + memberships, no checks | ${floorRate.toFixed(0)} |

Two writers against one, same run: ${(rate / oneRate).toFixed(2)} end to end, ${(importRate / oneImportRate).toFixed(2)} for the import phase (each writer is
a connection of its own; rows are shared out by e-mail, and only the memberships and commits take turns).
Ratio to the bare COPY: ${(rate / copyRate).toFixed(2)} end to end, ${(importRate / copyRate).toFixed(2)} for the import phase.
Ratio of the import phase to the schema floor: ${(importRate / floorRate).toFixed(2)}. The floor is one connection writing the
rows with no checks in set-based statements: what a single writer pays for this schema, where
\`subscribers\` carries eight indexes (among them the GIN index on \`attribs\` and the unique e-mail and uuid
indexes) and \`subscriber_lists\` two foreign keys (checked row by row) and the count triggers, while the bare table
has none. Several writers can beat it only by using more cores; this machine has ${cpus().length}, shared with the
server process and PostgreSQL.
Goals: ≥ 50,000 rows/s and ≥ 0.3 of the bare COPY rate (listmonk publishes about 10,000 rows/s):
${rate >= 50_000 && rate / copyRate >= 0.3 ? 'met' : `**not met** in this run (${rate >= 50_000 ? 'the rate is met' : `${rate.toFixed(0)} rows/s`}, ${(rate / copyRate).toFixed(2)} of the bare COPY). 0.3 of the bare COPY is ${(0.3 * copyRate).toFixed(0)} rows/s, ${((0.3 * copyRate) / floorRate).toFixed(1)} times the single-connection floor, and 50,000 rows/s is ${(50_000 / floorRate).toFixed(1)} times it`}.

Memory of the server process (RSS, sampled every 100 ms): idle ${idle.toFixed(0)} MiB; peak (VmHWM) ${first.peakMiB.toFixed(0)} MiB after
a ${SMALL.toLocaleString('en')}-row import and ${run.peakMiB.toFixed(0)} MiB after the ${ROWS.toLocaleString('en')}-row import (${mib.toFixed(0)} MiB file). During the big import:
highest ${run.uploadMaxMiB.toFixed(0)} MiB while uploading, ${run.firstHalfMaxMiB.toFixed(0)} MiB in the first half of the import and ${run.secondHalfMaxMiB.toFixed(0)} MiB in the
second half: memory follows the garbage collector's cycles, not the size of the file (with one writer the
peak was ${one.run.peakMiB.toFixed(0)} MiB after ${ROWS.toLocaleString('en')} rows and ${one.first.peakMiB.toFixed(0)} MiB after ${SMALL.toLocaleString('en')}). Shown directly: the same two imports with the
server's JS heap capped at ${HEAP_CAP_MIB} MiB (\`--max-old-space-size\`; Node would stop with "heap out of memory" if
the importer held anything per row of the file) complete: ${ROWS.toLocaleString('en')} rows at ${(capped.run.imported / capped.run.seconds).toFixed(0)} rows/s,
peak RSS ${capped.first.peakMiB.toFixed(0)} MiB after ${SMALL.toLocaleString('en')} rows and ${capped.run.peakMiB.toFixed(0)} MiB after ${ROWS.toLocaleString('en')}.

The machine is shared: the 1-minute load average was ${load} on ${cpus().length} cores at the end of the run, so every
figure above is a fraction of what an idle machine gives; compare the ratios.
Run: \`npx tsx bench/import.ts\`.
`);
  } finally {
    await withClient(ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
    await withClient(ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName}_one WITH (FORCE)`));
    await withClient(ADMIN_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName}_capped WITH (FORCE)`));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
