/**
 * The subscriber importer (spec 4.6): streams an uploaded CSV (or the CSV in a ZIP) through csv-parse
 * into batches, and writes each batch in one transaction: COPY into a staging table, one upsert,
 * the membership statements, the bad rows' log lines and the counters together. So the counters always
 * match the database, and a crash loses at most the batch in flight, never half of one.
 *
 * On PostgreSQL several writers (connections) write at once: rows are shared out by e-mail
 * ({@link writerOf}), each writer's batches commit in file order, and the run records each writer's
 * high-water mark; the memberships and commits of all writers take turns (see writeOnce).
 *
 * Memory stays flat: each writer's next batch is parsed while its previous one is written (at most two
 * batches of {@link ImporterOptions.batchRows} rows / batchBytes bytes per writer), and the file is
 * never read whole.
 * Stopping (DELETE, from any instance) is seen in the status each batch commit answers (or by the
 * heartbeat), so at most one more batch per writer is written; a restart marks an import that was running as
 * failed with the line it reached (see ImportRepo.recover).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BulkSession, Db } from '../db/db.js';
import { isConnectionError, isDbError } from '../db/db.js';
import { describeCsvError, openRecords, type NumberedRecord } from '../modules/import/csv.js';
import type { EndedRun, ImportRepo, WriteOptions } from '../modules/import/repo.js';
import type { DomainRules } from '../modules/subscribers/domains.js';
import { checkRow, copyLine, HeaderError, lineBreaks, mapHeader, type Columns } from '../modules/import/rows.js';
import type { ImportStatusValue } from '../modules/import/schemas.js';
import { openCsv, SourceError, type ImportSource } from '../modules/import/source.js';
import { Semaphore } from './semaphore.js';

/** Tunables. */
export interface ImporterOptions {
  /** This instance (the `owner` of the imports it runs). */
  owner: string;
  /** Embedded store: one process, so at start every active import was this process's. */
  singleProcess: boolean;
  /** Where uploads wait for their import: `<dir>/<run id>.upload`. */
  uploadDir: string;
  /** Rows per batch transaction. */
  batchRows: number;
  /** COPY bytes per batch, whatever the row count. */
  batchBytes: number;
  /**
   * Connections writing at once (PostgreSQL: MAILROOM_IMPORT_WRITERS, default 2; the embedded store has
   * one connection, so 1). Rows are shared out by e-mail, so writers never touch the same subscriber;
   * their batches take turns only for the memberships and the commit (see writeOnce).
   */
  writers: number;
  /** Heartbeat period (ms). */
  heartbeatMs: number;
  /** An import whose heartbeat is older than this (s) is considered dead. */
  staleSeconds: number;
  /**
   * How long (ms) an import waits for the database to come back after losing it mid-import before it
   * gives up and fails; while it waits, nothing is lost (the batches not yet confirmed are kept in memory).
   */
  outageMs: number;
  /** Operator notifications (`app.notify_emails`) when an import ends: subject, plain-text body; never throws. */
  notify?: (subject: string, body: string) => void;
  /** Test hook: awaited before each batch is written (1-based batch number). */
  beforeFlush?: (batchNo: number) => Promise<void> | void;
}

/**
 * Defaults: 10,000-row batches (listmonk's transaction size) of at most 16 MiB, one writer (deps.ts
 * gives PostgreSQL MAILROOM_IMPORT_WRITERS); a 10-minute outage is waited out.
 */
export const DEFAULT_IMPORTER_OPTIONS = { batchRows: 10_000, batchBytes: 16 * 1024 * 1024, writers: 1, heartbeatMs: 2000, staleSeconds: 30, outageMs: 10 * 60_000 };

/** Longest pause (ms) between two checks of a lost database. */
const OUTAGE_POLL_MAX_MS = 1000;

/** Most bad rows written to the log per import; the rest are only counted. */
const MAX_LOGGED_BAD_ROWS = 1000;

/** One import to run. */
export interface ImportJob {
  runId: string;
  name: string;
  source: ImportSource;
  delimiter: string;
  write: WriteOptions;
  /** The import size limit (bytes of CSV), enforced while inflating a ZIP. */
  maxBytes: number;
  /** E-mail domain rules in force when the import started; a refused address is a bad row. */
  domains?: DomainRules;
  /** What the import does, for the first log line. */
  description: string;
}

