/**
 * Request and response schemas of the maintenance API (listmonk's `/api/maintenance/*`, reference
 * "Maintenance"), and the one date parser its parameters share.
 */
import { Type, type Static } from 'typebox';
import { FieldError } from '../../errors.js';

/** `:type` of DELETE /api/maintenance/subscribers/:type. */
export const SubscriberGcParams = Type.Object({ type: Type.Union([Type.Literal('orphan'), Type.Literal('blocklisted')]) });
export type SubscriberGcParams = Static<typeof SubscriberGcParams>;

/** `:type` of DELETE /api/maintenance/analytics/:type (`all` = views and clicks). */
export const AnalyticsGcParams = Type.Object({ type: Type.Union([Type.Literal('all'), Type.Literal('views'), Type.Literal('clicks')]) });
export type AnalyticsGcParams = Static<typeof AnalyticsGcParams>;

/** `:type` of GET /api/maintenance/analytics/:type/export. */
export const AnalyticsExportParams = Type.Object({ type: Type.Union([Type.Literal('views'), Type.Literal('clicks')]) });
export type AnalyticsExportParams = Static<typeof AnalyticsExportParams>;

/**
 * `before_date` of the deletes: read as text and parsed by {@link parseMaintenanceDate}, so a bad value
 * is a 400 naming the field with the accepted forms (listmonk reads it with FormValue: query string or
 * form body, RFC 3339).
 */
export const BeforeDateQuery = Type.Object({ before_date: Type.Optional(Type.String({ maxLength: 100 })) });
export type BeforeDateQuery = Static<typeof BeforeDateQuery>;

/** `since` (required, listmonk) and `until` (optional, Mailroom) of the analytics export. */
export const ExportQuery = Type.Object({
  since: Type.Optional(Type.String({ maxLength: 100 })),
  until: Type.Optional(Type.String({ maxLength: 100 })),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** `{"count": n}`: how many rows a delete removed (listmonk's shape). */
export const CountResult = Type.Object({ count: Type.Integer({ minimum: 0 }) });

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2}))?$/u;

/** Days in a month of the proleptic Gregorian calendar (month 1–12). */
function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses a date parameter: an RFC 3339 timestamp (`2026-01-31T00:00:00Z`, `…+05:30`; listmonk's form)
 * or a date (`2026-01-31`, midnight UTC; Mailroom accepts it too). A `+` offset that arrived as a space
 * (an unencoded `+` in a query string) is read as `+`. Throws FieldError naming `field` when the value
 * is missing, empty, not text, or not a real calendar time.
 */
export function parseMaintenanceDate(value: unknown, field: string): Date {
  const problem = 'must be an RFC 3339 timestamp (e.g. 2026-01-31T00:00:00Z) or a date (YYYY-MM-DD)';
  if (value === undefined || value === '') throw new FieldError(field, `is required and ${problem}`);
  if (typeof value !== 'string') throw new FieldError(field, problem);
  const text = value.trim().replace(/ (\d{2}:\d{2})$/u, '+$1');
  const m = RFC3339.exec(text);
  if (m === null) throw new FieldError(field, problem);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const timeOk = m[4] === undefined || (Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || !timeOk) throw new FieldError(field, `${problem}; "${value}" is not a real date`);
  const ms = Date.parse(m[4] === undefined ? `${text}T00:00:00Z` : text.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw new FieldError(field, problem);
  return new Date(ms);
}
