/**
 * The audit log page (issue 16 "Identity" item 5; Mailroom's own, listmonk has none): filters as a
 * plain GET form (user, action, resource type and id, from/to dates), the entries newest first, and a
 * pager that keeps the filters. Pure view: props in, markup out.
 */
import type { VNode } from 'preact';
import { ErrorSummary, Field, type FormErrors } from '../../../ui/components/form.js';
import { Badge, EmptyState, PageHeader } from '../../../ui/components/misc.js';
import { Table } from '../../../ui/components/table.js';
import { t } from '../../../ui/i18n.js';
import type { AuditEntry } from '../schemas.js';

/** The filters as the form holds them (query parameter → value; '' for none). */
export interface AuditFilters {
  username: string;
  action: string;
  resource_type: string;
  resource_id: string;
  from: string;
  to: string;
}

/** Props of {@link AuditLogView}. */
export interface AuditLogViewProps {
  filters: AuditFilters;
  entries: readonly AuditEntry[];
  total: number;
  page: number;
  perPage: number;
  errors?: FormErrors;
}

/** `2026-11-28 10:30:05 UTC` from an ISO timestamp. */
function when(value: string): string {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A status as a calm badge: 2xx/3xx done, 4xx refused, 5xx failed. */
function Outcome({ status }: { status: number }): VNode {
  if (status < 400) return <Badge tone="success">{t('audit.done')}</Badge>;
  return <Badge tone={status < 500 ? 'warning' : 'danger'}>{t(status < 500 ? 'audit.refused' : 'audit.failed', { status })}</Badge>;
}

/** The audit log: filters, then entries newest first. */
export function AuditLogView(p: AuditLogViewProps): VNode {
  const errors = p.errors ?? {};
  const f = p.filters;
  const labels = { username: t('audit.user'), action: t('audit.action'), resource_type: t('audit.resourceType'), resource_id: t('audit.resourceId'), from: t('audit.from'), to: t('audit.to') };
  const query = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));
  const filtered = Object.keys(query).length > 0;
  return (
    <>
      <PageHeader title={t('audit.title')} count={p.total} />
      <p class="page-intro">{t('audit.intro')}</p>
      <form method="get" action="/admin/users/audit" class="card filters" role="search" aria-label={t('audit.filters')} data-cy="audit-filters">
        <ErrorSummary errors={errors} labels={labels} />
        <div class="filter-grid">
          <Field name="username" label={labels.username} value={f.username} error={errors.username} cy="username" maxlength={200} />
          <Field name="action" label={labels.action} value={f.action} error={errors.action} cy="action" maxlength={200} hint={t('audit.actionHint')} />
          <Field name="resource_type" label={labels.resource_type} value={f.resource_type} error={errors.resource_type} cy="resource-type" maxlength={200} />
          <Field name="resource_id" label={labels.resource_id} value={f.resource_id} error={errors.resource_id} cy="resource-id" maxlength={200} />
          <Field name="from" label={labels.from} type="date" value={f.from} error={errors.from} cy="from" />
          <Field name="to" label={labels.to} type="date" value={f.to} error={errors.to} cy="to" />
        </div>
        <div class="page-actions">
          <button type="submit" class="button" data-cy="btn-search">{t('audit.filter')}</button>
          {filtered ? <a class="button secondary" href="/admin/users/audit">{t('audit.clear')}</a> : null}
        </div>
      </form>
      <Table<AuditEntry>
        caption={t('audit.title')}
        rows={p.entries}
        rowKey={(e) => e.id}
        path="/admin/users/audit"
        query={query}
        paging={{ page: p.page, perPage: p.perPage, total: p.total }}
        cy="audit-log"
        empty={<EmptyState message={t(filtered ? 'audit.emptyFiltered' : 'audit.empty')} />}
        columns={[
          { key: 'created_at', label: t('audit.time'), cell: (e) => <time datetime={e.created_at}>{when(e.created_at)}</time> },
          { key: 'username', label: t('audit.user'), cell: (e) => e.username },
          { key: 'action', label: t('audit.action'), cell: (e) => <code data-cy="audit-action">{e.action}</code> },
          { key: 'resource', label: t('audit.resource'), cell: (e) => (e.resource_id === null ? e.resource_type : `${e.resource_type} ${e.resource_id}`) },
          { key: 'status', label: t('audit.outcome'), cell: (e) => <Outcome status={e.status} /> },
          { key: 'ip', label: t('audit.ip'), cell: (e) => e.ip ?? '' },
        ]}
      />
    </>
  );
}
