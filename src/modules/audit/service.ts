/**
 * The audit log (issue 16 "Identity" item 5; listmonk has none): records who changed what and when,
 * answers searches, and deletes entries older than `audit.retention_days`.
 *
 * Writing is one INSERT per audited request, started after the answer was sent and never awaited by
 * it: an audit write neither delays nor fails the request it records. The price is that an entry can
 * be lost when the database refuses the INSERT (then the whole entry is logged at error level, so the
 * server log keeps it) or when the process dies between sending the answer and the INSERT (a window of
 * one round trip; a graceful stop waits for writes in flight, see {@link AuditService.drain}). Writing
 * inside each change's own transaction would close that window, at the cost of threading the audit
 * into every service and failing changes whenever the log cannot be written; docs/audit.md says why
 * we chose the other way.
 */
import type { Logger } from 'pino';
import { FieldError } from '../../errors.js';
import { pageRequest, pageResult } from '../../http/pagination.js';
import type { AuditFilter, AuditRepo, NewAuditEntry } from './repo.js';
import type { AuditEntry, AuditQuery } from './schemas.js';

/** Options of {@link AuditService}. */
export interface AuditOptions {
  /** `audit.retention_days` as it stands now: days an entry is kept; 0 keeps every entry. */
  retentionDays: () => number;
  logger: Logger;
  /** Entries deleted per statement while trimming (default 5000): bounds each statement's locks and time. */
  trimBatch?: number;
}

/** How often the periodic trim runs (hourly), and how long after start the first one waits. */
export const TRIM_INTERVAL_MS = 3_600_000;
const FIRST_TRIM_DELAY_MS = 60_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/u;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?([Zz]|[+-]\d{2}:?\d{2})?$/u;

/** True when y-m-d names a real calendar day. */
function realDay(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/**
 * Parses a `from`/`to` filter (ISO 8601): a date `2026-11-28` (a whole UTC day: `from` its start, `to`
 * its end) or a date-time `2026-11-28T10:30:00Z` (without an offset: UTC). Returns a timestamp string
 * PostgreSQL reads exactly (microseconds kept). Throws FieldError naming `field` otherwise.
 */
export function parseBound(field: 'from' | 'to', value: string): string {
  const problem = 'must be an ISO 8601 date (2026-11-28) or date-time (2026-11-28T10:30:00Z)';
  const date = DATE.exec(value);
  if (date !== null) {
    if (!realDay(Number(date[1]), Number(date[2]), Number(date[3]))) throw new FieldError(field, problem);
    return field === 'from' ? `${value}T00:00:00Z` : `${value}T23:59:59.999999Z`;
  }
  const m = DATE_TIME.exec(value);
  if (m === null || !realDay(Number(m[1]), Number(m[2]), Number(m[3])) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59) {
    throw new FieldError(field, problem);
  }
  const offset = m[8] === undefined || m[8].toUpperCase() === 'Z' ? 'Z' : m[8].length === 5 ? `${m[8].slice(0, 3)}:${m[8].slice(3)}` : m[8];
  if (Number(offset.slice(1, 3)) > 23) throw new FieldError(field, problem);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${offset}`;
}

/** The repository filter of a validated query: `from`/`to` parsed, `to` not before `from`. Throws FieldError. */
export function auditFilter(q: AuditQuery): AuditFilter {
  const from = q.from === undefined ? null : parseBound('from', q.from);
  const to = q.to === undefined ? null : parseBound('to', q.to);
  if (from !== null && to !== null && Date.parse(to) < Date.parse(from)) throw new FieldError('to', 'must not be before from');
  return {
    userId: q.user_id ?? null,
    username: q.username ?? null,
    resourceType: q.resource_type ?? null,
    resourceId: q.resource_id ?? null,
    action: q.action ?? null,
    from,
    to,
  };
}

/** Audit log rules: record, search, trim. */
export class AuditService {
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private trimming: Promise<unknown> | null = null;

  constructor(
    private readonly repo: AuditRepo,
    private readonly opts: AuditOptions,
  ) {}

  /**
   * Starts writing one entry and returns at once; never throws. A failed write is logged at error
   * level with the whole entry (the server log is then its only record).
   */
  record(entry: NewAuditEntry): void {
    const write: Promise<void> = this.repo
      .insert(entry)
      .catch((err: unknown) => this.opts.logger.error({ err, audit: entry }, 'audit log entry could not be written'))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves when every write started so far has settled (graceful stop; searches read their own writes). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * One page of entries matching `q`, newest first, in listmonk's envelope `{results, total, per_page,
   * page}`. Writes this instance started before are in it. Throws FieldError for a bad `from`/`to`.
   */
  async query(q: AuditQuery): Promise<{ results: AuditEntry[]; total: number; per_page: number; page: number }> {
    const filter = auditFilter(q);
    const page = pageRequest(q);
    await this.drain();
    const { rows, total } = await this.repo.query(filter, page.limit, page.offset);
    return pageResult(rows, total, page);
  }

  /**
   * Deletes every entry older than `audit.retention_days` (0: none), a batch per statement, and returns
   * how many it deleted. Safe to run on several instances at once: each batch skips rows another
   * instance is deleting, and running it again deletes nothing more (idempotent).
   */
  async trim(): Promise<number> {
    const days = this.opts.retentionDays();
    if (days <= 0) return 0;
    const batch = this.opts.trimBatch ?? 5000;
    let deleted = 0;
    for (;;) {
      const n = await this.repo.trimBatch(days, batch);
      deleted += n;
      if (n < batch) return deleted;
    }
  }

  /** Runs {@link trim} a minute after start and then every `intervalMs`; failures are logged and retried next time. */
  start(intervalMs = TRIM_INTERVAL_MS): void {
    if (this.timer !== null) return;
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        this.trimming = this.trim()
          .then((n) => {
            if (n > 0) this.opts.logger.info({ deleted: n }, 'old audit log entries deleted');
          })
          .catch((err: unknown) => this.opts.logger.warn({ err }, 'audit log trim failed; retried at the next interval'))
          .finally(() => {
            this.trimming = null;
            if (this.timer !== null) tick(intervalMs);
          });
      }, delay);
      this.timer.unref();
    };
    tick(Math.min(FIRST_TRIM_DELAY_MS, intervalMs));
  }

  /** Stops the periodic trim, waits for a running one, and for the writes in flight. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.trimming;
    await this.drain();
  }
}
