/**
 * The Maintenance page (listmonk's Settings → Maintenance, admin UI map §1.19 and §2.15 for the
 * `data-cy` hooks): cards to delete orphan or blocklisted subscribers, unconfirmed opt-in subscriptions
 * older than a date, views/clicks older than a date, and to export views or clicks as CSV.
 *
 * Each delete is a POST form whose button asks in the kit's confirm dialog (`data-confirm`); once
 * confirmed, the maintenance island adds `confirmed=1`. A form that arrives without it (no JavaScript)
 * gets the confirm step page ({@link MaintenanceConfirmView}) first, so nothing is deleted unasked.
 * listmonk's database vacuum card is not here: Mailroom has no vacuum setting.
 */
import type { VNode } from 'preact';
import { CsrfField, Field, type FieldOption } from '../../../ui/components/form.js';
import { PageHeader } from '../../../ui/components/misc.js';
import { t } from '../../../ui/i18n.js';

/** The page's URL and its forms' targets. */
export const MAINTENANCE_URL = '/admin/settings/maintenance';
export const MAINTENANCE_ACTIONS = {
  subscribers: `${MAINTENANCE_URL}/subscribers`,
  subscriptions: `${MAINTENANCE_URL}/subscriptions`,
  analytics: `${MAINTENANCE_URL}/analytics`,
  export: `${MAINTENANCE_URL}/export`,
} as const;
/** One of the page's forms. */
export type MaintenanceForm = keyof typeof MAINTENANCE_ACTIONS;

/** What the forms show: the values sent (after a failed post) or the defaults. */
export interface MaintenanceValues {
  subscribersType: string;
  subscriptionsBefore: string;
  analyticsType: string;
  analyticsBefore: string;
  exportType: string;
  exportSince: string;
}

/** Errors of a failed post: form → field name → message (already translated). */
export type MaintenanceErrors = Partial<Record<MaintenanceForm, Readonly<Record<string, string>>>>;

/** `YYYY-MM-DD` of `now` minus `days` days, in UTC (the date inputs' value form). */
export function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** The forms' defaults (listmonk's: deletes older than today−7, the export since today−30). */
export function defaultValues(now: Date): MaintenanceValues {
  const week = daysBefore(now, 7);
  return { subscribersType: 'orphan', subscriptionsBefore: week, analyticsType: 'all', analyticsBefore: week, exportType: 'views', exportSince: daysBefore(now, 30) };
}

const subscriberTypes = (): FieldOption[] => [
  { value: 'orphan', label: t('maintenance.subscribers.orphan') },
  { value: 'blocklisted', label: t('maintenance.subscribers.blocklisted') },
];
const analyticsTypes = (): FieldOption[] => [
  { value: 'all', label: t('maintenance.analytics.all') },
  { value: 'views', label: t('maintenance.analytics.views') },
  { value: 'clicks', label: t('maintenance.analytics.clicks') },
];
const exportTypes = (): FieldOption[] => analyticsTypes().filter((o) => o.value !== 'all');

/** Props of {@link MaintenanceView}. */
export interface MaintenanceViewProps {
  csrf: string;
  values: MaintenanceValues;
  errors?: MaintenanceErrors;
}

/** One card: a heading, what it does, the form. */
function Card({ id, title, help, children }: { id: string; title: string; help: string; children: VNode | VNode[] }): VNode {
  return (
    <section class="card maintenance-card" aria-labelledby={`${id}-title`} id={id}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="muted">{help}</p>
      {children}
    </section>
  );
}

