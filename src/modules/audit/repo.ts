/**
 * SQL access for the audit log. Rows come back in API shape (schemas.ts AuditEntry).
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { AuditEntry } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['audit-insert', 'audit-query', 'audit-count', 'audit-trim']);

/** One entry to write (the database sets `id` and `created_at`). */
export interface NewAuditEntry {
  userId: number | null;
  username: string;
  action: string;
  resourceType: string;
  resourceId: string | null;
  method: string;
  /** The route's URL pattern. */
  path: string;
  status: number;
  ip: string | null;
}

/** Filters of an audit log search; null means "any". `from`/`to` are inclusive ISO timestamps. */
export interface AuditFilter {
  userId: number | null;
  username: string | null;
  resourceType: string | null;
  resourceId: string | null;
  action: string | null;
  from: string | null;
  to: string | null;
}

/** audit_log table access. */
export class AuditRepo {
  constructor(private readonly db: Db) {}

  /** Writes one entry (one INSERT). Throws the driver's error. */
  async insert(e: NewAuditEntry): Promise<void> {
    await this.db.run(Q['audit-insert'], {
      user_id: e.userId,
      username: e.username,
      action: e.action,
      resource_type: e.resourceType,
      resource_id: e.resourceId,
      method: e.method,
      path: e.path,
      status: e.status,
      ip: e.ip,
    });
  }

  /** One page of matching entries, newest first, and the number of matches. `limit` null: all. */
  async query(f: AuditFilter, limit: number | null, offset: number): Promise<{ rows: AuditEntry[]; total: number }> {
    const filter = { user_id: f.userId, username: f.username, resource_type: f.resourceType, resource_id: f.resourceId, action: f.action, from: f.from, to: f.to };
    const rows = await this.db.run<AuditEntry & { total: number }>(Q['audit-query'], { ...filter, limit, offset });
    if (rows.length > 0) return { rows: rows.map(({ total: _t, ...entry }) => entry), total: rows[0]!.total };
    const [count] = await this.db.run<{ total: number }>(Q['audit-count'], filter);
    return { rows: [], total: count?.total ?? 0 };
  }

  /** Deletes at most `limit` entries older than `days` days; returns how many it deleted. */
  async trimBatch(days: number, limit: number): Promise<number> {
    const [row] = await this.db.run<{ deleted: number }>(Q['audit-trim'], { days, limit });
    return row?.deleted ?? 0;
  }
}
