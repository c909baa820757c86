/**
 * HTTP throughput under load: drives Mailroom's main read and write endpoints with autocannon
 * (100 connections, 30 s each by default) against PostgreSQL holding 1,000,000 subscribers, and the same
 * load against a bare Fastify route answering a fixed JSON body, in the same run. Prints requests/s,
 * p50/p99/max latency, errors (non-2xx answers, timeouts, socket errors) and where the CPU went; exits
 * non-zero when any endpoint had an error.
 *
 * Set-up: a fresh database (`mailroom_bench_http`, dropped and created, seeded by bench/_seed.ts, dropped
 * at the end unless BENCH_KEEP=1); Mailroom runs as its own process (`node --import tsx src/main.ts`,
 * as the process tests start it, `MAILROOM_API_ONLY=true`, `LOG_LEVEL=warn`); the baseline runs as its
 * own process too (bench/_bare-fastify.ts); autocannon runs in this process. Client, servers and
 * PostgreSQL share the machine.
 *
 * Order: bare Fastify, the reads, the writes, bare Fastify again (the ratio uses the mean of both bare
 * runs, which brackets drift from other work on the machine). Each endpoint is first checked with one
 * request (200 with a `data` envelope), then warmed up (same connections, BENCH_HTTP_WARMUP seconds, its
 * errors counted too), then measured. Exits 1 when any request failed (non-2xx, timeout, socket error) or
 * the POST run's answers and the subscribers it created disagree.
 *
 * Run: npm run bench http   (or npx tsx bench/http.ts)
 * Env: BENCH_HTTP_SECONDS (default 30), BENCH_HTTP_CONNECTIONS (default 100), BENCH_HTTP_WARMUP (default 5),
 * BENCH_SUBSCRIBERS (default 1000000), BENCH_DATABASE_URL or DATABASE_URL (the server; default
 * postgres://postgres@127.0.0.1:5432/postgres), BENCH_KEEP=1 keeps the database, BENCH_HTTP_REUSE=1 reuses
 * a kept one instead of seeding (quick tries only). docs/benchmarks.md (section "http") is written only by a
 * run with the default duration, connections and size, on a freshly seeded database, without errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { CITIES, databaseUrl, dropDatabase, seedDatabase, seededEmail, seededListIds, type ListKey } from './_seed.js';
import { machineLine, writeSection } from './report.js';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100);
const WARMUP = Number(process.env.BENCH_HTTP_WARMUP ?? 5);
const N = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'mailroom_bench_http';
const KEEP = process.env.BENCH_KEEP === '1';
const REUSE = process.env.BENCH_HTTP_REUSE === '1';
const RECORD = SECONDS === 30 && CONNECTIONS === 100 && N === 1_000_000 && !REUSE;
/** autocannon's default: a request without an answer after this many seconds counts as a timeout. */
const TIMEOUT_S = 10;
/** The message of the `reqError` autocannon emits for a timeout (counted separately, in `timeouts`). */
const TIMEOUT_MESSAGE = 'request timed out';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const USER = 'admin';
const PASSWORD = 'bench-password-http';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
/** Distinguishes this run's new subscribers (POST) from earlier runs on a reused database. */
const RUN_TAG = Date.now().toString(36);

// ---------------------------------------------------------------------------------------------------
// Processes

/** A server process started by this benchmark. */
interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  /** The last 64 KiB the process printed (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

function capture(child: ChildProcess): () => string {
  let out = '';
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-65_536);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => out;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
}

/** Starts the bare Fastify baseline (bench/_bare-fastify.ts) and waits for its port. */
async function startBare(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/_bare-fastify.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const output = capture(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bare Fastify exited with ${code}:\n${output()}`)));
  });
  return { name: 'bare Fastify', child, port, output, stop: stopper(child) };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts Mailroom (`node --import tsx src/main.ts`) on database `url` and waits until /health answers. */
async function startMailroom(url: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: url,
      MAILROOM_DATA_DIR: '/tmp/mailroom-bench-http-unused',
      MAILROOM_ADMIN_USER: USER,
      MAILROOM_ADMIN_PASSWORD: PASSWORD,
      MAILROOM_API_ONLY: 'true',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`Mailroom exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return { name: 'Mailroom', child, port, output, stop: stopper(child) };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`Mailroom did not start within 60 s:\n${output()}`);
}

// ---------------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc; null elsewhere). Everything in clock ticks, turned into cores used.

