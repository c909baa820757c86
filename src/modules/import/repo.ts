/**
 * SQL access for the subscriber import: the state row, the log, and the batch writes (staging table
 * loaded with COPY, then one upsert and the membership statements, in the batch's transaction).
 */
import type { BulkQueryable, Db, Queryable } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { ImportStatusValue } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'import-get',
  'import-claim',
  'import-logs-prune',
  'import-request-stop',
  'import-clear',
  'import-heartbeat',
  'import-set-total',
  'import-progress',
  'import-end',
  'import-recover',
  'import-log',
  'import-log-read',
  'import-lists-existing',
  'import-staging-create',
  'import-targets-create',
  'import-upsert',
  'import-unsubscribe-blocklisted',
  'import-subscribe',
]);

/** The state row. */
export interface ImportRow {
  run_id: string | null;
  name: string;
  total: number;
  imported: number;
  skipped: number;
  /** Last line of the file covered by a committed batch of each writer (index: writer). */
  stream_lines: number[];
  /** Last line of the file up to which every row is committed (the least of stream_lines). */
  line: number;
  status: ImportStatusValue;
}

/** A run ended by {@link ImportRepo.end} or {@link ImportRepo.recover}. */
export interface EndedRun {
  run_id: string;
  /** The uploaded file's name. */
  name: string;
  status?: ImportStatusValue;
  /** Every row up to this line is committed. */
  line: number;
  /** Each writer's own mark (rows of that writer up to it are committed); see ImportRow. */
  stream_lines: number[];
  imported: number;
  skipped: number;
}

/** How a batch is written (from the import's params). */
export interface WriteOptions {
  /** `enabled` (subscribe mode) or `blocklisted` (blocklist mode) for new subscribers. */
  newStatus: 'enabled' | 'blocklisted';
  blocklist: boolean;
  /** Update name and attributes (and blocklist, in blocklist mode) of existing subscribers. */
  overwrite: boolean;
  /** Add untouched existing subscribers to the lists too (subscribe mode). */
  keepExisting: boolean;
  listIds: number[];
  subscriptionStatus: string;
  /** Change the status of existing memberships. */
  overwriteStatus: boolean;
}

/** The COPY target of a batch, in the column order of {@link ImportRepo.upsertBatch}'s data. */
const STAGING = 'import_staging (line, email, name, attribs)';

/** Import state and batch writes. */
export class ImportRepo {
  constructor(private readonly db: Db) {}

  /** The state row. */
  async get(): Promise<ImportRow> {
    const [row] = await this.db.run<ImportRow>(Q['import-get']);
    return row!;
  }

  /** Starts run `runId` unless an import is active; true when it did. Drops older logs. */
  async claim(run: { runId: string; name: string; params: object; owner: string }): Promise<boolean> {
    return this.db.tx(async (q) => {
      const rows = await q.run(Q['import-claim'], { run_id: run.runId, name: run.name, params: JSON.stringify(run.params), owner: run.owner });
      if (rows.length === 0) return false;
      await q.run(Q['import-logs-prune'], { run_id: run.runId });
      return true;
    });
  }

  /** Asks an importing run to stop; false when none is importing. */
  async requestStop(): Promise<boolean> {
    return (await this.db.run(Q['import-request-stop'])).length > 0;
  }

  /** Resets a finished, failed or empty import to `none` (an active one is left alone). */
  async clear(): Promise<void> {
    await this.db.run(Q['import-clear']);
  }

  /** Records that run `runId` is alive; its status, or null when it is no longer active. */
  async heartbeat(runId: string): Promise<ImportStatusValue | null> {
    const [row] = await this.db.run<{ status: ImportStatusValue }>(Q['import-heartbeat'], { run_id: runId });
    return row?.status ?? null;
  }

  /** Sets the (estimated) total of an active run. */
  async setTotal(runId: string, total: number): Promise<void> {
    await this.db.run(Q['import-set-total'], { run_id: runId, total });
  }

  /** Ends an active run as `finished` or `failed`; null when it was no longer active. */
  async end(runId: string, status: 'finished' | 'failed', total: number | null): Promise<EndedRun | null> {
    const [row] = await this.db.run<EndedRun>(Q['import-end'], { run_id: runId, status, total });
    return row ?? null;
  }

  /** Ends runs whose worker is gone (see the query), never run `except` (this process's own); returns them. */
  recover(opts: { all: boolean; owner: string; staleSeconds: number; except?: string | null }): Promise<EndedRun[]> {
    return this.db.run<EndedRun>(Q['import-recover'], { all: opts.all, owner: opts.owner, stale_seconds: opts.staleSeconds, except: opts.except ?? null });
  }

  /** Appends lines to the log of run `runId`. */
  async log(runId: string, messages: string[], q: Queryable = this.db): Promise<void> {
    if (messages.length > 0) await q.run(Q['import-log'], { run_id: runId, messages });
  }

  /** The current run's log, oldest first. */
  readLog(): Promise<Array<{ created_at: Date; message: string }>> {
    return this.db.run(Q['import-log-read']);
  }

  /** The ids among `ids` that are lists. */
  async existingLists(ids: number[]): Promise<number[]> {
    return (await this.db.run<{ id: number }>(Q['import-lists-existing'], { ids })).map((r) => r.id);
  }

  /** Creates the session's staging tables (once per bulk session). */
  async createStaging(q: BulkQueryable): Promise<void> {
    await q.run(Q['import-staging-create']);
    await q.run(Q['import-targets-create']);
  }

  /**
   * First half of a batch: loads `copyData` (COPY text rows: line, email, name, attribs) into the
   * session's staging table and writes it as subscribers (collecting the batch's targets). Touches only
   * the batch's own subscribers, so writers with disjoint e-mails run it at the same time.
   */
  async upsertBatch(q: BulkQueryable, copyData: string, o: WriteOptions): Promise<void> {
    await q.copyFrom(STAGING, copyData);
    await q.run(Q['import-upsert'], { overwrite: o.overwrite, new_status: o.newStatus, blocklist: o.blocklist, keep_existing: o.keepExisting });
  }

  /**
   * Second half of a batch, after {@link upsertBatch} in the same transaction: the memberships of its
   * targets. Updates the shared per-list counters (list_subscriber_counts), so the importer runs it
   * behind its commit gate, one batch at a time.
   */
  async applyMemberships(q: BulkQueryable, o: WriteOptions): Promise<void> {
    if (o.blocklist) await q.run(Q['import-unsubscribe-blocklisted']);
    if (o.listIds.length > 0) {
      await q.run(Q['import-subscribe'], { list_ids: o.listIds, status: o.subscriptionStatus, overwrite_status: o.overwriteStatus });
    }
  }

  /**
   * Counts a committed batch of writer `stream` (0-based, of `streams`) in its transaction and moves
   * that writer's high-water mark to `line`; the run's status, or null when it is no longer active.
   */
  async progress(
    q: Queryable,
    p: { runId: string; imported: number; skipped: number; line: number; stream: number; streams: number },
  ): Promise<ImportStatusValue | null> {
    const [row] = await q.run<{ status: ImportStatusValue }>(Q['import-progress'], {
      run_id: p.runId, imported: p.imported, skipped: p.skipped, line: p.line, stream: p.stream + 1, streams: p.streams,
    });
    return row?.status ?? null;
  }
}
