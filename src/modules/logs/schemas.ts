/**
 * Schemas of GET /api/logs (listmonk's `{"data": [log lines]}`, reference §12).
 */
import { Type, type Static } from 'typebox';

/** Most lines one answer carries. */
export const MAX_LOG_LINES = 10_000;
/** Lines answered when `limit` is not given: listmonk's buffer holds about as many. */
export const DEFAULT_LOG_LINES = 1000;

/** `limit` (Mailroom): how many of the newest lines to answer, 1–10,000 (default 1,000). */
export const LogsQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LOG_LINES })) });
export type LogsQuery = Static<typeof LogsQuery>;

/** The answer: lines as text, oldest first (see service.ts for their form). */
export const LogLines = Type.Array(Type.String());