/** utime + stime of process `pid` in clock ticks, or null when it cannot be read. */
function processTicks(pid: number | string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * utime + stime of the threads of process `pid` other than its main thread, in clock ticks, or null. In
 * a Node server that is V8's helper threads (parallel GC, compilation) and libuv's thread pool, which
 * these endpoints use only for scrypt (password checks).
 */
function offMainTicks(pid: number): number | null {
  try {
    let ticks = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      const t = processTicks(`${pid}/task/${tid}`);
      if (t !== null) ticks += t;
    }
    return ticks;
  } catch {
    return null;
  }
}

/** Busy and total clock ticks of the whole machine (all CPUs), or null. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/u).slice(1, 9).map(Number) as number[];
    const total = user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!;
    return { busy: total - idle! - iowait!, total };
  } catch {
    return null;
  }
}

/** Cores used over a measured run: the server process, the bench database's backends, autocannon, the rest. */
interface CpuShare {
  server: number;
  /** The part of `server` spent off its main thread (see {@link offMainTicks}). */
  serverOffMain: number;
  postgres: number;
  client: number;
  rest: number;
  idle: number;
}

/** Samples the CPU counters at the start of a run; `finish()` returns the shares since then. */
async function cpuProbe(serverPid: number, admin: pg.Client, dbName: string | null): Promise<() => Promise<CpuShare | null>> {
  const backends = async (): Promise<Map<number, number>> => {
    if (dbName === null) return new Map();
    const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
    const ticks = new Map<number, number>();
    for (const { pid } of rows) {
      const t = processTicks(pid);
      if (t !== null) ticks.set(pid, t);
    }
    return ticks;
  };
  const m0 = machineTicks();
  const s0 = processTicks(serverPid);
  const o0 = offMainTicks(serverPid);
  const c0 = processTicks('self');
  const pg0 = await backends();
  return async () => {
    const pg1 = await backends();
    const m1 = machineTicks();
    const s1 = processTicks(serverPid);
    const o1 = offMainTicks(serverPid);
    const c1 = processTicks('self');
    if (!m0 || !m1 || s0 === null || s1 === null || o0 === null || o1 === null || c0 === null || c1 === null) return null;
    let pgTicks = 0;
    for (const [pid, t] of pg1) pgTicks += t - (pg0.get(pid) ?? 0);
    const total = m1.total - m0.total;
    const cores = (ticks: number): number => (ticks / total) * cpus().length;
    const busy = m1.busy - m0.busy;
    const server = cores(s1 - s0);
    const postgres = cores(pgTicks);
    const client = cores(c1 - c0);
    return { server, serverOffMain: cores(o1 - o0), postgres, client, rest: Math.max(0, cores(busy) - server - postgres - client), idle: cores(total - busy) };
  };
}

// ---------------------------------------------------------------------------------------------------
// Endpoints and load

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';

/** One measured endpoint: which server, and its request (fixed, or built afresh for every request). */
interface Endpoint {
  /** Label in the table, e.g. `GET /api/subscribers/:id`. */
  name: string;
  target: 'bare' | 'mailroom';
  method: Method;
  /** A fixed path, or the path and body of the next request. */
  request: { path: string; body?: unknown } | (() => { path: string; body?: unknown });
  /** How the requests vary, for the docs. */
  note: string;
}

/** The figures of one endpoint's measured run. Latencies in ms; rate in requests per second. */
interface Measured {
  endpoint: Endpoint;
  /** Completed responses (any status) ÷ duration, requests/s. */
  rate: number;
  p50: number;
  p99: number;
  max: number;
  /** Responses with a status outside 2xx (warm-up included), by status. */
  non2xx: Record<string, number>;
  /** Requests without an answer within the timeout (warm-up included). */
  timeouts: number;
  /** Socket errors other than timeouts (warm-up included), by message. */
  socketErrors: Record<string, number>;
  /** Successful (2xx) responses over warm-up and measurement. */
  ok: number;
  /** The fewest responses completed in one second of the measured run (autocannon's per-second samples). */
  slowestSecond: number;
  cpu: CpuShare | null;
}

/** A pseudo-random subscriber id in 1..n (the seeded ones). */
function randomId(n: number): number {
  return 1 + Math.floor(Math.random() * n);
}

/** POST bodies built so far (each a new e-mail address): an upper bound on subscribers the run can create. */
let postsBuilt = 0;