type Abort = 'stop' | 'shutdown' | 'lost';

/** The running import's controls. */
interface Control {
  runId: string;
  abort: Abort | null;
  logged: number;
  /** True while heartbeats fail (one log line per outage, not one per beat). */
  beatFailing: boolean;
  /** The commit gate: one batch at a time writes memberships, counters and commits (see writeOnce). */
  gate: Semaphore;
  done: Promise<void>;
}

/** A batch being filled. */
interface Batch {
  rows: Array<{ line: number; text: string }>;
  bytes: number;
  bad: number;
  messages: string[];
  /** The last line of the previous batch: every line after it up to {@link lastLine} belongs to this one. */
  prevLine: number;
  lastLine: number;
}

const newBatch = (prevLine: number): Batch => ({ rows: [], bytes: 0, bad: 0, messages: [], prevLine, lastLine: prevLine });

/** One writer's share of the file: the rows whose e-mail hashes to it (and, for writer 0, the bad rows). */
interface Stream {
  batch: Batch;
  /** Batches handed to the database whose commit was not yet seen, oldest first. */
  unconfirmed: Batch[];
}

/**
 * What an import has read and not yet confirmed written; it outlives the bulk sessions, so a database
 * outage costs no row: the batches in `unconfirmed` are written again (or found written) on new ones.
 */
interface ReadState {
  next: () => Promise<IteratorResult<NumberedRecord>>;
  cols: Columns | null;
  streams: Stream[];
  batchNo: number;
  records: number;
  done: boolean;
}

/**
 * The writer of an e-mail (FNV-1a of the address as written to the database, modulo `writers`). The
 * same address always goes to the same writer, so writers never wait on each other's subscriber rows
 * and a file's later occurrence of an address is written after its earlier one.
 */
