/**
 * Maintenance use cases (listmonk's Settings → Maintenance; cmd/maintenance.go): delete orphan or
 * blocklisted subscribers, unconfirmed opt-in subscriptions and old views/clicks, and export views or
 * clicks as CSV.
 *
 * Deletes run in batches of `batchSize()` rows (app.batch_size), each its own statement and commit,
 * so no statement holds locks on a million rows and other requests (the one PGlite connection too) get
 * in between batches. A delete interrupted half-way (a lost connection) keeps the batches already
 * committed; running it again finishes the job. Totals stay exact: the statement-level triggers of
 * subscribers and subscriber_lists maintain subscriber_totals and list_subscriber_counts per batch.
 */
import { Readable } from 'node:stream';
import type { Db } from '../../db/db.js';
import { loadQueries, type NamedQuery } from '../../db/queries.js';
import { csvField } from '../subscribers/csv-export.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'subscribers-delete-orphan-batch',
  'subscribers-delete-blocklisted-batch',
  'subscriptions-delete-unconfirmed-batch',
  'views-delete-batch',
  'clicks-delete-batch',
  'views-export-batch',
  'clicks-export-batch',
]);

/** Which subscribers DELETE /api/maintenance/subscribers/:type removes. */
export type SubscriberGcType = 'orphan' | 'blocklisted';
/** Which analytics DELETE /api/maintenance/analytics/:type removes. */
export type AnalyticsGcType = 'all' | 'views' | 'clicks';
/** Which analytics the export streams. */
export type AnalyticsExportType = 'views' | 'clicks';

/** Header lines of the exports: listmonk's columns, in listmonk's order. */
export const EXPORT_HEADERS: Record<AnalyticsExportType, string> = {
  views: 'campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,created_at\r\n',
  clicks: 'campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,url,created_at\r\n',
};

/** One exported row as the export queries return it. */
interface ExportRow {
  id: number;
  campaign_id: number;
  campaign_uuid: string;
  campaign_name: string;
  subscriber_id: number;
  subscriber_uuid: string;
  email: string;
  subscriber_name: string;
  url?: string;
  created_at: Date;
}

/** The far end of an open export range: PostgreSQL's `infinity` for timestamptz. */
const NO_END = 'infinity';

/** Maintenance operations on the database. */
export class MaintenanceService {
  constructor(
    private readonly db: Db,
    /** Rows per delete statement and per export read (app.batch_size). */
    private readonly batchSize: () => number,
  ) {}

  /** Deletes orphan (no subscription) or blocklisted subscribers; returns how many were deleted. */
  async deleteSubscribers(type: SubscriberGcType): Promise<number> {
    const query = type === 'orphan' ? Q['subscribers-delete-orphan-batch'] : Q['subscribers-delete-blocklisted-batch'];
    return this.deleteById(query, {});
  }

  /** Deletes unconfirmed subscriptions to double opt-in lists created before `before`; returns how many. */
  async deleteUnconfirmedSubscriptions(before: Date): Promise<number> {
    let total = 0;
    let after = { subscriber: 0, list: 0 };
    for (;;) {
      const [r] = await this.db.run<{ count: number; last_subscriber: number | null; last_list: number | null }>(Q['subscriptions-delete-unconfirmed-batch'], {
        after_subscriber: after.subscriber, after_list: after.list, before, size: this.size(),
      });
      if (r === undefined || r.last_subscriber === null || r.last_list === null) return total;
      total += r.count;
      after = { subscriber: r.last_subscriber, list: r.last_list };
    }
  }

  /** Deletes views, clicks or both recorded before `before`; returns how many rows were deleted. */
  async deleteAnalytics(type: AnalyticsGcType, before: Date): Promise<number> {
    let total = 0;
    if (type !== 'clicks') total += await this.deleteById(Q['views-delete-batch'], { before });
    if (type !== 'views') total += await this.deleteById(Q['clicks-delete-batch'], { before });
    return total;
  }

  /**
   * The views or clicks recorded in [since, until) as CSV (listmonk's columns; times in RFC 3339 UTC),
   * oldest first, read in batches by id while the answer streams. The first batch is read before the
   * stream is returned, so a database failure is still an error answer rather than a cut-off file.
   */
  async exportAnalytics(type: AnalyticsExportType, since: Date, until: Date | null): Promise<Readable> {
    const query = type === 'views' ? Q['views-export-batch'] : Q['clicks-export-batch'];
    const read = (after: number) => this.db.run<ExportRow>(query, { after, since, until: until ?? NO_END, size: this.size() });
    const first = await read(0);
    return Readable.from(exportLines(type, first, read, this.size()), { objectMode: false });
  }

  private size(): number {
    return Math.max(1, this.batchSize());
  }

  /** Runs a keyset batch delete until a batch finds nothing; returns the rows deleted. */
  private async deleteById(query: NamedQuery, params: object): Promise<number> {
    let total = 0;
    let after = 0;
    for (;;) {
      const [r] = await this.db.run<{ count: number; last: number | null }>(query, { ...params, after, size: this.size() });
      if (r === undefined || r.last === null) return total;
      total += r.count;
      after = r.last;
    }
  }
}

/** One CSV line of the export (fields quoted and guarded against spreadsheet formulas as in every export). */
export function exportLine(type: AnalyticsExportType, r: ExportRow): string {
  const fields = [String(r.campaign_id), r.campaign_uuid, csvField(r.campaign_name), String(r.subscriber_id), r.subscriber_uuid, csvField(r.email), csvField(r.subscriber_name)];
  if (type === 'clicks') fields.push(csvField(r.url ?? ''));
  fields.push(new Date(r.created_at).toISOString());
  return `${fields.join(',')}\r\n`;
}

async function* exportLines(type: AnalyticsExportType, first: ExportRow[], read: (after: number) => Promise<ExportRow[]>, size: number): AsyncGenerator<string> {
  yield EXPORT_HEADERS[type];
  let batch = first;
  while (batch.length > 0) {
    yield batch.map((r) => exportLine(type, r)).join('');
    if (batch.length < size) return;
    batch = await read(batch[batch.length - 1]!.id);
  }
}