function endpoints(lists: Record<ListKey, number>, n: number): Endpoint[] {
  let edits = 0;
  return [
    { name: 'bare Fastify `GET /bare` (baseline)', target: 'bare', method: 'GET', request: { path: '/bare' }, note: 'fixed JSON body `{"data":{"id":1,"email":"a@example.org"}}`' },
    { name: '`GET /api/subscribers?page=1&per_page=20`', target: 'mailroom', method: 'GET', request: { path: '/api/subscribers?page=1&per_page=20' }, note: 'first page of all subscribers with `total`' },
    { name: '`GET /api/subscribers/:id`', target: 'mailroom', method: 'GET', request: () => ({ path: `/api/subscribers/${randomId(n)}` }), note: 'a random seeded id per request, with its list memberships' },
    { name: '`GET /api/lists`', target: 'mailroom', method: 'GET', request: { path: '/api/lists' }, note: 'the two lists with their subscriber counts' },
    { name: '`GET /api/subscribers?list_id=…&per_page=20`', target: 'mailroom', method: 'GET', request: { path: `/api/subscribers?list_id=${lists.big}&per_page=20` }, note: `first page of the list holding ${Math.floor(n / 2).toLocaleString('en-US')} subscribers, with \`total\`` },
    {
      name: '`POST /api/subscribers`', target: 'mailroom', method: 'POST',
      request: () => {
        const k = ++postsBuilt;
        return { path: '/api/subscribers', body: { email: `bench-${RUN_TAG}-${k}@example.net`, name: `Bench ${k}`, status: 'enabled', lists: [lists.small], attribs: { city: CITIES[k % CITIES.length], source: 'bench' } } };
      },
      note: 'a new e-mail address per request, subscribed to the 1% list, with attribs',
    },
    {
      name: '`PUT /api/subscribers/:id`', target: 'mailroom', method: 'PUT',
      request: () => {
        const id = randomId(n);
        const k = ++edits;
        return { path: `/api/subscribers/${id}`, body: { email: seededEmail(id), name: `User${id} Edited`, lists: seededListIds(id, lists), attribs: { city: CITIES[id % CITIES.length], plan: 'pro', n: id, edit: k } } };
      },
      note: 'a random seeded id: full replacement keeping its e-mail and lists, new name and attribs',
    },
    {
      name: '`PATCH /api/subscribers/:id`', target: 'mailroom', method: 'PATCH',
      request: () => {
        const id = randomId(n);
        return { path: `/api/subscribers/${id}`, body: { attribs: { last_patch: ++edits } } };
      },
      note: 'a random seeded id: one attribute merged into its attribs',
    },
  ];
}

function headersFor(e: Endpoint): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json' };
  if (e.target === 'mailroom') h.authorization = AUTH;
  if (e.method !== 'GET') h['content-type'] = 'application/json';
  return h;
}

/** One request of `e` outside the load, to check the endpoint answers 200 with a `data` envelope. */
async function check(e: Endpoint, base: string): Promise<void> {
  const r = typeof e.request === 'function' ? e.request() : e.request;
  const res = await fetch(base + r.path, { method: e.method, headers: headersFor(e), ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}) });
  const text = await res.text();
  if (res.status !== 200 || !('data' in (JSON.parse(text) as object))) throw new Error(`${e.method} ${r.path}: ${res.status} ${text.slice(0, 300)}`);
}

/** Runs autocannon against `e` for `seconds`; resolves with its result and the socket errors by message. */
function cannon(e: Endpoint, base: string, seconds: number): Promise<{ result: autocannon.Result; socketErrors: Record<string, number> }> {
  const headers = headersFor(e);
  const request: autocannon.Request = typeof e.request === 'function'
    ? {
        method: e.method,
        headers,
        setupRequest: (req) => {
          const r = (e.request as () => { path: string; body?: unknown })();
          return { ...req, path: r.path, ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}) };
        },
      }
    : { method: e.method, headers, path: e.request.path, ...(e.request.body !== undefined ? { body: JSON.stringify(e.request.body) } : {}) };
  const socketErrors: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: base, connections: CONNECTIONS, duration: seconds, timeout: TIMEOUT_S, requests: [request] }, (err, result) => {
      if (err) reject(err);
      else resolve({ result, socketErrors });
    });
    instance.on('reqError', (err: Error & { code?: string }) => {
      const key = err.code ?? err.message;
      socketErrors[key] = (socketErrors[key] ?? 0) + 1;
    });
  });
}

function non2xxOf(r: autocannon.Result): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) {
    if (!code.startsWith('2') && (s.count ?? 0) > 0) out[code] = s.count ?? 0;
  }
  return out;
}

