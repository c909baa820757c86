/**
 * The audit log page `/admin/users/audit` (issue 16 "Identity" item 5): the same search as
 * `GET /api/audit`, with the same permission (`users:get`), as a filter form and a paged table, newest
 * first. A bad date is shown beside its field (422), never a 500.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FieldError } from '../../errors.js';
import { t } from '../../ui/i18n.js';
import { page, registerPages, view } from '../../ui/pages.js';
import type { AuditQuery } from './schemas.js';
import type { AuditService } from './service.js';
import { AuditLogView, type AuditFilters } from './views/audit-log.js';

/** Entries per page (listmonk's default page size). */
const PER_PAGE = 20;

/** The filters of the page's query string: each trimmed, at most 200 characters. */
export function auditFilters(query: unknown): AuditFilters {
  const q = (query ?? {}) as Record<string, unknown>;
  const s = (name: string) => (typeof q[name] === 'string' ? (q[name] as string).trim().slice(0, 200) : '');
  return { username: s('username'), action: s('action'), resource_type: s('resource_type'), resource_id: s('resource_id'), from: s('from'), to: s('to') };
}

/** The page number of the query string (1 when absent or not a positive integer). */
function pageNumber(query: unknown): number {
  const raw = (query as Record<string, unknown> | null)?.page;
  const n = typeof raw === 'string' && /^[1-9]\d{0,6}$/u.test(raw) ? Number(raw) : 1;
  return n;
}

async function auditPage(audit: AuditService, request: FastifyRequest) {
  const filters = auditFilters(request.query);
  const page = pageNumber(request.query);
  const q: AuditQuery = { page, per_page: PER_PAGE };
  for (const [k, v] of Object.entries(filters)) if (v !== '') (q as Record<string, unknown>)[k] = v;
  try {
    const found = await audit.query(q);
    return view(t('audit.title'), <AuditLogView filters={filters} entries={found.results} total={found.total} page={page} perPage={PER_PAGE} />);
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    const errors = { [err.field]: t(err.message.includes('before') ? 'audit.toBeforeFrom' : 'audit.badDate') };
    return view(t('audit.title'), <AuditLogView filters={filters} entries={[]} total={0} page={1} perPage={PER_PAGE} errors={errors} />, { status: 422 });
  }
}

/** Registers the audit log page. */
export function auditPages(app: FastifyInstance, audit: AuditService): void {
  registerPages(app, [
    page('GET', '/admin/users/audit', 'users:get', (req) => auditPage(audit, req)),
  ]);
}
