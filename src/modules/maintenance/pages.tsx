/**
 * Admin pages of the maintenance module (conventions §13–14; listmonk's Settings → Maintenance, page
 * gate `settings:maintain`): the page, one POST per delete card, and the export form's GET, which
 * checks its fields and sends the browser on to the streaming API export.
 *
 * A delete posts its card's fields. Without `confirmed=1` (no JavaScript ran the confirm dialog) the
 * answer is the confirm step page; with it, the service deletes and the browser is sent back (303) to
 * the page with a notice naming how many rows went. A bad field re-renders the page with the error
 * beside it (422). Handlers call MaintenanceService only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FieldError } from '../../errors.js';
import { page, redirect, registerPages, view, type PageResult } from '../../ui/pages.js';
import type { PageContext } from '../../ui/context.js';
import { t } from '../../ui/i18n.js';
import { parseMaintenanceDate } from './schemas.js';
import type { AnalyticsExportType, AnalyticsGcType, MaintenanceService, SubscriberGcType } from './service.js';
import {
  defaultValues, MAINTENANCE_ACTIONS, MAINTENANCE_URL, MaintenanceConfirmView, MaintenanceView,
  type MaintenanceErrors, type MaintenanceForm, type MaintenanceValues,
} from './views/maintenance.js';

/** The island that adds `confirmed=1` to a delete confirmed in the dialog. */
const ISLANDS = ['maintenance.js'] as const;

type Form = Record<string, unknown>;
const text = (body: Form, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');

/**
 * What to say beside the field of a FieldError, in the page's words: the service's messages are the
 * API's (RFC 3339 and all); a form only ever sends a date input's `YYYY-MM-DD` or a select's option.
 */
function fieldMessage(err: FieldError, value: string): string {
  if (err.field === 'type') return t('maintenance.badChoice');
  return value.trim() === '' ? t('maintenance.dateRequired') : t('maintenance.badDate');
}

/** `value` if it is one of `allowed`, else a FieldError on `field`. */
function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FieldError(field, `must be one of ${allowed.join(', ')}`);
}

/** The page again, status 422, with `form`'s values and the error beside its field. */
function failed(ctx: PageContext, form: MaintenanceForm, values: Partial<MaintenanceValues>, err: FieldError, sent: Record<string, string>): PageResult {
  const errors: MaintenanceErrors = { [form]: { [err.field]: fieldMessage(err, sent[err.field] ?? '') } };
  const body = <MaintenanceView csrf={ctx.csrf} values={{ ...defaultValues(new Date()), ...values }} errors={errors} />;
  return view(t('menu.maintenance'), body, { status: 422, islands: ISLANDS });
}

/** The confirm step (no JavaScript) for a post to `action` with `fields`. */
function confirmStep(ctx: PageContext, action: string, question: string, fields: Record<string, string>): PageResult {
  return view(t('maintenance.confirmTitle'), <MaintenanceConfirmView csrf={ctx.csrf} action={action} question={question} fields={fields} />);
}

/**
 * Runs one delete card's post: `parse` checks the fields (FieldError → 422 on `form`), then the confirm
 * step unless `confirmed=1`, then `run` and a redirect with its notice.
 */
async function deleteForm<P>(
  req: FastifyRequest, ctx: PageContext, body: Form, form: MaintenanceForm, values: Partial<MaintenanceValues>,
  parse: () => P, question: (p: P) => string, fields: Record<string, string>, run: (p: P) => Promise<{ key: string; count: number }>,
): Promise<PageResult> {
  let parsed: P;
  try {
    parsed = parse();
  } catch (err) {
    if (err instanceof FieldError) return failed(ctx, form, values, err, fields);
    throw err;
  }
  if (text(body, 'confirmed') !== '1') return confirmStep(ctx, MAINTENANCE_ACTIONS[form], question(parsed), fields);
  const done = await run(parsed);
  // Operators find destructive maintenance in the server log (and on the Logs page), with who ran it.
  req.log.info({ component: 'maintenance', action: done.key.replace(/^maintenance\./u, ''), count: done.count, user: ctx.principal.username }, t(done.key, { count: done.count }));
  return redirect(MAINTENANCE_URL, { kind: 'success', key: done.key, params: { count: done.count.toLocaleString('en') } });
}

/** Registers the Maintenance page, its delete posts and the export form. */
export function maintenancePages(app: FastifyInstance, maintenance: MaintenanceService): void {
  registerPages(app, [
    page('GET', MAINTENANCE_URL, 'settings:maintain', (_req, ctx) =>
      view(t('menu.maintenance'), <MaintenanceView csrf={ctx.csrf} values={defaultValues(new Date())} />, { islands: ISLANDS })),

    page('POST', MAINTENANCE_ACTIONS.subscribers, 'settings:maintain', async (req, ctx) => {
      const body = (req.body ?? {}) as Form;
      const type = text(body, 'type');
      return deleteForm(req, ctx, body, 'subscribers', { subscribersType: type },
        () => oneOf<SubscriberGcType>(type, ['orphan', 'blocklisted'], 'type'),
        (p) => t(`maintenance.subscribers.confirm_${p}`), { type },
        async (p) => ({ key: `maintenance.subscribers.deleted_${p}`, count: await maintenance.deleteSubscribers(p) }));
    }),

    page('POST', MAINTENANCE_ACTIONS.subscriptions, 'settings:maintain', async (req, ctx) => {
      const body = (req.body ?? {}) as Form;
      const before = text(body, 'before_date');
      return deleteForm(req, ctx, body, 'subscriptions', { subscriptionsBefore: before },
        () => parseMaintenanceDate(before, 'before_date'),
        () => t('maintenance.subscriptions.confirmDate', { date: before }), { before_date: before },
        async (d) => ({ key: 'maintenance.subscriptions.deleted', count: await maintenance.deleteUnconfirmedSubscriptions(d) }));
    }),

    page('POST', MAINTENANCE_ACTIONS.analytics, 'settings:maintain', async (req, ctx) => {
      const body = (req.body ?? {}) as Form;
      const [type, before] = [text(body, 'type'), text(body, 'before_date')];
      return deleteForm(req, ctx, body, 'analytics', { analyticsType: type, analyticsBefore: before },
        () => ({ type: oneOf<AnalyticsGcType>(type, ['all', 'views', 'clicks'], 'type'), before: parseMaintenanceDate(before, 'before_date') }),
        (p) => t(`maintenance.analytics.confirm_${p.type}`, { date: before }), { type, before_date: before },
        async (p) => ({ key: 'maintenance.analytics.deleted', count: await maintenance.deleteAnalytics(p.type, p.before) }));
    }),

    // A reload of a failed form's answer (and the shell's refresh link there) asks for the post's URL.
    page('GET', `${MAINTENANCE_URL}/:form`, 'settings:maintain', () => redirect(MAINTENANCE_URL)),

    page('GET', MAINTENANCE_ACTIONS.export, 'settings:maintain', (req, ctx) => {
      const q = (req.query ?? {}) as Form;
      const [type, since] = [text(q, 'type'), text(q, 'since')];
      try {
        const kind = oneOf<AnalyticsExportType>(type, ['views', 'clicks'], 'type');
        const from = parseMaintenanceDate(since, 'since');
        return redirect(`/api/maintenance/analytics/${kind}/export?since=${encodeURIComponent(from.toISOString())}`);
      } catch (err) {
        if (err instanceof FieldError) return failed(ctx, 'export', { exportType: type, exportSince: since }, err, { type, since });
        throw err;
      }
    }),
  ]);
}
