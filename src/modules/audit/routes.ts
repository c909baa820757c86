/**
 * Route table of the audit log API (issue 16 "Identity" item 5; Mailroom's own, listmonk has none).
 * Reading the log needs `users:get`: the log is a record of what users did, and whoever may see the
 * users may see their actions (docs/audit.md explains the choice).
 */
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, Page } from '../../http/schemas.js';
import { AuditEntry, AuditQuery } from './schemas.js';
import type { AuditService } from './service.js';

const tags = ['audit'];

/** Registers the audit log routes. */
export function auditRoutes(app: App, audit: AuditService): void {
  app.get('/api/audit', {
    config: { permission: 'users:get' },
    schema: {
      tags,
      summary: 'Search the audit log (filters: user_id, username, resource_type, resource_id, action, from, to), newest first',
      querystring: AuditQuery,
      response: { 200: Envelope(Page(AuditEntry)), ...errorResponses },
    },
  }, async (req) => ({ data: await audit.query(req.query) }));
}
