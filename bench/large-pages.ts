/**
 * Large subscriber pages at scale (issue 14 finding 9, issue 15 item 4): seeds 1,000,000 subscribers
 * (bench/_seed.ts) into a fresh PostgreSQL database (created here, dropped at the end), starts Mailroom
 * as its own process (`node --import tsx src/main.ts`), and measures over real HTTP the server's
 * resident memory (Linux /proc: VmRSS sampled every 50 ms, and VmHWM reset before each step with
 * `/proc/<pid>/clear_refs`) and the throughput of:
 *
 * - baseline: eight clients paging with `per_page=100` (the first 50 pages each), at the same time;
 * - one `GET /api/subscribers?per_page=1000000`;
 * - eight `GET /api/subscribers?per_page=all` at the same time.
 *
 * Before the streamed answers, eight concurrent `per_page=all` took the process from 0.1 GB to 3 GB
 * (issue 14); the claim checked here is that a large page costs about what a small one does. The
 * client reads every answer as a stream (it never holds one), counts its subscribers and checks that
 * it ends with the envelope's last field.
 *
 * Run: npx tsx bench/large-pages.ts   (DATABASE_URL names the server; default postgres://postgres@127.0.0.1:5432/test)
 * Env: BENCH_SUBSCRIBERS (default 1000000), BENCH_KEEP=1 keeps the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dropDatabase, seedDatabase } from './_seed.js';
import { machineLine, writeSection } from './report.js';

const N = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const USER = 'admin';
const PASSWORD = 'bench-password-1';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const CLIENTS = 8;
const BASELINE_PAGES = 50;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts Mailroom on `url` and waits until /health answers. */
async function startMailroom(url: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, MAILROOM_DATA_DIR: '/tmp/mailroom-bench-pages-unused', MAILROOM_ADMIN_USER: USER, MAILROOM_ADMIN_PASSWORD: PASSWORD, MAILROOM_API_ONLY: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`Mailroom exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { child, port };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Mailroom did not start');
}

/** Resident and peak resident memory of process `pid`, in MiB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'mu').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Resets the peak resident memory (VmHWM) of `pid`; false where the kernel does not allow it. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** What one answer held. */
interface Read {
  rows: number;
  bytes: number;
  total: number;
  /** ms from the request to the first byte of the body. */
  firstByteMs: number;
}

/**
 * GETs `path` and reads the body as a stream, counting subscribers (`"email":` occurs once in each;
 * memberships have none) and bytes; throws unless the answer is a 200 that ends with the envelope.
 */
async function readPage(port: number, path: string): Promise<Read> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: AUTH } });
  if (res.status !== 200 || res.body === null) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let rows = 0;
  let bytes = 0;
  let carry = '';
  let firstByteMs = -1;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (firstByteMs < 0) firstByteMs = performance.now() - started;
    bytes += chunk.length;
    const text = carry + decoder.decode(chunk, { stream: true });
    for (let at = text.indexOf('"email":'); at !== -1; at = text.indexOf('"email":', at + 8)) rows += 1;
    // Keep a tail that cannot hold a whole match, so a match split across chunks is counted once.
    carry = text.slice(-200);
    const overlap = carry.lastIndexOf('"email":');
    if (overlap !== -1) carry = carry.slice(overlap + 8);
  }
  const tail = /"total":(\d+),"per_page":\d+,"page":\d+\}\}$/u.exec(carry);
  if (tail === null) throw new Error(`${path}: the answer does not end with the envelope: …${carry.slice(-120)}`);
  return { rows, bytes, total: Number(tail[1]), firstByteMs };
}

/** A measured step: wall time, the server's memory, what was read. */
interface Step {
  name: string;
  seconds: number;
  rows: number;
  bytes: number;
  requests: number;
  /** Highest RSS sampled (MiB) and the kernel's peak (VmHWM, reset before the step; NaN when not resettable). */
  sampledPeak: number;
  hwm: number;
  firstByteMs: number;
}

/** Runs `work` while sampling the server's memory every 50 ms. */
async function step(name: string, pid: number, work: () => Promise<Read[]>): Promise<Step> {
  const resettable = resetPeak(pid);
  let sampledPeak = memoryOf(pid).rss;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss)), 50);
  const started = performance.now();
  try {
    const reads = await work();
    const seconds = (performance.now() - started) / 1000;
    sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss);
    const s: Step = {
      name,
      seconds,
      rows: reads.reduce((a, r) => a + r.rows, 0),
      bytes: reads.reduce((a, r) => a + r.bytes, 0),
      requests: reads.length,
      sampledPeak,
      hwm: resettable ? memoryOf(pid).peak : Number.NaN,
      firstByteMs: Math.max(...reads.map((r) => r.firstByteMs)),
    };
    console.log(`${name}: ${s.requests} requests, ${s.rows.toLocaleString('en-US')} rows, ${(s.bytes / 2 ** 20).toFixed(0)} MiB in ${seconds.toFixed(1)} s (${Math.round(s.rows / seconds).toLocaleString('en-US')} rows/s); peak RSS ${s.hwm.toFixed(0)} MiB (sampled ${s.sampledPeak.toFixed(0)} MiB)`);
    return s;
  } finally {
    clearInterval(sampler);
  }
}

/** Waits `ms` and returns the server's RSS then (MiB). */
async function settle(pid: number, ms: number): Promise<number> {
  await new Promise((r) => setTimeout(r, ms));
  return memoryOf(pid).rss;
}

async function main(): Promise<void> {
  console.log(`seeding ${N.toLocaleString('en-US')} subscribers into a fresh database on ${new URL(ADMIN_URL).host} …`);
  const seeded = await seedDatabase(ADMIN_URL, `mailroom_bench_${randomBytes(4).toString('hex')}`, N);
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s (${seeded.name})`);
  const { child, port } = await startMailroom(seeded.url);
  const pid = child.pid!;
  const steps: Step[] = [];
  const idle: number[] = [];
  try {
    for (let i = 0; i < 5; i++) await readPage(port, '/api/subscribers?per_page=20');
    idle.push(await settle(pid, 2000));
    console.log(`idle RSS ${idle[0]!.toFixed(0)} MiB`);

    steps.push(
      await step(`baseline: ${CLIENTS} clients × ${BASELINE_PAGES} pages of \`per_page=100\``, pid, () =>
        Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            const reads: Read[] = [];
            for (let p = 1; p <= BASELINE_PAGES; p++) reads.push(await readPage(port, `/api/subscribers?per_page=100&page=${p}`));
            return reads;
          }),
        ).then((all) => all.flat()),
      ),
    );
    idle.push(await settle(pid, 2000));

    const one = await step('one `per_page=1000000`', pid, async () => [await readPage(port, '/api/subscribers?per_page=1000000')]);
    if (one.rows !== N) throw new Error(`per_page=1000000 answered ${one.rows} rows`);
    steps.push(one);
    idle.push(await settle(pid, 2000));

    const eight = await step(`${CLIENTS} concurrent \`per_page=all\``, pid, () => Promise.all(Array.from({ length: CLIENTS }, () => readPage(port, '/api/subscribers?per_page=all'))));
    if (eight.rows !== CLIENTS * N) throw new Error(`per_page=all answered ${eight.rows} rows`);
    steps.push(eight);
    idle.push(await settle(pid, 2000));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (process.env.BENCH_KEEP !== '1') await dropDatabase(ADMIN_URL, seeded.name);
  }
  writeSection('large pages', section(seeded.seconds, idle, steps));
}

