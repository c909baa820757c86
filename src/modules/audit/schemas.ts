/**
 * Request and response schemas of the audit log API (issue 16 "Identity" item 5; Mailroom's own).
 */
import { Type, type Static } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../http/schemas.js';

/** One audit log entry as `GET /api/audit` answers it. */
export const AuditEntry = Type.Object({
  id: Type.Integer(),
  created_at: Timestamp,
  /** The user's id (kept after the user is deleted); null only in rows written by other means. */
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  /** The user name at the time (kept after the user is renamed or deleted). */
  username: Type.String(),
  action: Type.String(),
  resource_type: Type.String(),
  resource_id: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  /** The route's URL pattern (`/api/lists/:id`), never the URL with its query string. */
  path: Type.String(),
  status: Type.Integer(),
  ip: Type.Union([Type.String(), Type.Null()]),
});
export type AuditEntry = Static<typeof AuditEntry>;

/** A short, non-empty filter value. */
const Filter = Type.String({ minLength: 1, maxLength: 200 });

/**
 * Filters and paging of `GET /api/audit`. `from` and `to` are checked by the service (an ISO 8601 date
 * or date-time), so their 400 says which forms are accepted.
 */
export const AuditQuery = Type.Object({
  user_id: Type.Optional(Id),
  username: Type.Optional(Filter),
  resource_type: Type.Optional(Filter),
  resource_id: Type.Optional(Filter),
  action: Type.Optional(Filter),
  from: Type.Optional(Type.String({ maxLength: 100 })),
  to: Type.Optional(Type.String({ maxLength: 100 })),
  ...PageQuery,
});
export type AuditQuery = Static<typeof AuditQuery>;
