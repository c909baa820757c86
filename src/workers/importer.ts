/**
 * The subscriber importer (spec 4.6): streams an uploaded CSV (or the CSV in a ZIP) through csv-parse
 * into batches, and writes each batch in one transaction: COPY into a staging table, one upsert,
 * the membership statements, the bad rows' log lines and the counters together. So the counters always
 * match the database, and a crash loses at most the batch in flight, never half of one.
 *
 * Memory stays flat: one batch is parsed while the previous one is written (at most two batches of
 * {@link ImporterOptions.batchRows} rows / batchBytes bytes), and the file is never read whole.
 * Stopping (DELETE, from any instance) is seen in the status each batch commit answers (or by the
 * heartbeat), so at most one more batch is written; a restart marks an import that was running as
 * failed with the line it reached (see ImportRepo.recover).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BulkSession, Db } from '../db/db.js';
import { isConnectionError, isDbError } from '../db/db.js';
import { csvParser, describeCsvError, type NumberedRecord } from '../modules/import/csv.js';
import type { ImportRepo, WriteOptions } from '../modules/import/repo.js';
import { checkRow, copyLine, HeaderError, lineBreaks, mapHeader, type Columns } from '../modules/import/rows.js';
import type { ImportStatusValue } from '../modules/import/schemas.js';
import { openCsv, SourceError, type ImportSource } from '../modules/import/source.js';

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
  /** Heartbeat period (ms). */
  heartbeatMs: number;
  /** An import whose heartbeat is older than this (s) is considered dead. */
  staleSeconds: number;
  /** Test hook: awaited before each batch is written (1-based batch number). */
  beforeFlush?: (batchNo: number) => Promise<void> | void;
}

/** Defaults: 10,000-row batches (listmonk's transaction size) of at most 16 MiB. */
export const DEFAULT_IMPORTER_OPTIONS = { batchRows: 10_000, batchBytes: 16 * 1024 * 1024, heartbeatMs: 2000, staleSeconds: 30 };

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
  /** What the import does, for the first log line. */
  description: string;
}

type Abort = 'stop' | 'shutdown' | 'lost';

/** The running import's controls. */
interface Control {
  abort: Abort | null;
  logged: number;
  done: Promise<void>;
}

/** A batch being filled. */
interface Batch {
  rows: Array<{ line: number; text: string }>;
  bytes: number;
  bad: number;
  messages: string[];
  lastLine: number;
}

