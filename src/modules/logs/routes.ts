/**
 * Route table of the logs API: GET /api/logs (listmonk's, permission `settings:get`), the recent
 * server log lines of every instance on the database, oldest first.
 */
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import { LogLines, LogsQuery } from './schemas.js';
import type { LogService } from './service.js';

/** Registers the logs routes. */
export function logRoutes(app: App, logs: LogService): void {
  app.get('/api/logs', {
    config: { permission: 'settings:get' },
    schema: {
      tags: ['settings'],
      summary: 'Recent server log lines (info and above) of every instance, oldest first; `limit` (Mailroom) caps them, default 1,000',
      querystring: LogsQuery,
      response: { 200: Envelope(LogLines), ...errorResponses },
    },
  }, async (req) => ({ data: await logs.recent(req.query.limit) }));
}