/** The Maintenance page's content. */
export function MaintenanceView({ csrf, values, errors = {} }: MaintenanceViewProps): VNode {
  const dateHint = t('maintenance.dateHint');
  return (
    <>
      <PageHeader title={t('menu.maintenance')} />
      <p class="maintenance-help">{t('maintenance.help')}</p>
      <div class="maintenance-grid">
        <Card id="maintenance-subscribers" title={t('globals.terms.subscribers')} help={t('maintenance.subscribers.help')}>
          <form method="post" action={MAINTENANCE_ACTIONS.subscribers} class="form-stack" data-confirm-step>
            <CsrfField token={csrf} />
            <Field name="type" id="f-subscribers-type" type="select" label={t('maintenance.data')} options={subscriberTypes()} value={values.subscribersType} error={errors.subscribers?.type} />
            <div>
              <button type="submit" class="button danger" data-cy="btn-delete-subscribers" data-confirm={t('maintenance.subscribers.confirm')}>{t('maintenance.delete')}</button>
            </div>
          </form>
        </Card>
        <Card id="maintenance-subscriptions" title={t('maintenance.subscriptions.title')} help={t('maintenance.subscriptions.help')}>
          <form method="post" action={MAINTENANCE_ACTIONS.subscriptions} class="form-stack" data-confirm-step>
            <CsrfField token={csrf} />
            <Field name="before_date" id="f-subscriptions-before" type="date" label={t('maintenance.olderThan')} hint={dateHint} value={values.subscriptionsBefore} error={errors.subscriptions?.before_date} required />
            <div>
              <button type="submit" class="button danger" data-cy="btn-delete-subscriptions" data-confirm={t('maintenance.subscriptions.confirm')}>{t('maintenance.delete')}</button>
            </div>
          </form>
        </Card>
        <Card id="maintenance-analytics" title={t('maintenance.analytics.title')} help={t('maintenance.analytics.help')}>
          <form method="post" action={MAINTENANCE_ACTIONS.analytics} class="form-stack" data-confirm-step>
            <CsrfField token={csrf} />
            <Field name="type" id="f-analytics-type" type="select" label={t('maintenance.data')} options={analyticsTypes()} value={values.analyticsType} error={errors.analytics?.type} />
            <Field name="before_date" id="f-analytics-before" type="date" label={t('maintenance.olderThan')} hint={dateHint} value={values.analyticsBefore} error={errors.analytics?.before_date} required />
            <div>
              <button type="submit" class="button danger" data-cy="btn-delete-analytics" data-confirm={t('maintenance.analytics.confirm')}>{t('maintenance.delete')}</button>
            </div>
          </form>
        </Card>
        <Card id="maintenance-export" title={t('maintenance.export.title')} help={t('maintenance.export.help')}>
          <form method="get" action={MAINTENANCE_ACTIONS.export} class="form-stack">
            <Field name="type" id="f-export-type" type="select" label={t('maintenance.data')} options={exportTypes()} value={values.exportType} error={errors.export?.type} />
            <Field name="since" id="f-export-since" type="date" label={t('maintenance.export.since')} hint={dateHint} value={values.exportSince} error={errors.export?.since} required />
            <div>
              <button type="submit" class="button secondary" data-cy="btn-export-analytics">{t('maintenance.export.button')}</button>
            </div>
          </form>
        </Card>
      </div>
    </>
  );
}

/** Props of {@link MaintenanceConfirmView}. */
export interface MaintenanceConfirmProps {
  csrf: string;
  /** The form to send again, confirmed. */
  action: string;
  /** The question (translated), naming what will be deleted. */
  question: string;
  /** The fields of the first post (besides `_csrf`), sent again. */
  fields: Readonly<Record<string, string>>;
}

/** The confirm step a delete without `confirmed=1` gets (no JavaScript): the question, Delete or Cancel. */
export function MaintenanceConfirmView(p: MaintenanceConfirmProps): VNode {
  return (
    <>
      <PageHeader title={t('maintenance.confirmTitle')} />
      <section class="card maintenance-confirm" aria-labelledby="confirm-question">
        <p id="confirm-question" class="confirm-question">{p.question}</p>
        <p class="muted">{t('maintenance.cannotUndo')}</p>
        <form method="post" action={p.action} class="confirm-actions">
          <CsrfField token={p.csrf} />
          {Object.entries(p.fields).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
          <input type="hidden" name="confirmed" value="1" />
          <button type="submit" class="button danger" data-cy="btn-confirm-delete">{t('maintenance.confirmDelete')}</button>
          <a class="button secondary" href={MAINTENANCE_URL}>{t('globals.buttons.cancel')}</a>
        </form>
      </section>
    </>
  );
}