export function writerOf(email: string, writers: number): number {
  if (writers <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    h ^= email.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % writers;
}

/** Data errors a single bad row can cause (22xxx data exception, 23xxx integrity, 54xxx limits). */
function isRowError(err: unknown): boolean {
  return isDbError(err) && /^(22|23|54)/u.test(err.code);
}

/** Runs imports in this process, one at a time. */
export class Importer {
  private current: Control | null = null;

  constructor(
    private readonly db: Db,
    private readonly repo: ImportRepo,
    private readonly opts: ImporterOptions,
    private readonly log: Logger,
  ) {}

  /** Writers of a run (at least one). */
  private get writers(): number {
    return Math.max(1, this.opts.writers);
  }

  /** The temporary path of a run's upload. */
  uploadPath(runId: string): string {
    return join(this.opts.uploadDir, `${runId}.upload`);
  }

  /** At start: ends imports left running by this instance (or any, on the embedded store). */
  async recover(): Promise<void> {
    await this.endDeadRuns(this.opts.singleProcess, this.opts.owner);
  }

  /**
   * Ends imports whose instance stopped sending heartbeats (called on reads of the status). The import
   * this process runs is never one of them, even when its heartbeats lapsed during a database outage.
   */
  async reapStale(): Promise<void> {
    await this.endDeadRuns(false, '', this.current?.runId ?? null);
  }

  private async endDeadRuns(all: boolean, owner: string, except: string | null = null): Promise<void> {
    const ended = await this.repo.recover({ all, owner, staleSeconds: this.opts.staleSeconds, except });
    for (const run of ended) {
      const why = run.status === 'finished' ? 'it was being stopped' : 'it was importing';
      const message = `Interrupted at line ${run.line}: the server stopped (restart or crash) while ${why}. ${run.imported} rows imported and ${run.skipped} skipped before that stay; nothing of the unfinished batch was written.${beyond(run)} Import the rest of the file again.`;
      await this.repo.log(run.run_id, [message]);
      this.opts.notify?.(`${run.status === 'finished' ? 'Stopped' : 'Failed'}: ${run.name} import`, message);
      await rm(this.uploadPath(run.run_id), { force: true });
      this.log.warn({ run: run.run_id, line: run.line, status: run.status }, 'import interrupted by a restart');
    }
  }

  /** True while this process runs an import. */
  get busy(): boolean {
    return this.current !== null;
  }

  /** Starts `job` in the background (the run is already claimed in the database). */
  launch(job: ImportJob): void {
    const ctl: Control = { runId: job.runId, abort: null, logged: 0, beatFailing: false, gate: new Semaphore(1), done: Promise.resolve() };
    this.current = ctl;
    ctl.done = this.run(job, ctl).finally(() => {
      if (this.current === ctl) this.current = null;
    });
  }

  /** Shutdown: stops the running import after its batch in flight and marks it failed. */
  async close(): Promise<void> {
    const ctl = this.current;
    if (ctl === null) return;
    ctl.abort ??= 'shutdown';
    await ctl.done;
  }

  private async run(job: ImportJob, ctl: Control): Promise<void> {
    const started = Date.now();
    const timer = setInterval(() => void this.beat(job.runId, ctl), this.opts.heartbeatMs);
    timer.unref();
    try {
      await this.repo.log(job.runId, [job.description]);
      const estimate = await countRows(job);
      await this.repo.setTotal(job.runId, estimate);
      await this.repo.log(job.runId, [`The file has about ${estimate} rows.`]);
      const records = await this.importAll(job, ctl);
      await this.end(job, ctl, records, started);
    } catch (err) {
      await this.fail(job, err).catch((e: unknown) => this.log.error({ err: e }, 'could not record a failed import'));
    } finally {
      clearInterval(timer);
      await rm(job.source.path, { force: true });
    }
  }

  /** Heartbeat; also how a stop requested on another instance is noticed between batches. */
  private async beat(runId: string, ctl: Control): Promise<void> {
    try {
      const status = await this.repo.heartbeat(runId);
      ctl.beatFailing = false;
      if (status === 'stopping') ctl.abort ??= 'stop';
      if (status === null) ctl.abort ??= 'lost';
    } catch (err) {
      if (!ctl.beatFailing) this.log.warn({ err, run: runId }, 'import heartbeat failed');
      ctl.beatFailing = true;
    }
  }

  /**
   * Parses and writes every row; returns the number of data records read. The file is read once; the
   * writing runs on one bulk session per writer, and when the database goes away mid-import (connection
   * lost, server restarting) the import waits for it (up to {@link ImporterOptions.outageMs}), opens new
   * sessions and goes on from each writer's first batch whose commit it did not see: nothing read is
   * lost, and nothing is counted twice (a batch's counters commit with it, so the run's per-writer
   * `stream_lines` say what landed).
   */
  private async importAll(job: ImportJob, ctl: Control): Promise<number> {
    const records = await openRecords(job.source, job.delimiter, job.maxBytes);
    const streams = Array.from({ length: this.writers }, (): Stream => ({ batch: newBatch(0), unconfirmed: [] }));
    const state: ReadState = { next: () => records.next(), cols: null, streams, batchNo: 0, records: 0, done: false };
    try {
      for (;;) {
        try {
          await this.withSessions(streams.length, [], (sessions) => this.importRows(sessions, job, ctl, state));
          return state.records;
        } catch (err) {
          if (!isConnectionError(err) || ctl.abort !== null) throw err;
          await this.waitForDatabase(job, ctl, state, err);
        }
      }
    } finally {
      records.close();
    }
  }

  /** Runs `fn` with `n` bulk sessions (one connection each), all closed when it ends. */
  private withSessions(n: number, open: BulkSession[], fn: (sessions: BulkSession[]) => Promise<void>): Promise<void> {
    if (open.length === n) return fn(open);
    return this.db.bulk((session) => this.withSessions(n, [...open, session], fn));
  }

  /**
   * Waits until the database answers again (polling at most every second), logging the outage; throws
   * `cause` when it lasts longer than {@link ImporterOptions.outageMs} or the server shuts down meanwhile.
   */
  private async waitForDatabase(job: ImportJob, ctl: Control, state: ReadState, cause: unknown): Promise<void> {
    const since = Date.now();
    const line = Math.min(...state.streams.map((s) => s.unconfirmed[0]?.prevLine ?? s.batch.prevLine));
    this.log.warn({ run: job.runId, line, err: cause }, 'import paused: the database is unavailable; waiting for it');
    for (let delay = 100; ; delay = Math.min(delay * 2, OUTAGE_POLL_MAX_MS)) {
      await new Promise((r) => setTimeout(r, delay));
      if (ctl.abort !== null) throw cause;
      try {
        await this.db.ping();
        break;
      } catch {
        if (Date.now() - since > this.opts.outageMs) throw cause;
      }
    }
    await this.beat(job.runId, ctl);
    const secs = ((Date.now() - since) / 1000).toFixed(1);
    this.log.info({ run: job.runId, line, seconds: Number(secs) }, 'import resumed: the database is back');
    await this.repo
      .log(job.runId, [`The database was unavailable for ${secs} s after line ${line}; the import waited and went on from there.`])
      .catch(() => undefined); // the next batch finds out whether it is really back
  }

  /**
   * Writes what `state` holds unconfirmed, then reads and writes the rest of the file, writer w's
   * batches on `sessions[w]`: each writer has one batch in flight while the next ones fill.
   */
  private async importRows(sessions: BulkSession[], job: ImportJob, ctl: Control, state: ReadState): Promise<void> {
    for (const session of sessions) await session.tx((q) => this.repo.createStaging(q));
    if (state.streams.some((s) => s.unconfirmed.length > 0) && !(await this.rewrite(sessions, job, ctl, state))) return;
    const pending: Array<Promise<{ status?: ImportStatusValue | null; error?: unknown }> | null> = sessions.map(() => null);
    const settle = async (w: number): Promise<void> => {
      const outcome = await pending[w];
      pending[w] = null;
      if (outcome === undefined || outcome === null) return;
      if ('error' in outcome) throw outcome.error;
      state.streams[w]!.unconfirmed.shift();
      this.observe(ctl, outcome.status);
    };
    const start = async (w: number, b: Batch): Promise<void> => {
      state.streams[w]!.unconfirmed.push(b);
      await settle(w);
      if (ctl.abort === null) await this.opts.beforeFlush?.(++state.batchNo);
      if (ctl.abort !== null) return;
      pending[w] = this.flush(sessions[w]!, job, ctl, w, b).then((status) => ({ status }), (error: unknown) => ({ error }));
    };
    try {
      while (!state.done) {
        const next = await state.next();
        if (next.done === true) {
          state.done = true;
          break;
        }
        const [fields, endLine] = next.value;
        if (state.cols === null) {
          state.cols = mapHeader(fields);
          for (const s of state.streams) s.batch = newBatch(endLine);
          continue;
        }
        state.records += 1;
        const w = this.add(state, ctl, fields, endLine, state.cols, job.domains);
        const stream = state.streams[w]!;
        if (stream.batch.rows.length + stream.batch.bad >= this.opts.batchRows || stream.batch.bytes >= this.opts.batchBytes) {
          const full = stream.batch;
          stream.batch = newBatch(full.lastLine);
          await start(w, full);
          if (ctl.abort !== null) return;
        }
      }
      // Every writer's mark must reach the last line, so with several writers an empty last batch is
      // written too (it only moves the mark).
      const several = state.streams.length > 1;
      for (const [w, stream] of state.streams.entries()) {
        const last = stream.batch;
        if (ctl.abort === null && (last.rows.length > 0 || last.bad > 0 || (several && last.lastLine > last.prevLine))) {
          stream.batch = newBatch(last.lastLine);
          await start(w, last);
        }
      }
      for (let w = 0; w < sessions.length; w++) await settle(w);
    } finally {
      await Promise.all(pending); // never leave a batch transaction running behind an error
    }
  }

  /**
   * After an outage: writes each writer's batches whose commit was not seen, skipping what the writer's
   * mark (`stream_lines`) shows already committed (the connection can drop after COMMIT reached the
   * server). False when the run was ended meanwhile (stopped or reaped elsewhere).
   */
  private async rewrite(sessions: BulkSession[], job: ImportJob, ctl: Control, state: ReadState): Promise<boolean> {
    for (const [w, stream] of state.streams.entries()) {
      while (stream.unconfirmed.length > 0) {
        const run = await this.repo.get();
        if (run.run_id !== job.runId || (run.status !== 'importing' && run.status !== 'stopping')) {
          ctl.abort ??= 'lost';
          return false;
        }
        const mark = run.stream_lines[w] ?? 0;
        const b = stream.unconfirmed[0]!;
        if (mark < b.lastLine) {
          const landed = mark > b.prevLine; // part of a split batch committed, with the bad rows and messages
          const rest = { ...b, rows: b.rows.filter((r) => r.line > mark), bad: landed ? 0 : b.bad, messages: landed ? [] : b.messages };
          this.observe(ctl, await this.flush(sessions[w]!, job, ctl, w, rest));
        }
        stream.unconfirmed.shift();
        if (ctl.abort !== null) return false;
      }
    }
    return true;
  }

  /** Applies the run status a batch commit answered: a stop requested anywhere, or the run gone. */
  private observe(ctl: Control, status: ImportStatusValue | null | undefined): void {
    if (status === 'stopping') ctl.abort ??= 'stop';
    if (status === null) ctl.abort ??= 'lost';
  }

  /**
   * Checks a record and adds it to its writer's batch as a row to write, or to writer 0's as a bad row
   * (so the log's skipped lines stay in file order); returns that writer. Every writer's batch now
   * covers the record's lines.
   */
  private add(state: ReadState, ctl: Control, fields: string[], endLine: number, cols: Columns, domains: DomainRules | undefined): number {
    const line = endLine - lineBreaks(fields);
    for (const s of state.streams) s.batch.lastLine = endLine;
    const row = checkRow(fields, cols, domains);
    if (row.ok) {
      const w = writerOf(row.email, state.streams.length);
      const batch = state.streams[w]!.batch;
      const text = copyLine(line, row);
      batch.rows.push({ line, text });
      batch.bytes += text.length;
      return w;
    }
    const batch = state.streams[0]!.batch;
    batch.bad += 1;
    ctl.logged += 1;
    if (ctl.logged <= MAX_LOGGED_BAD_ROWS) batch.messages.push(`Skipped line ${line}: ${row.reason}`);
    if (ctl.logged === MAX_LOGGED_BAD_ROWS) batch.messages.push(`Further bad rows are skipped without a log line; "skipped" counts them.`);
    return 0;
  }

  /**
   * Writes writer `w`'s batch in one transaction with its log lines and counters; the run's status
   * afterwards. When the database refuses a row the checks missed, the batch is split until that row is
   * isolated and skipped with the database's reason; the others are written.
   */
  private async flush(session: BulkSession, job: ImportJob, ctl: Control, w: number, b: Pick<Batch, 'rows' | 'bad' | 'messages' | 'lastLine'>): Promise<ImportStatusValue | null> {
    try {
      return await this.writeOnce(session, job, ctl, w, b);
    } catch (err) {
      if (!isRowError(err) || b.rows.length === 0) throw err;
      if (b.rows.length === 1) {
        const only = b.rows[0]!;
        const reason = `refused by the database (${(err as Error).message.slice(0, 200)})`;
        return this.flush(session, job, ctl, w, { rows: [], bad: b.bad + 1, messages: [...b.messages, `Skipped line ${only.line}: ${reason}`], lastLine: b.lastLine });
      }
      const mid = Math.floor(b.rows.length / 2);
      const first = await this.flush(session, job, ctl, w, { rows: b.rows.slice(0, mid), bad: b.bad, messages: b.messages, lastLine: b.rows[mid - 1]!.line });
      if (first !== 'importing') return first;
      return this.flush(session, job, ctl, w, { rows: b.rows.slice(mid), bad: 0, messages: [], lastLine: b.lastLine });
    }
  }

  /**
   * One batch transaction. The subscriber upsert runs at once (writers have disjoint e-mails, so it
   * never waits on another writer); the memberships, log lines, counters and the commit run behind the
   * run's commit gate, one batch at a time. Those update rows every batch shares (the per-list counts,
   * the `imports` row), in an order that differs between statements (blocklist mode's unsubscribe and
   * subscribe lock different count rows), so two writers doing them at once could deadlock; behind
   * the gate no transaction ever waits for another writer's. The gate is released only once the
   * transaction has ended (committed or rolled back).
   */
  private async writeOnce(session: BulkSession, job: ImportJob, ctl: Control, w: number, b: Pick<Batch, 'rows' | 'bad' | 'messages' | 'lastLine'>): Promise<ImportStatusValue | null> {
    const held = { gate: false };
    try {
      return await session.tx(async (q) => {
        if (b.rows.length > 0) await this.repo.upsertBatch(q, b.rows.map((r) => r.text).join(''), job.write);
        await ctl.gate.acquire();
        held.gate = true;
        if (b.rows.length > 0) await this.repo.applyMemberships(q, job.write);
        await this.repo.log(job.runId, b.messages, q);
        return this.repo.progress(q, { runId: job.runId, imported: b.rows.length, skipped: b.bad, line: b.lastLine, stream: w, streams: this.writers });
      });
    } finally {
      if (held.gate) ctl.gate.release();
    }
  }

  /** Records how the run ended when no error occurred: finished, stopped, or interrupted by shutdown. */
  private async end(job: ImportJob, ctl: Control, records: number, started: number): Promise<void> {
    if (ctl.abort === 'lost') {
      this.log.warn({ run: job.runId }, 'the import was ended elsewhere; stopped');
      return;
    }
    const status = ctl.abort === 'shutdown' ? 'failed' : 'finished';
    const run = await this.repo.end(job.runId, status, ctl.abort === null ? records : null);
    if (run === null) return;
    const counts = `${run.imported} rows imported, ${run.skipped} skipped`;
    const secs = (Date.now() - started) / 1000;
    const message =
      ctl.abort === 'stop'
        ? `Stopped on request after line ${run.line}: ${counts}.${beyond(run)} The rest of the file was not imported.`
        : ctl.abort === 'shutdown'
          ? `Interrupted after line ${run.line}: the server shut down. ${counts}; they stay.${beyond(run)} Import the rest of the file again.`
          : `Finished in ${secs.toFixed(1)} s: ${counts} (${Math.round(records / Math.max(secs, 0.001))} rows/s).`;
    await this.repo.log(job.runId, [message]);
    const outcome = ctl.abort === 'stop' ? 'Stopped' : ctl.abort === 'shutdown' ? 'Failed' : 'Finished';
    this.opts.notify?.(`${outcome}: ${run.name} import`, message);
  }

  /** Marks the run failed with a message for the log. */
  private async fail(job: ImportJob, err: unknown): Promise<void> {
    let reason: string;
    if (err instanceof SourceError || err instanceof HeaderError) reason = err.message;
    else if (describeCsvError(err) !== null) reason = describeCsvError(err)!;
    else if (isConnectionError(err)) reason = 'the database became unavailable';
    else {
      this.log.error({ err, run: job.runId }, 'import failed');
      reason = 'an internal error occurred (see the server log)';
    }
    const run = await this.repo.end(job.runId, 'failed', null);
    if (run === null) return;
    const message = `Failed after line ${run.line}: ${reason}. ${run.imported} rows imported and ${run.skipped} skipped before that stay.${beyond(run)}`;
    await this.repo.log(job.runId, [message]);
    this.opts.notify?.(`Failed: ${run.name} import`, message);
  }
}

/**
 * For a run that ended early with several writers: the sentence saying that rows after its `line` were
 * imported too (a writer whose mark is further on committed them); empty when no writer got further.
 */
function beyond(run: EndedRun): string {
  const furthest = Math.max(run.line, ...(run.stream_lines ?? []));
  if (furthest <= run.line) return '';
  return ` Some rows after line ${run.line}, up to line ${furthest}, were imported too (the import writes on ${run.stream_lines.length} connections, each with its own progress); importing them again skips them, or updates them with overwrite.`;
}

/** Counts the file's lines (LF, or CR when there is no LF) and returns the data rows it suggests. */
async function countRows(job: ImportJob): Promise<number> {
  const stream = await openCsv(job.source, job.maxBytes);
  let lf = 0;
  let cr = 0;
  let last = -1;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lf += 1;
    if (lf === 0) for (let i = chunk.indexOf(13); i !== -1; i = chunk.indexOf(13, i + 1)) cr += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  const breaks = lf > 0 ? lf : cr;
  const lines = breaks + (last !== -1 && last !== 10 && last !== 13 ? 1 : 0);
  return Math.max(0, lines - 1);
}
