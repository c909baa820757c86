/**
 * Route table of the maintenance API (listmonk's `/api/maintenance/*`, permission `settings:maintain`;
 * docs/maintenance.md). Dates come from the query string, or from a form (or JSON) body field of the
 * same name, as listmonk's FormValue reads them.
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, TrueEnvelope } from '../../http/schemas.js';
import { FieldError } from '../../errors.js';
import {
  AnalyticsExportParams, AnalyticsGcParams, BeforeDateQuery, CountResult, ExportQuery, parseMaintenanceDate, SubscriberGcParams,
} from './schemas.js';
import type { MaintenanceService } from './service.js';

const tags = ['maintenance'];
const config = { permission: 'settings:maintain' } as const;

/** `before_date` from the query string, else from the body's field of that name (listmonk FormValue). */
function beforeDate(query: { before_date?: string }, body: unknown): Date {
  const fromBody = typeof body === 'object' && body !== null && 'before_date' in body ? (body as { before_date: unknown }).before_date : undefined;
  return parseMaintenanceDate(query.before_date ?? fromBody, 'before_date');
}

/** Registers the maintenance routes. */
export function maintenanceRoutes(app: App, service: MaintenanceService): void {
  app.delete('/api/maintenance/subscribers/:type', {
    config,
    schema: { tags, summary: 'Delete orphan (no subscription) or blocklisted subscribers; answers how many', params: SubscriberGcParams, response: { 200: Envelope(CountResult), ...errorResponses } },
  }, async (req) => ({ data: { count: await service.deleteSubscribers(req.params.type) } }));

  app.delete('/api/maintenance/subscriptions/unconfirmed', {
    config,
    schema: { tags, summary: 'Delete unconfirmed subscriptions to double opt-in lists created before `before_date` (RFC 3339 or YYYY-MM-DD); answers how many', querystring: BeforeDateQuery, response: { 200: Envelope(CountResult), ...errorResponses } },
  }, async (req) => ({ data: { count: await service.deleteUnconfirmedSubscriptions(beforeDate(req.query, req.body)) } }));

  app.delete('/api/maintenance/analytics/:type', {
    config,
    schema: { tags, summary: 'Delete views, clicks or both (`all`) recorded before `before_date` (RFC 3339 or YYYY-MM-DD)', params: AnalyticsGcParams, querystring: BeforeDateQuery, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await service.deleteAnalytics(req.params.type, beforeDate(req.query, req.body));
    return { data: true as const };
  });

  app.get('/api/maintenance/analytics/:type/export', {
    config,
    schema: { tags, summary: 'Views or clicks recorded from `since` (required) up to `until` (optional, Mailroom) as CSV, streamed', params: AnalyticsExportParams, querystring: ExportQuery, response: { 200: Type.String(), ...errorResponses } },
  }, async (req, reply) => {
    const since = parseMaintenanceDate(req.query.since, 'since');
    const until = req.query.until === undefined ? null : parseMaintenanceDate(req.query.until, 'until');
    if (until !== null && until.getTime() < since.getTime()) throw new FieldError('until', 'must not be before since');
    const stream = await service.exportAnalytics(req.params.type, since, until);
    // A stream is sent as it is; the typed reply only knows the schema's string.
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="campaign_${req.params.type}.csv"`)
      .header('Cache-Control', 'no-cache')
      .send(stream as unknown as string);
  });
}
