/**
 * GET /api/subscribers/export (reference §4.10): the subscribers matching a filter as CSV, streamed in
 * batches (`app.batch_size`) ordered by id, each batch read through the segmentation guard. Columns as
 * listmonk: `uuid,email,name,attributes,status,created_at,updated_at`. The first batch is read before
 * the answer starts, so a refused `query` is still a 400.
 */
import { Readable } from 'node:stream';
import type { Principal } from '../../http/access.js';
import { subscriberScope } from '../../http/list-scope.js';
import type { SubscriberFilter, SubscriberFinder } from './filter.js';
import type { SubscriberRow } from './repo.js';
import type { SubscriberExportQuery } from './schemas.js';

/** The header line of the export. */
export const CSV_HEADER = 'uuid,email,name,attributes,status,created_at,updated_at\r\n';

/**
 * One CSV field (RFC 4180 quoting). A value starting with `=`, `+`, `-`, `@`, tab or carriage return
 * gets a leading `'`, so a spreadsheet never runs a subscriber-supplied formula (CSV injection; names
 * come from public forms).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/u.test(value) ? `'${value}` : value;
  return /[",\r\n]/u.test(safe) ? `"${safe.replace(/"/gu, '""')}"` : safe;
}

/** One CSV line for a subscriber. */
export function csvRow(s: SubscriberRow): string {
  const iso = (d: unknown): string => (d instanceof Date ? d.toISOString() : String(d));
  return [s.uuid, csvField(s.email), csvField(s.name), csvField(JSON.stringify(s.attribs)), s.status, iso(s.created_at), iso(s.updated_at)].join(',') + '\r\n';
}

/** Streams subscriber exports. */
export class SubscriberCsvExporter {
  constructor(
    private readonly finder: SubscriberFinder,
    private readonly batchSize: () => number,
  ) {}

  /**
   * Validates the filter, reads the first batch, and returns the CSV stream. Throws on a refused filter.
   * Only subscribers `principal` may see are exported (issue 16).
   */
  async open(q: SubscriberExportQuery, principal?: Principal): Promise<Readable> {
    const filter = await this.finder.prepare({
      query: q.query, search: q.search, listIds: q.list_id, subscriptionStatus: q.subscription_status, ids: q.id, scope: subscriberScope(principal),
    });
    const size = Math.max(1, this.batchSize());
    const first = await this.finder.batch(filter, 0, size);
    return Readable.from(this.lines(filter, first, size), { objectMode: false });
  }

  private async *lines(filter: SubscriberFilter, first: SubscriberRow[], size: number): AsyncGenerator<string> {
    yield CSV_HEADER;
    let batch = first;
    while (batch.length > 0) {
      yield batch.map(csvRow).join('');
      if (batch.length < size) return;
      batch = await this.finder.batch(filter, batch[batch.length - 1]!.id, size);
    }
  }
}
