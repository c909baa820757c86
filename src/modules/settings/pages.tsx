/**
 * The settings pages (issue 16 "Settings"; listmonk's `/admin/settings`, admin UI map §1.17):
 *
 *   GET  /admin/settings                  settings:get     the form (read-only without settings:manage)
 *   POST /admin/settings                  settings:manage  save (303 + notice), or add/remove a block (re-render)
 *   POST /admin/settings/smtp/test        settings:manage  send a test e-mail through one server as typed
 *
 * Saving writes only the keys the form changed (the same SettingsService.update as PUT /api/settings),
 * so another administrator's change to other keys meanwhile is not overwritten. A refused value
 * re-renders the form with 422, what the user typed kept and the service's message beside the field it
 * names; nothing is written then. The SMTP test calls the same SmtpTester as POST /api/settings/smtp/test.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, FieldError } from '../../errors.js';
import { can } from '../../http/access.js';
import { availableLanguages } from '../../i18n/catalog.js';
import type { PageContext } from '../../ui/context.js';
import { fragment, isHtmx, page, redirect, registerPages, view, type PageResult } from '../../ui/pages.js';
import { t } from '../../ui/i18n.js';
import { trustedHtml } from '../../ui/raw.js';
import { renderFragment } from '../../ui/render.js';
import { changedKeys, errorTarget, keyOfField, loadedMark, parseTab, readForm, tabOfKey, tabsOf, type FormBody, type TabId } from './form.js';
import type { SettingsService } from './service.js';
import { SmtpTestBody, type SmtpTester } from './smtp-test.js';
import { SettingsView, SmtpTestResult, type SettingsViewProps, type SmtpTestOutcome } from './views/settings.js';

/** A new, empty block of a block list (a server the user then fills in). */
const NEW_BLOCK: Readonly<Record<string, Record<string, unknown>>> = {
  smtp: {
    uuid: '', name: '', enabled: true, host: '', port: 587, hello_hostname: '', auth_protocol: 'login', username: '', password: '',
    tls_type: 'STARTTLS', tls_skip_verify: false, max_conns: 10, idle_timeout: '15s', wait_timeout: '5s', max_msg_retries: 2, email_headers: [],
  },
  messengers: { uuid: '', enabled: true, name: '', root_url: '', username: '', password: '', max_conns: 1, timeout: '5s', max_msg_retries: 2 },
};

const checkTestBody = new Ajv({ strict: false, allErrors: false }).compile(SmtpTestBody);

/** JSON Schema wordings of the settings API (documented, kept there) → the page's plain words. */
const PLAIN: ReadonlyArray<[RegExp, string]> = [
  [/^must be <= (\S+)$/u, 'settings.problem.max'],
  [/^must be >= (\S+)$/u, 'settings.problem.min'],
  [/^must be integer$/u, 'settings.problem.integer'],
  [/^must NOT have fewer than 1 characters$/u, 'settings.problem.required'],
  [/^must NOT have more than (\d+) characters$/u, 'settings.problem.maxLength'],
  [/^must NOT have fewer than (\d+) characters$/u, 'settings.problem.minLength'],
  [/^must match pattern /u, 'settings.problem.pattern'],
];

/** The problem of a FieldError without its `<field>: ` prefix, in plain words where the API's are technical. */
function problemOf(err: FieldError): string {
  const prefix = `${err.field}: `;
  const problem = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  for (const [re, key] of PLAIN) {
    const m = re.exec(problem);
    if (m) return t(key, { n: m[1] ?? '' });
  }
  return problem;
}

function formBody(request: FastifyRequest): FormBody {
  const b = request.body;
  return b !== null && typeof b === 'object' ? (b as FormBody) : {};
}

/** The `_loaded` mark a re-rendered form keeps (what the user started from), if it sent one. */
function carried(body: FormBody): string | undefined {
  return typeof body._loaded === 'string' ? body._loaded : undefined;
}

function field(body: FormBody, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v : '';
}

/** Stands for the session's CSRF token in the cached markup of the plain settings page. */
const CSRF_SLOT = 'mailroom-csrf-slot-3f9c1e';

