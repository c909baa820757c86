/**
 * The settings page (issue 16 "Settings"; listmonk's `/admin/settings`, admin UI map §1.17): every
 * setting in one form, grouped in tabs, its inputs generated from the settings' TypeBox schemas
 * (form.ts) with labels and help from the catalogue. Errors show beside their field; secrets are
 * never rendered; SMTP servers and messengers are fieldsets with add, remove and (SMTP) a test send.
 * A pure function of its props.
 */
import type { VNode } from 'preact';
import type { TSchema } from 'typebox';
import { isUnchangedSecret, type SettingDef } from '../../../settings/definitions.js';
import type { PageContext } from '../../../ui/context.js';
import { CsrfField, ErrorSummary, Field, type FormErrors } from '../../../ui/components/form.js';
import { PageHeader } from '../../../ui/components/misc.js';
import { NoticeMessage } from '../../../ui/components/notice.js';
import { TabPanel, Tabs } from '../../../ui/components/tabs.js';
import { hasMessage, t } from '../../../ui/i18n.js';
import { inputOf, isSecret, TABS, type TabId } from '../form.js';

/** The outcome of an SMTP test shown beside its server. */
export interface SmtpTestOutcome {
  index: number;
  ok: boolean;
  message: string;
}

/** Props of {@link SettingsView}. */
export interface SettingsViewProps {
  ctx: PageContext;
  /** The settings of each tab (form.ts tabsOf). */
  tabs: Readonly<Record<TabId, readonly SettingDef[]>>;
  /** The values shown: the stored ones (secrets masked), or what the user posted. */
  values: Readonly<Record<string, unknown>>;
  /** The stored values, secrets masked: says whether a secret is set. */
  stored: Readonly<Record<string, unknown>>;
  selected: TabId;
  /** Field name → message. */
  errors?: FormErrors;
  /** A problem not tied to a shown field. */
  formError?: string | null;
  /** May save (settings:manage): without it the form is read-only and has no Save button. */
  canManage: boolean;
  /** The form holds unsaved changes (a re-rendered post): the leave guard starts armed. */
  dirty?: boolean;
  /** SMTP test recipients by server index. */
  testEmails?: Readonly<Record<number, string>>;
  smtpTest?: SmtpTestOutcome | null;
  /** The `_loaded` mark of the values the form was first rendered with (form.ts loadedMark). */
  loaded: string;
  /** Catalogue codes `app.lang` can take (a select); absent: a text box. */
  languages?: readonly string[];
  /** An information line above the form (e.g. "not saved yet"). */
  info?: string | null;
}

/** The catalogue key of a field's label: its name without block indexes (`smtp.0.port` → `settings.smtp.port`). */
export function labelKey(name: string): string {
  return `settings.${name.split('.').filter((p) => !/^\d+$/u.test(p)).join('.')}`;
}

function label(name: string): string {
  const key = labelKey(name);
  return hasMessage(key) ? t(key) : name;
}

function help(name: string, def: SettingDef, top: boolean): string | undefined {
  const key = `${labelKey(name)}.help`;
  if (hasMessage(key)) return t(key);
  return top ? def.description : undefined;
}

interface NodeProps {
  def: SettingDef;
  schema: TSchema;
  name: string;
  path: string[];
  value: unknown;
  props: SettingsViewProps;
}

function lines(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join('\n') : typeof value === 'string' ? value : '';
}