function section(seedSeconds: number, idle: number[], steps: Step[]): string {
  const mib = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(0));
  const rows = steps.map(
    (s) =>
      `| ${s.name} | ${s.requests} | ${s.rows.toLocaleString('en-US')} | ${(s.bytes / 2 ** 20).toFixed(0)} | ${s.seconds.toFixed(1)} | ${Math.round(s.rows / s.seconds).toLocaleString('en-US')} | ${(s.bytes / 2 ** 20 / s.seconds).toFixed(1)} | ${(s.firstByteMs / 1000).toFixed(2)} | **${mib(s.hwm)}** (${mib(s.sampledPeak)}) | ${mib(s.hwm - idle[0]!)} |`,
  );
  return `## large pages

Measured ${machineLine()}, PostgreSQL on the same machine.

Data: ${N.toLocaleString('en-US')} subscribers as for bench/subscribers (bench/_seed.ts, ${seedSeconds.toFixed(0)} s with \`VACUUM ANALYZE\`);
half of them in one list, 1% in another, so an answer carries memberships too. Mailroom runs as its own
process (\`node --import tsx src/main.ts\`, \`MAILROOM_API_ONLY=true\`, default \`app.batch_size\` 1,000: the
subscribers read per \`FETCH\` of a streamed page); the client reads each answer as a stream, counts its
subscribers and checks it ends with the envelope. Memory is the server process's resident set (Linux
\`/proc/<pid>/status\`): the peak is \`VmHWM\` reset before each step (\`/proc/<pid>/clear_refs\`), in
parentheses the highest \`VmRSS\` sampled every 50 ms. Idle RSS after start and five small pages (tsx, which
compiles the TypeScript as it loads, is part of it):
**${mib(idle[0]!)} MiB**; after each step (2 s later): ${idle.slice(1).map(mib).join(', ')} MiB.
Baseline, same run: ${CLIENTS} clients at once paging through their first ${BASELINE_PAGES} pages of 100.
Before the answers were streamed (issue 14), ${CLIENTS} concurrent \`per_page=all\` took the process from
0.1 GB to 3 GB, and \`per_page\` above 1,000 was capped.

| step | requests | subscribers | MiB sent | seconds | subscribers/s | MiB/s | slowest first byte, s | peak RSS MiB | peak − idle MiB |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

The machine is shared with other work, so the throughput figures vary between runs; the memory figures are
what this benchmark is for. Run: \`npx tsx bench/large-pages.ts\` (\`DATABASE_URL\` names the PostgreSQL
server; a database is created and dropped).
`;
}

await main();