const newBatch = (): Batch => ({ rows: [], bytes: 0, bad: 0, messages: [], lastLine: 0 });

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

  /** The temporary path of a run's upload. */
  uploadPath(runId: string): string {
    return join(this.opts.uploadDir, `${runId}.upload`);
  }

  /** At start: ends imports left running by this instance (or any, on the embedded store). */
  async recover(): Promise<void> {
    await this.endDeadRuns(this.opts.singleProcess, this.opts.owner);
  }

  /** Ends imports whose instance stopped sending heartbeats (called on reads of the status). */
  async reapStale(): Promise<void> {
    await this.endDeadRuns(false, '');
  }

  private async endDeadRuns(all: boolean, owner: string): Promise<void> {
    const ended = await this.repo.recover({ all, owner, staleSeconds: this.opts.staleSeconds });
    for (const run of ended) {
      const why = run.status === 'finished' ? 'it was being stopped' : 'it was importing';
      await this.repo.log(run.run_id, [
        `Interrupted at line ${run.line}: the server stopped (restart or crash) while ${why}. ${run.imported} rows imported and ${run.skipped} skipped before that stay; nothing of the unfinished batch was written. Import the rest of the file again.`,
      ]);
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
    const ctl: Control = { abort: null, logged: 0, done: Promise.resolve() };
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
      const records = await this.db.bulk((session) => this.importRows(session, job, ctl));
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
      if (status === 'stopping') ctl.abort ??= 'stop';
      if (status === null) ctl.abort ??= 'lost';
    } catch (err) {
      this.log.warn({ err }, 'import heartbeat failed');
    }
  }

  /** Parses and writes every row; returns the number of data records read. */
  private async importRows(session: BulkSession, job: ImportJob, ctl: Control): Promise<number> {
    await session.tx((q) => this.repo.createStaging(q));
    const source = await openCsv(job.source, job.maxBytes);
    const parser = csvParser(job.delimiter);
    source.on('error', (err) => parser.destroy(err));
    source.pipe(parser);
    let cols: Columns | null = null;
    let batch = newBatch();
    let batchNo = 0;
    let records = 0;
    let pending: Promise<{ status?: ImportStatusValue | null; error?: unknown }> | null = null;
    const settle = async (): Promise<void> => {
      const outcome = await pending;
      pending = null;
      if (outcome === undefined || outcome === null) return;
      if ('error' in outcome) throw outcome.error;
      if (outcome.status === 'stopping') ctl.abort ??= 'stop';
      if (outcome.status === null) ctl.abort ??= 'lost';
    };
    const start = async (b: Batch): Promise<void> => {
      await settle();
      if (ctl.abort === null) await this.opts.beforeFlush?.(++batchNo);
      if (ctl.abort !== null) return;
      pending = this.flush(session, job, b).then((status) => ({ status }), (error: unknown) => ({ error }));
    };
    try {
      for await (const [fields, endLine] of parser as AsyncIterable<NumberedRecord>) {
        if (cols === null) {
          cols = mapHeader(fields);
          continue;
        }
        records += 1;
        this.add(batch, ctl, fields, endLine, cols);
        if (batch.rows.length + batch.bad >= this.opts.batchRows || batch.bytes >= this.opts.batchBytes) {
          await start(batch);
          batch = newBatch();
          if (ctl.abort !== null) break;
        }
      }
      if (ctl.abort === null && (batch.rows.length > 0 || batch.bad > 0)) await start(batch);
      await settle();
    } finally {
      await pending; // never leave a batch transaction running behind an error
      source.destroy();
      parser.destroy();
    }
    return records;
  }

  /** Checks a record and adds it to the batch as a row to write or a bad row. */
  private add(batch: Batch, ctl: Control, fields: string[], endLine: number, cols: Columns): void {
    const line = endLine - lineBreaks(fields);
    batch.lastLine = endLine;
    const row = checkRow(fields, cols);
    if (row.ok) {
      const text = copyLine(line, row);
      batch.rows.push({ line, text });
      batch.bytes += text.length;
      return;
    }
    batch.bad += 1;
    ctl.logged += 1;
    if (ctl.logged <= MAX_LOGGED_BAD_ROWS) batch.messages.push(`Skipped line ${line}: ${row.reason}`);
    if (ctl.logged === MAX_LOGGED_BAD_ROWS) batch.messages.push(`Further bad rows are skipped without a log line; "skipped" counts them.`);
  }

  /**
   * Writes a batch in one transaction with its log lines and counters; the run's status afterwards.
   * When the database refuses a row the checks missed, the batch is split until that row is isolated
   * and skipped with the database's reason; the others are written.
   */
  private async flush(session: BulkSession, job: ImportJob, b: Omit<Batch, 'bytes'>): Promise<ImportStatusValue | null> {
    try {
      return await session.tx(async (q) => {
        if (b.rows.length > 0) await this.repo.writeBatch(q, b.rows.map((r) => r.text).join(''), job.write);
        await this.repo.log(job.runId, b.messages, q);
        return this.repo.progress(q, { runId: job.runId, imported: b.rows.length, skipped: b.bad, line: b.lastLine });
      });
    } catch (err) {
      if (!isRowError(err) || b.rows.length === 0) throw err;
      if (b.rows.length === 1) {
        const only = b.rows[0]!;
        const reason = `refused by the database (${(err as Error).message.slice(0, 200)})`;
        return this.flush(session, job, { rows: [], bad: b.bad + 1, messages: [...b.messages, `Skipped line ${only.line}: ${reason}`], lastLine: b.lastLine });
      }
      const mid = Math.floor(b.rows.length / 2);
      const first = await this.flush(session, job, { rows: b.rows.slice(0, mid), bad: b.bad, messages: b.messages, lastLine: b.rows[mid - 1]!.line });
      if (first !== 'importing') return first;
      return this.flush(session, job, { rows: b.rows.slice(mid), bad: 0, messages: [], lastLine: b.lastLine });
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
        ? `Stopped on request after line ${run.line}: ${counts}. The rest of the file was not imported.`
        : ctl.abort === 'shutdown'
          ? `Interrupted after line ${run.line}: the server shut down. ${counts}; they stay. Import the rest of the file again.`
          : `Finished in ${secs.toFixed(1)} s: ${counts} (${Math.round(records / Math.max(secs, 0.001))} rows/s).`;
    await this.repo.log(job.runId, [message]);
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
    await this.repo.log(job.runId, [`Failed after line ${run.line}: ${reason}. ${run.imported} rows imported and ${run.skipped} skipped before that stay.`]);
  }
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