/** `value` safe inside a double-quoted attribute (the CSRF token is base64url; this is belt and braces). */
function escapeAttribute(value: string): string {
  return value.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

/** Registers the settings pages. */
export function settingsPages(app: FastifyInstance, settings: SettingsService, smtpTest: SmtpTester): void {
  // Fixed for the process's life: the declared settings (so their tabs) and the shipped catalogues.
  const tabs = tabsOf(settings.definitions());
  const languages = availableLanguages();
  // The `_loaded` mark of the last values rendered: recomputed only when the stored values change.
  let lastMark: { json: string; mark: string } | null = null;
  const markOf = (stored: Readonly<Record<string, unknown>>): string => {
    const json = JSON.stringify(stored);
    if (lastMark === null || lastMark.json !== json) lastMark = { json, mark: loadedMark(stored) };
    return lastMark.mark;
  };
  const render = (ctx: PageContext, props: Omit<SettingsViewProps, 'ctx' | 'tabs' | 'stored' | 'canManage' | 'loaded' | 'languages'>, status = 200, loaded?: string, stored = settings.masked()) => {
    const body = <SettingsView ctx={ctx} tabs={tabs} stored={stored} canManage={can(ctx.principal, 'settings:manage')} loaded={loaded ?? markOf(stored)} languages={languages} {...props} />;
    return view(t('menu.settings'), body, { status });
  };

  // The plain page (no errors, stored values) is the same markup for everyone with the same rights
  // until a setting changes, but for the session's CSRF token: render it once per (values, rights,
  // tab) with a placeholder where the token goes, and fill the token in per request. Keeps the page
  // within 1.5× the cost of GET /api/settings (bench/admin); the markup is Mailroom's own rendering.
  let plain: { key: string; html: string } | null = null;
  const show = async (request: FastifyRequest, ctx: PageContext): Promise<PageResult> => {
    const stored = settings.masked();
    const selected = parseTab((request.query as Record<string, unknown>).tab);
    const canManage = can(ctx.principal, 'settings:manage');
    const key = `${canManage ? 1 : 0}|${selected ?? ''}|${JSON.stringify(stored)}`;
    if (plain === null || plain.key !== key) {
      const body = <SettingsView ctx={{ ...ctx, csrf: CSRF_SLOT }} tabs={tabs} stored={stored} canManage={canManage} loaded={markOf(stored)} languages={languages} values={stored} selected={selected} />;
      plain = { key, html: renderFragment(body) };
    }
    return view(t('menu.settings'), trustedHtml(plain.html.replaceAll(CSRF_SLOT, escapeAttribute(ctx.csrf)), 'generated-by-mailroom', 'div'));
  };

  const save = async (request: FastifyRequest, ctx: PageContext): Promise<PageResult> => {
    const defs = settings.definitions();
    const masked = settings.masked();
    const body = formBody(request);
    const values = readForm(defs, body, masked);
    const action = field(body, '_action');
    const block = /^(add|remove):([a-z_.]+?)(?:\.(\d{1,3}))?$/u.exec(action);
    if (block) {
      const [, op, key, index] = block as unknown as [string, string, string, string | undefined];
      const list = Array.isArray(values[key]) ? [...(values[key] as unknown[])] : null;
      if (list === null || NEW_BLOCK[key] === undefined) throw new BadRequestError(`_action: unknown block list "${key}"`);
      if (op === 'add') list.push({ ...NEW_BLOCK[key] });
      else if (index !== undefined) list.splice(Number(index), 1);
      values[key] = list;
      return render(ctx, { values, selected: tabOfKey(key), dirty: true, info: t('settings.notSavedYet') }, 200, carried(body));
    }
    const changed = changedKeys(values, masked, body._loaded);
    if (changed.length === 0) return redirect(`/admin/settings?tab=${parseTab(body._tab)}`, { kind: 'info', key: 'settings.nothingChanged' });
    try {
      await settings.update(Object.fromEntries(changed.map((k) => [k, values[k]])));
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      const target = err instanceof FieldError ? errorTarget(defs, err.field) : undefined;
      const selected: TabId = target ? tabOfKey(keyOfField(defs, target)!.key) : parseTab(body._tab);
      if (target === undefined) return render(ctx, { values, selected, dirty: true, formError: err.message }, 422, carried(body));
      const message = target === (err as FieldError).field ? problemOf(err as FieldError) : err.message;
      return render(ctx, { values, selected, dirty: true, errors: { [target]: message } }, 422, carried(body));
    }
    return redirect(`/admin/settings?tab=${tabOfKey(changed[0]!)}`, { kind: 'success', key: 'settings.saved' });
  };

  const testSmtp = async (request: FastifyRequest, ctx: PageContext): Promise<PageResult> => {
    const defs = settings.definitions();
    const body = formBody(request);
    const values = readForm(defs, body, settings.masked());
    const index = Number((request.query as Record<string, unknown>).server);
    const server = Array.isArray(values.smtp) && Number.isInteger(index) ? (values.smtp as Array<Record<string, unknown>>)[index] : undefined;
    if (server === undefined) throw new BadRequestError('server: there is no SMTP server with this number in the form');
    const email = field(body, `smtp_test_email.${index}`).trim();
    const errors: Record<string, string> = {};
    let outcome: SmtpTestOutcome;
    const input = { ...server, email };
    try {
      if (!checkTestBody(input)) {
        const e = checkTestBody.errors?.[0];
        const path = (e?.instancePath ?? '').replace(/^\//u, '').replace(/\//gu, '.');
        throw new FieldError(path === 'email' ? 'email' : `smtp.${index}.${path}`, e?.message ?? 'is invalid');
      }
      await smtpTest.send(input as SmtpTestBody);
      outcome = { index, ok: true, message: t('settings.smtp.testSent', { email }) };
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      if (err instanceof FieldError) {
        const name = err.field === 'email' ? `smtp_test_email.${index}` : err.field.startsWith('smtp.') ? errorTarget(defs, err.field) ?? 'smtp' : `smtp.${index}.${err.field.split('.')[0]}`;
        errors[name] = problemOf(err);
      }
      outcome = { index, ok: false, message: t('settings.smtp.testFailed', { error: err.message }) };
    }
    if (isHtmx(request)) return fragment(<SmtpTestResult index={index} outcome={outcome} />);
    return render(ctx, { values, selected: 'smtp', dirty: true, errors, smtpTest: outcome, testEmails: { [index]: email } }, outcome.ok ? 200 : 422, carried(body));
  };

  registerPages(app, [
    page('GET', '/admin/settings', 'settings:get', show),
    page('POST', '/admin/settings', 'settings:manage', save),
    page('POST', '/admin/settings/smtp/test', 'settings:manage', testSmtp),
  ]);
}
