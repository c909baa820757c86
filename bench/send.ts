/**
 * Send benchmark (issue 5, Done when): a campaign to 100,000 subscribers through a local SMTP sink with
 * the rate limit off, next to a raw nodemailer blast of the same rendered messages (same default
 * template and body, same sink, same pool of 10 connections and 20 sends in flight) in the same run.
 * The blast renders every message before its clock starts and has no database, checkpoints, leases or
 * tracking: it is the ceiling. Target: Mailroom ≥ 0.8 of the blast. Memory: the engine's peak RSS at
 * 10,000 and at 100,000 subscribers (each run in its own process) should be the same.
 *
 * Runs on PGlite, and on PostgreSQL when BENCH_DATABASE_URL (or DATABASE_URL) is set.
 * Run: npx tsx bench/send.ts   (prints figures; updates the "send" section of docs/benchmarks.md)
 */
import { fork, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineLine, writeSection } from './report.js';

const dir = fileURLToPath(new URL('./', import.meta.url));
const N = Number(process.env.BENCH_SEND_N ?? 100_000);
const SMALL = Math.round(N / 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? null;

interface Result {
  mode: string;
  store: string;
  n: number;
  seconds: number;
  rate: number;
  sent: number;
  rssBefore: number;
  rssPeak: number;
  heapPeak: number;
  /** Mean size of a delivered message as the sink received it (bytes). */
  bytesPerMessage: number;
}

const sink = fork(`${dir}_sink.ts`, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = (cmd: string) =>
  new Promise<{ count: number; bytes: number; port?: number }>((resolve) => {
    sink.once('message', (m) => resolve(m as { count: number; bytes: number }));
    sink.send({ cmd });
  });
const { port } = await new Promise<{ port: number }>((resolve) => sink.once('message', (m) => resolve(m as { port: number })));

async function run(mode: 'mailroom' | 'blast', store: string, n: number): Promise<Result> {
  await ask('reset');
  const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `${dir}_send-run.ts`, mode, store, String(n), String(port)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (res.status !== 0) throw new Error(`${mode} ${n} failed:\n${res.stderr}`);
  const result = JSON.parse(res.stdout.trim().split('\n').pop()!) as Result;
  const { count, bytes } = await ask('count');
  if (count !== n) throw new Error(`${mode}: the sink received ${count} messages, expected ${n}`);
  result.bytesPerMessage = bytes / n;
  console.log(`${result.store} ${mode} n=${n}: ${result.rate.toFixed(0)} msg/s in ${result.seconds.toFixed(1)} s, ${result.bytesPerMessage.toFixed(0)} bytes/message, peak RSS ${result.rssPeak} MiB, peak heap ${result.heapPeak} MiB`);
  return result;
}

/**
 * The blast is a fair ceiling only if it sends what the engine sends: the mean message size the sink
 * received must agree within 0.5 % (MIME boundaries and Date headers vary by a few bytes at most).
 * Throws otherwise. (Until 2026-11-21 the blast sent the body without the campaign template: 3.7 KB
 * against the engine's 7.7 KB, so every earlier ratio understated the engine.)
 */
function assertSameMessages(blast: Result, mailroom: Result): void {
  const diff = Math.abs(blast.bytesPerMessage - mailroom.bytesPerMessage) / mailroom.bytesPerMessage;
  if (diff > 0.005) {
    throw new Error(`the blast sent ${blast.bytesPerMessage.toFixed(0)} bytes per message and Mailroom ${mailroom.bytesPerMessage.toFixed(0)}: not the same messages`);
  }
}

const loadBefore = loadavg()[0]!.toFixed(1);
const rows: string[] = [];
const verdicts: string[] = [];
let messageBytes = 0;
for (const store of ['pglite', ...(pgUrl ? [pgUrl] : [])]) {
  // The blast runs before and after Mailroom's send and the ratio uses their mean, so a change of the
  // machine's load during the run weighs on both sides (one blast alone has varied 410–717 msg/s).
  const before = await run('blast', store, N);
  const big = await run('mailroom', store, N);
  const after = await run('blast', store, N);
  const small = await run('mailroom', store, SMALL);
  assertSameMessages(before, big);
  assertSameMessages(after, big);
  messageBytes = big.bytesPerMessage;
  const label = store === 'pglite' ? 'PGlite' : 'PostgreSQL';
  const blastRate = (before.rate + after.rate) / 2;
  const ratio = big.rate / blastRate;
  rows.push(`| ${label} | ${before.rate.toFixed(0)} / ${after.rate.toFixed(0)} | ${big.rate.toFixed(0)} | ${ratio.toFixed(2)} | ${small.rssPeak} / ${small.heapPeak} MiB | ${big.rssPeak} / ${big.heapPeak} MiB |`);
  verdicts.push(`- ${label}: Mailroom reaches ${(ratio * 100).toFixed(0)} % of the blast (target ≥ 80 %); peak RSS ${small.rssPeak} MiB at ${SMALL.toLocaleString('en')} subscribers and ${big.rssPeak} MiB at ${N.toLocaleString('en')} (JS heap ${small.heapPeak} and ${big.heapPeak} MiB).`);
}
// The sink exits on `stop`: no answer to wait for.
sink.send({ cmd: 'stop' });

const md = `## send

Measured ${machineLine()}. Load average (1 min) ${loadBefore} at the start and ${loadavg()[0]!.toFixed(1)} at the
end of the run: other processes shared the two cores, so compare the columns of one row, not rows of runs.

Workload: one campaign to ${N.toLocaleString('en')} subscribers (default template, a ~1.2 KB personalised body with one
TrackLink and TrackView), rate limit off (\`app.message_rate\` 0), \`app.concurrency\` 20, one SMTP server with
\`max_conns\` 10: a local SMTP sink (smtp-server, its own process) that accepts everything.
Clock: from \`running\` to \`finished\` (every checkpoint written).
Baseline, same run, same sink: a bare nodemailer pool (10 connections, 20 sends in flight) sending the same
messages (same campaign, template and tracked links, rendered by the same builder before its clock starts:
no database, no rendering, no checkpoints), run once before and once after Mailroom's send; the ratio is
Mailroom's rate over the mean of the two. The sink counts the bytes it receives, and the bench stops if the
blast's messages and Mailroom's differ in size by more than 0.5 % (${messageBytes.toFixed(0)} bytes each in this run).
Peak RSS: the engine's process sampled every 50 ms during the send, each size in its own process
(PGlite runs inside that process, so its page cache counts too).

| store | blast msg/s (before / after) | Mailroom msg/s | ratio | peak RSS / heap at ${SMALL.toLocaleString('en')} | peak RSS / heap at ${N.toLocaleString('en')} |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

${verdicts.join('\n')}

Where the engine's time goes (CPU profiles of 30,000- and 100,000-message PGlite runs, 2026-11-21):
nodemailer's MIME building, quoted-printable encoding and socket writes cost the same per message in
Mailroom and in the blast; Mailroom adds its template rendering (about 5 % of its process) and, on
PGlite, the embedded database on the same thread: per batch of 1,000, the recipients fetch costs about
20 ms and the carve about 9 ms, each checkpoint (every 200 ms) about 1.5 ms, and preparing the run once
about 1 s at 100,000. The blast holds every rendered message in memory (peak heap over 1 GiB at 100,000),
which costs it garbage-collection time: the likeliest reason Mailroom can come out level with it or
ahead (not measured apart).

Two defects of this bench made every figure before 2026-11-21 understate Mailroom: the blast sent the
campaign body without its template (3.7 KB against the 7.7 KB Mailroom sends; the bench now checks the
bytes), and the seeded tables were first analyzed and vacuumed by the embedded autovacuum during the
timed send, so PGlite planned its first batches without statistics (a carve cost 636 ms instead of
6 ms; the bench now runs \`VACUUM ANALYZE\` after seeding, the state of a list loaded some time before
it is sent). Until the same day, finding a campaign's next batch also cost time in proportion to the
subscribers still to send (fixed: src/db/pglite-autovacuum.ts, migration 0007, \`batch-cursor\`).

Run: \`npx tsx bench/send.ts\` (PostgreSQL too with \`BENCH_DATABASE_URL=postgres://…\`).
`;
console.log(`\n${md}`);
if (N === 100_000) writeSection('send', md);
process.exit(0);