function merge(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** Warm-up, then the measured run of `e`, with CPU accounting around the measured run. */
async function measure(e: Endpoint, server: Server, admin: pg.Client): Promise<Measured> {
  const base = `http://127.0.0.1:${server.port}`;
  await check(e, base);
  const warm = WARMUP > 0 ? await cannon(e, base, WARMUP) : null;
  const finish = await cpuProbe(server.child.pid!, admin, e.target === 'mailroom' ? DB_NAME : null);
  const { result, socketErrors: errorsByMessage } = await cannon(e, base, SECONDS);
  const cpu = await finish();
  const timeouts = result.timeouts + (warm?.result.timeouts ?? 0);
  const socketErrors = Object.fromEntries(Object.entries(merge(errorsByMessage, warm?.socketErrors ?? {})).filter(([k]) => k !== TIMEOUT_MESSAGE));
  // autocannon's own count of errors that were not timeouts; anything its events did not name is "other".
  const unnamed = result.errors - result.timeouts + (warm ? warm.result.errors - warm.result.timeouts : 0) - sum(socketErrors);
  if (unnamed > 0) socketErrors.other = (socketErrors.other ?? 0) + unnamed;
  return {
    endpoint: e,
    rate: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: merge(non2xxOf(result), warm ? non2xxOf(warm.result) : {}),
    timeouts,
    socketErrors,
    ok: result['2xx'] + (warm?.result['2xx'] ?? 0),
    slowestSecond: result.requests.min,
    cpu,
  };
}

// ---------------------------------------------------------------------------------------------------
// Report

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const ms = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const errorsOf = (m: Measured): number => sum(m.non2xx) + m.timeouts + sum(m.socketErrors);

function errorCell(m: Measured): string {
  const parts: string[] = [];
  for (const [code, count] of Object.entries(m.non2xx)) parts.push(`${int(count)}× ${code}`);
  if (m.timeouts > 0) parts.push(`${int(m.timeouts)} timeouts`);
  for (const [what, count] of Object.entries(m.socketErrors)) parts.push(`${int(count)}× ${what}`);
  return parts.length === 0 ? '0' : `**${parts.join(', ')}**`;
}

/** CPU milliseconds per completed request of one party (cores × 1000 ÷ requests/s); "n/a" without /proc. */
function perRequest(m: Measured, party: 'server' | 'serverOffMain' | 'postgres' | 'client'): string {
  if (m.cpu === null || m.rate === 0) return 'n/a';
  if (party === 'postgres' && m.endpoint.target === 'bare') return '—';
  return ((m.cpu[party] * 1000) / m.rate).toFixed(2);
}

function table(rows: Measured[], bareRate: number): string {
  const lines = rows.map((m) => {
    const ratio = `${((100 * m.rate) / bareRate).toFixed(m.endpoint.target === 'bare' ? 0 : 1)}%`;
    const rest = m.cpu === null ? 'n/a' : `${m.cpu.rest.toFixed(2)} / ${m.cpu.idle.toFixed(2)}`;
    return `| ${m.endpoint.name} | ${int(m.rate)} | ${int(m.slowestSecond)} | ${ms(m.p50)} | ${ms(m.p99)} | ${ms(m.max)} | ${errorCell(m)} | ${ratio} | ${perRequest(m, 'server')} (${perRequest(m, 'serverOffMain')}) / ${perRequest(m, 'postgres')} / ${perRequest(m, 'client')} | ${rest} |`;
  });
  return `| endpoint | requests/s | slowest second | p50 ms | p99 ms | max ms | errors (non-2xx, timeouts, socket) | vs bare Fastify | CPU ms per request: server (off its main thread) / PostgreSQL / autocannon | other work / idle, cores |
|---|---:|---:|---:|---:|---:|---|---:|---|---|
${lines.join('\n')}`;
}

function section(rows: Measured[], bareRate: number, seedSeconds: number, created: number, createdOk: number): string {
  const mailroom = rows.filter((m) => m.endpoint.target === 'mailroom');
  const bare = rows.filter((m) => m.endpoint.target === 'bare');
  const span = (xs: number[], digits: number): string => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
  const pct = (ms: Measured[]): string => span(ms.map((m) => (100 * m.rate) / bareRate), 1);
  const reads = mailroom.filter((m) => m.endpoint.method === 'GET');
  const writes = mailroom.filter((m) => m.endpoint.method !== 'GET');
  const cpuRows = mailroom.filter((m) => m.cpu !== null && m.rate > 0);
  const msPer = (m: Measured, c: number): number => (c * 1000) / m.rate;
  // What the machine's cores could serve if nothing but this client, server and database ran.
  const ceiling = (m: Measured): number => (cpus().length * 1000) / msPer(m, m.cpu!.server + m.cpu!.postgres + m.cpu!.client);
  const cpuText = cpuRows.length === 0 ? '' : `A Mailroom request cost the server ${span(cpuRows.map((m) => msPer(m, m.cpu!.server)), 2)} ms
of CPU and PostgreSQL ${span(cpuRows.map((m) => msPer(m, m.cpu!.postgres)), 2)} ms, against ${span(bare.filter((m) => m.cpu).map((m) => msPer(m, m.cpu!.server)), 2)} ms
for the bare route; with autocannon's share, ${cpus().length} cores doing nothing else could serve about
${span(cpuRows.map(ceiling), 0)} Mailroom requests/s depending on the endpoint. During the Mailroom runs other work took
${span(cpuRows.map((m) => m.cpu!.rest), 2)} cores and ${span(cpuRows.map((m) => m.cpu!.idle), 2)} cores stayed idle.`;
  const notes = rows.filter((m, i) => rows.findIndex((o) => o.endpoint === m.endpoint) === i).map((m) => `- ${m.endpoint.name}: ${m.endpoint.note}.`).join('\n');
  return `## http

Measured ${machineLine()}.
autocannon, ${CONNECTIONS} connections (keep-alive, one request in flight on each), ${SECONDS} s per endpoint after a
${WARMUP} s warm-up at the same load; request timeout ${TIMEOUT_S} s (autocannon's default).
**Client, servers and database share the machine's ${cpus().length} cores**: autocannon runs in the benchmark process,
Mailroom in its own process (\`node --import tsx src/main.ts\`, \`MAILROOM_API_ONLY=true\`, \`LOG_LEVEL=warn\`, the
default pool of 20 database connections), PostgreSQL 15 (default configuration) on the same machine, and other
work (e.g. a test suite) may run at the same time, so absolute figures are noisy: read the ratio to the baseline
and the CPU cost per request.

Data: ${N.toLocaleString('en-US')} subscribers and two lists holding 50% and 1% of them, as for bench/subscribers
(bench/_seed.ts: set-based \`generate_series\` inserts, ${seedSeconds.toFixed(0)} s with \`VACUUM ANALYZE\`), in a fresh database.
Baseline, same run, same autocannon settings: a bare Fastify ${fastifyVersion()} app in its own process with one route
answering a fixed JSON body (bench/_bare-fastify.ts), run first and again last; "vs bare Fastify" divides by the
mean of the two (${int(bareRate)} requests/s).
Requests/s: completed responses ÷ duration. Slowest second: the fewest responses completed in one second of the
run. Latencies: autocannon's histogram (whole milliseconds). Errors: counted over warm-up and measurement.
CPU (Linux \`/proc\`, measured run only): CPU time of the server process (in parentheses: the part spent off its
main thread, in V8's helper threads and libuv's thread pool), of the PostgreSQL backends of the bench database
and of autocannon, each divided by the requests completed; then the cores used by everything else (PostgreSQL's
background processes, the kernel's network work, other work on the machine) and the cores left idle.

${table(rows, bareRate)}

Requests:
${notes}

No endpoint had an error (non-2xx answer, timeout or socket error) at ${CONNECTIONS} connections. The POST runs
answered 2xx ${int(createdOk)} times and the database holds ${int(created)} new subscribers (the difference: requests
still in flight when a run stopped, processed by the server but not counted by autocannon).

Reads reach ${pct(reads)}% of the bare route's rate, writes ${pct(writes)}%. What limits it: CPU per request, on
cores shared by client, server and database. The bare route costs the server little more than HTTP parsing; a
Mailroom request adds authentication, validation, response serialisation and several SQL round trips, each a
socket write and read on both sides (a page of subscribers runs in a guarded read-only transaction: \`BEGIN\`, the
guard's set-up and check, the page, the total, \`ROLLBACK\`, then the memberships of the 20 rows; a write is a
transaction with a row lock, triggers and a WAL flush at commit). ${cpuText}
With ${CONNECTIONS} connections and 20 pooled database connections, requests queue for a connection: that shows as
latency, not as errors. On a real deployment the client is elsewhere and PostgreSQL usually has its own machine.
Run: \`npm run bench http\` (creates and drops the database \`${DB_NAME}\`).
`;
}

function fastifyVersion(): string {
  return (JSON.parse(readFileSync(new URL('../node_modules/fastify/package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

// ---------------------------------------------------------------------------------------------------
// Main

/** Seeds (or, with BENCH_HTTP_REUSE=1, finds) the bench database; returns its URL, list ids and seeding time. */
async function prepare(): Promise<{ url: string; lists: Record<ListKey, number>; seconds: number }> {
  const url = databaseUrl(ADMIN_URL, DB_NAME);
  if (REUSE) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query<{ name: string; id: number }>("SELECT name, id FROM lists WHERE name IN ('bench big', 'bench small')");
    await c.end();
    const id = (name: string): number => rows.find((r) => r.name === name)?.id ?? (() => { throw new Error(`${DB_NAME} has no list "${name}"; run without BENCH_HTTP_REUSE`); })();
    return { url, lists: { big: id('bench big'), small: id('bench small') }, seconds: 0 };
  }
  console.log(`seeding ${N.toLocaleString('en-US')} subscribers into ${DB_NAME} on ${new URL(ADMIN_URL).host} …`);
  const seeded = await seedDatabase(ADMIN_URL, DB_NAME, N);
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s`);
  return { url: seeded.url, lists: seeded.lists, seconds: seeded.seconds };
}

async function main(): Promise<number> {
  const db = await prepare();
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const servers: Server[] = [];
  const rows: Measured[] = [];
  let created = 0;
  try {
    const bare = await startBare();
    servers.push(bare);
    const mailroom = await startMailroom(db.url);
    servers.push(mailroom);
    const list = endpoints(db.lists, N);
    const plan = [...list, list[0]!];
    for (const e of plan) {
      const server = e.target === 'bare' ? bare : mailroom;
      process.stdout.write(`${e.name} … `);
      const m = await measure(e, server, admin);
      rows.push(m);
      console.log(`${int(m.rate)} req/s (slowest second ${int(m.slowestSecond)}), p50 ${ms(m.p50)} ms, p99 ${ms(m.p99)} ms, max ${ms(m.max)} ms, errors ${errorCell(m)}, CPU ms/request server ${perRequest(m, 'server')} (off main thread ${perRequest(m, 'serverOffMain')}), PostgreSQL ${perRequest(m, 'postgres')}, autocannon ${perRequest(m, 'client')}; other work ${m.cpu?.rest.toFixed(2) ?? 'n/a'} cores, idle ${m.cpu?.idle.toFixed(2) ?? 'n/a'}`);
    }
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    created = Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM subscribers WHERE email LIKE $1', [`bench-${RUN_TAG}-%`])).rows[0]!.n);
    await c.end();
    const bad = servers.map((s) => s.output()).join('').trim();
    if (bad !== '') console.log(`server output (last 64 KiB):\n${bad}`);
  } finally {
    for (const s of servers) await s.stop();
    await admin.end();
    if (!KEEP && !REUSE) await dropDatabase(ADMIN_URL, DB_NAME);
  }

  const bares = rows.filter((m) => m.endpoint.target === 'bare');
  const bareRate = bares.reduce((a, m) => a + m.rate, 0) / bares.length;
  const post = rows.find((m) => m.endpoint.method === 'POST')!;
  // One subscriber comes from the check request before the warm-up. Requests still in flight when a run
  // ends (at most one per connection, at the end of the warm-up and of the measurement) are processed by
  // the server but not counted by autocannon, so: answered 2xx ≤ created ≤ bodies built.
  const createdOk = post.ok + 1;
  console.log(`\n${table(rows, bareRate)}\n`);
  console.log(`POST: ${int(createdOk)} answered 2xx, ${int(created)} new subscribers in the database, ${int(postsBuilt)} bodies built`);
  const errors = rows.reduce((a, m) => a + errorsOf(m), 0);
  const mismatch = created < createdOk || created > postsBuilt;
  if (errors > 0 || mismatch) {
    if (errors > 0) console.error(`FAILED: ${int(errors)} errors (see the table)`);
    if (mismatch) console.error(`FAILED: POST answered 2xx ${createdOk} times and built ${postsBuilt} bodies, but ${created} subscribers were created`);
    return 1;
  }
  const markdown = section(rows, bareRate, db.seconds, created, createdOk);
  if (RECORD) writeSection('http', markdown);
  else console.log(`not writing docs/benchmarks.md (non-default duration, connections or size, or a reused database); the section would be:\n\n${markdown}`);
  return 0;
}

process.exit(await main());