function headerLines(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return value.flatMap((h) => (h && typeof h === 'object' ? Object.entries(h as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`) : [])).join('\n');
}

function secretStored(p: NodeProps): boolean {
  const stored = p.props.stored[p.def.key];
  if (p.path.length === 0) return typeof stored === 'string' && stored !== '';
  const uuid = (p.props.values[p.def.key] as Array<Record<string, unknown>> | undefined)?.[Number(p.path[0])]?.uuid;
  const block = Array.isArray(stored) ? (stored as Array<Record<string, unknown>>).find((b) => uuid && b.uuid === uuid) : undefined;
  const v = block?.[p.path[p.path.length - 1]!];
  return typeof v === 'string' && v !== '';
}

/** One setting or one part of it, by its schema. */
function SettingNode(p: NodeProps): VNode {
  const input = inputOf(p.schema);
  const error = p.props.errors?.[p.name] ?? null;
  const top = p.path.length === 0;
  const common = { name: p.name, label: label(p.name), hint: help(p.name, p.def, top), error };
  switch (input.kind) {
    case 'checkbox':
      return <Field {...common} type="checkbox" value={p.value === true} cy={cyOf(p.name)} />;
    case 'number':
      return <Field {...common} type="number" value={typeof p.value === 'number' || typeof p.value === 'string' ? p.value : ''} min={input.min} max={input.max} inputmode="numeric" />;
    case 'select':
      return <Field {...common} type="select" value={String(p.value ?? '')} options={input.options.map((o) => ({ value: o, label: hasMessage(`settings.option.${o}`) ? t(`settings.option.${o}`) : o }))} />;
    case 'lines':
      return <Field {...common} type="textarea" value={lines(p.value)} rows={4} spellcheck={false} hint={common.hint ?? t('settings.onePerLine')} />;
    case 'headers':
      return <Field {...common} type="textarea" value={headerLines(p.value)} rows={2} spellcheck={false} placeholder="X-Custom-Header: value" />;
    case 'group':
      return (
        <fieldset class="settings-group" id={`f-${p.name}`}>
          <legend>{common.label}</legend>
          {common.hint ? <p class="field-hint">{common.hint}</p> : null}
          {error ? <p class="field-error">{error}</p> : null}
          {input.fields.map(([k, s]) => (
            <SettingNode {...p} schema={s} name={`${p.name}.${k}`} path={[...p.path, k]} value={(p.value as Record<string, unknown> | undefined)?.[k]} />
          ))}
        </fieldset>
      );
    case 'blocks':
      return <Blocks {...p} item={input.item} />;
    default:
      if (isSecret(p.def, p.path)) {
        // A new secret typed into a form that came back with an error is not echoed: say so, or the
        // next save would quietly keep the old one.
        const typed = typeof p.value === 'string' && !isUnchangedSecret(p.value);
        const state = typed ? 'settings.secretRetype' : secretStored(p) ? 'settings.secretKept' : 'settings.secretNone';
        return <Field {...common} type="password" autocomplete="new-password" hint={[common.hint, t(state)].filter(Boolean).join(' ')} />;
      }
      if (p.name === 'app.lang' && p.props.languages && p.props.languages.length > 0) {
        const langs = p.props.languages.includes(String(p.value)) ? p.props.languages : [String(p.value), ...p.props.languages];
        return <Field {...common} type="select" value={String(p.value ?? '')} options={langs.map((l) => ({ value: l, label: l }))} />;
      }
      return <Field {...common} type="text" value={typeof p.value === 'string' ? p.value : ''} maxlength={input.maxLength} spellcheck={false} />;
  }
}

/** listmonk's `data-cy` for a few inputs. */
function cyOf(name: string): string | undefined {
  if (/^smtp\.\d+\.enabled$/u.test(name)) return 'btn-enable-smtp';
  return undefined;
}

/** The block lists: SMTP servers and postback messengers, one fieldset each, with add and remove. */
function Blocks(p: NodeProps & { item: TSchema }): VNode {
  const blocks = Array.isArray(p.value) ? (p.value as Array<Record<string, unknown>>) : [];
  // The on/off switch first (listmonk's block header), then the schema's order.
  const fields = Object.entries((p.item as unknown as { properties: Record<string, TSchema> }).properties)
    .filter(([k]) => k !== 'uuid')
    .sort(([a], [b]) => Number(b === 'enabled') - Number(a === 'enabled'));
  const smtp = p.name === 'smtp';
  const error = p.props.errors?.[p.name] ?? null;
  return (
    <div class="settings-blocks" id={`f-${p.name}`} tabindex={-1}>
      {error ? <p class="field-error" id={`f-${p.name}-error`}>{error}</p> : null}
      {blocks.length === 0 ? <p class="muted">{t(`settings.${p.name}.none`)}</p> : null}
      {blocks.map((b, i) => {
        const name = `${p.name}.${i}`;
        const title = typeof b.name === 'string' && b.name !== '' ? b.name : typeof b.host === 'string' && b.host !== '' ? b.host : t(`settings.${p.name}.new`);
        return (
          <fieldset class="settings-block" data-cy={`${p.name}-block`}>
            <legend>{t(`settings.${p.name}.block`, { n: i + 1, name: title })}</legend>
            <input type="hidden" name={`${name}.uuid`} value={typeof b.uuid === 'string' ? b.uuid : ''} />
            <div class="settings-block-fields">
              {fields.map(([k, s]) => (
                <SettingNode {...p} schema={s} name={`${name}.${k}`} path={[String(i), k]} value={b[k]} />
              ))}
            </div>
            {smtp ? <SmtpTest index={i} props={p.props} /> : null}
            {/* The last SMTP server cannot go (one must stay enabled; listmonk v7 also offers delete only from two). */}
            {p.props.canManage && !(smtp && blocks.length === 1) ? (
              <div class="block-actions">
                <button type="submit" class="button secondary" name="_action" value={`remove:${name}`} formnovalidate data-cy={smtp ? 'btn-delete-smtp' : 'btn-delete-messenger'} data-confirm={t(`settings.${p.name}.removeConfirm`, { name: title })}>
                  {t(`settings.${p.name}.remove`, { name: title })}
                </button>
              </div>
            ) : null}
          </fieldset>
        );
      })}
      {p.props.canManage ? (
        <button type="submit" class="button secondary" name="_action" value={`add:${p.name}`} formnovalidate data-cy={`btn-add-${p.name}`}>
          {t(`settings.${p.name}.add`)}
        </button>
      ) : null}
    </div>
  );
}

/** The result box of an SMTP test (also the htmx fragment swapped in after a test). */
export function SmtpTestResult({ index, outcome }: { index: number; outcome?: SmtpTestOutcome | null }): VNode {
  const mine = outcome && outcome.index === index ? outcome : null;
  return (
    <div id={`smtp-test-result-${index}`} class="smtp-test-result" data-cy="smtp-test-result" aria-live="polite">
      {mine ? <NoticeMessage kind={mine.ok ? 'success' : 'error'}>{mine.message}</NoticeMessage> : null}
    </div>
  );
}

/** "Send a test e-mail" for one SMTP server: its recipient and button (posts the whole form; htmx swaps the result). */
function SmtpTest({ index, props }: { index: number; props: SettingsViewProps }): VNode | null {
  if (!props.canManage) return null;
  const url = `/admin/settings/smtp/test?server=${index}`;
  const name = `smtp_test_email.${index}`;
  return (
    <div class="smtp-test">
      <Field name={name} label={t('settings.smtp.testEmail')} type="email" value={props.testEmails?.[index] ?? ''} autocomplete="email" error={props.errors?.[name] ?? null} hint={t('settings.smtp.testHelp')} />
      <button type="submit" class="button secondary" formaction={url} formnovalidate data-cy="btn-test-smtp" hx-post={url} hx-target={`#smtp-test-result-${index}`} hx-swap="outerHTML">
        {t('settings.smtp.testSend')}
      </button>
      <SmtpTestResult index={index} outcome={props.smtpTest} />
    </div>
  );
}

/** The whole page. */
export function SettingsView(props: SettingsViewProps): VNode {
  const errors = props.errors ?? {};
  const labels = Object.fromEntries(Object.keys(errors).map((n) => [n, label(n)]));
  return (
    <div class="settings-page">
      <form method="post" action="/admin/settings" class="settings-form" data-guard data-dirty={props.dirty ? 'true' : undefined} data-cy="settings-form" novalidate>
        <PageHeader title={t('menu.settings')}>
          {props.canManage ? (
            <button type="submit" class="button" name="_action" value="save" data-cy="btn-save">{t('globals.buttons.save')}</button>
          ) : null}
        </PageHeader>
        <CsrfField token={props.ctx.csrf} />
        <input type="hidden" name="_tab" value={props.selected} />
        <input type="hidden" name="_loaded" value={props.loaded} />
        {props.info ? <NoticeMessage kind="info" cy="settings-info">{props.info}</NoticeMessage> : null}
        {props.formError ? <NoticeMessage kind="error" cy="settings-error">{props.formError}</NoticeMessage> : null}
        <ErrorSummary errors={errors} labels={labels} />
        {props.canManage ? null : <p class="muted" data-cy="settings-readonly">{t('settings.readOnly')}</p>}
        <div class="settings-layout">
          <Tabs id="settings" label={t('menu.settings')} inline selected={props.selected} tabs={TABS.filter((id) => props.tabs[id].length > 0).map((id) => ({ id, label: t(`settings.tab.${id}`), href: `/admin/settings?tab=${id}` }))} />
          <div class="settings-panels">
            {TABS.filter((id) => props.tabs[id].length > 0).map((id) => (
              <TabPanel tabsId="settings" id={id} selected={id === props.selected}>
                <h2>{t(`settings.tab.${id}`)}</h2>
                <fieldset class="settings-fields" disabled={!props.canManage || undefined}>
                  <legend class="visually-hidden">{t(`settings.tab.${id}`)}</legend>
                  {props.tabs[id].map((def) => (
                    <SettingNode def={def} schema={def.schema} name={def.key} path={[]} value={props.values[def.key]} props={props} />
                  ))}
                </fieldset>
              </TabPanel>
            ))}
          </div>
        </div>
      </form>
    </div>
  );
}
