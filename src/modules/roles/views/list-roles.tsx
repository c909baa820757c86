/**
 * The list-role pages (listmonk admin UI map rows 18–19, §1.15): the table of list roles and the role
 * form: a name and rows of (list, View = `list:get`, Manage = `list:manage`). Without JavaScript the
 * form shows the role's rows plus empty ones; "Add another list" and each row's "Remove" post the form
 * to `/admin/users/roles/lists/rows`, which re-renders it with a row more or less (nothing is saved);
 * with htmx the same answer replaces only the rows.
 */
import type { VNode } from 'preact';
import { CsrfField, ErrorSummary, Field, type FormErrors } from '../../../ui/components/form.js';
import { EmptyState, PageHeader } from '../../../ui/components/misc.js';
import { Table } from '../../../ui/components/table.js';
import { t } from '../../../ui/i18n.js';
import type { ListRole } from '../schemas.js';
import { shortTime } from './user-roles.js';

/** Props of {@link ListRolesView}. */
export interface ListRolesViewProps {
  roles: readonly ListRole[];
  canManage: boolean;
}

/** `/admin/users/roles/lists`: every list role with its lists. */
export function ListRolesView({ roles, canManage }: ListRolesViewProps): VNode {
  return (
    <>
      <PageHeader title={t('menu.listRoles')} count={roles.length}>
        {canManage ? <a class="button" href="/admin/users/roles/lists/new" data-cy="btn-new">{t('roles.newListRole')}</a> : null}
      </PageHeader>
      <p class="page-intro">{t('roles.listRolesIntro')}</p>
      <Table<ListRole>
        caption={t('menu.listRoles')}
        rows={roles}
        rowKey={(r) => r.id}
        path="/admin/users/roles/lists"
        cy="list-roles"
        empty={<EmptyState />}
        columns={[
          { key: 'name', label: t('globals.fields.name'), cell: (r) => <a href={`/admin/users/roles/lists/${r.id}`} data-cy={canManage ? 'btn-edit' : 'btn-view'}>{r.name}</a> },
          { key: 'lists', label: t('globals.terms.lists'), cell: (r) => (r.lists.length === 0 ? <span class="muted">{t('roles.noLists')}</span> : r.lists.map((l) => l.name).join(', ')) },
          { key: 'updated_at', label: t('roles.updated'), cell: (r) => <time datetime={r.updated_at}>{shortTime(r.updated_at)}</time> },
        ]}
      />
    </>
  );
}

/** One row of the form as shown: the chosen list id ('' for none) and its two permissions. */
export interface ListRow {
  listId: string;
  get: boolean;
  manage: boolean;
}

/** A list the picker offers. */
export interface ListChoice {
  id: number;
  name: string;
}

/** Props of {@link ListRoleFormView}. */
export interface ListRoleFormProps {
  csrf: string;
  /** The role being edited; null for a new one. */
  role: Pick<ListRole, 'id' | 'name'> | null;
  name: string;
  rows: readonly ListRow[];
  lists: readonly ListChoice[];
  editable: boolean;
  /** Field errors: `name`, `lists`, and `row.<i>` for a row. */
  errors?: FormErrors;
}

/** Empty rows the form always offers below the filled ones, so a list can be added without JavaScript. */
export const BLANK_ROWS = 2;

/** The rows block (the htmx swap target of add/remove). */
export function ListRows({ rows, lists, editable, errors }: Pick<ListRoleFormProps, 'rows' | 'lists' | 'editable' | 'errors'>): VNode {
  const errs = errors ?? {};
  return (
    <div id="list-rows" class="list-rows">
      <input type="hidden" name="rows" value={String(rows.length)} />
      <table class="table list-grants" data-cy="list-grants">
        <caption class="visually-hidden">{t('roles.listsCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('roles.list')}</th>
            <th scope="col">{t('roles.listGet')}</th>
            <th scope="col">{t('roles.listManage')}</th>
            {editable ? <th scope="col"><span class="visually-hidden">{t('roles.removeList')}</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const err = errs[`row.${i}`];
            const n = i + 1;
            return (
              <tr class={err ? 'has-error' : undefined} data-row={i}>
                <td data-label={t('roles.list')}>
                  <label class="visually-hidden" for={`f-list-${i}`}>{t('roles.listN', { n })}</label>
                  <select id={`f-list-${i}`} name={`list_${i}`} disabled={!editable || undefined} aria-invalid={err ? 'true' : undefined} aria-describedby={err ? `f-list-${i}-error` : undefined} data-cy="list">
                    <option value="">{t('roles.listNone')}</option>
                    {lists.map((l) => <option value={String(l.id)} selected={String(l.id) === row.listId || undefined}>{l.name}</option>)}
                  </select>
                  {err ? <p class="field-error" id={`f-list-${i}-error`}><span class="visually-hidden">{t('form.errorPrefix')} </span>{err}</p> : null}
                </td>
                <td class="grant-check" data-label={t('roles.listGet')}>
                  <input type="checkbox" id={`f-get-${i}`} name={`get_${i}`} value="true" checked={row.get || undefined} disabled={!editable || undefined} aria-label={t('roles.listGetN', { n })} data-cy="list-get" />
                </td>
                <td class="grant-check" data-label={t('roles.listManage')}>
                  <input type="checkbox" id={`f-manage-${i}`} name={`manage_${i}`} value="true" checked={row.manage || undefined} disabled={!editable || undefined} aria-label={t('roles.listManageN', { n })} data-cy="list-manage" />
                </td>
                {editable ? (
                  <td class="grant-remove">
                    <button type="submit" class="button secondary small" formaction="/admin/users/roles/lists/rows" formnovalidate name="remove" value={String(i)} hx-post="/admin/users/roles/lists/rows" hx-target="#list-rows" hx-swap="outerHTML" aria-label={t('roles.removeListN', { n })} data-cy="btn-delete">
                      {t('roles.removeList')}
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {editable ? (
        <button type="submit" class="button secondary" formaction="/admin/users/roles/lists/rows" formnovalidate name="add" value="1" hx-post="/admin/users/roles/lists/rows" hx-target="#list-rows" hx-swap="outerHTML" data-cy="btn-add-list">
          {t('roles.addList')}
        </button>
      ) : null}
    </div>
  );
}

/** `/admin/users/roles/lists/new` and `/admin/users/roles/lists/:id`. */
export function ListRoleFormView(p: ListRoleFormProps): VNode {
  const errors = p.errors ?? {};
  const isNew = p.role === null;
  const action = isNew ? '/admin/users/roles/lists' : `/admin/users/roles/lists/${p.role!.id}`;
  const labels: Record<string, string> = { name: t('globals.fields.name'), lists: t('globals.terms.lists'), role: t('roles.role') };
  p.rows.forEach((_r, i) => (labels[`row.${i}`] = t('roles.listN', { n: i + 1 })));
  return (
    <>
      <PageHeader title={isNew ? t('roles.newListRole') : p.role!.name}>
        <a class="button secondary" href="/admin/users/roles/lists">{t('roles.backToListRoles')}</a>
      </PageHeader>
      {!p.editable ? <p class="notice notice-info" data-cy="read-only"><span class="notice-text">{t('roles.readOnly')}</span></p> : null}
      <form method="post" action={action} class="form-stack card" data-cy="list-role-form" data-guard={p.editable || undefined}>
        <CsrfField token={p.csrf} />
        {!isNew ? <input type="hidden" name="role_id" value={String(p.role!.id)} /> : null}
        <ErrorSummary errors={Object.fromEntries(Object.entries(errors).map(([k, v]) => [k.startsWith('row.') ? `list-${k.slice(4)}` : k, v]))} labels={Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.startsWith('row.') ? `list-${k.slice(4)}` : k, v]))} />
        <Field name="name" label={t('globals.fields.name')} value={p.name} required maxlength={2000} disabled={!p.editable} error={errors.name} cy="name" autofocus={isNew || undefined} />
        <fieldset class={`list-grants-set${errors.lists ? ' has-error' : ''}`} id="f-lists" tabindex={-1} aria-describedby="f-lists-hint">
          <legend>{t('globals.terms.lists')}</legend>
          <p class="field-hint" id="f-lists-hint">{t('roles.listsHint')}</p>
          {errors.lists ? <p class="field-error" id="f-lists-error"><span class="visually-hidden">{t('form.errorPrefix')} </span>{errors.lists}</p> : null}
          <ListRows rows={p.rows} lists={p.lists} editable={p.editable} errors={errors} />
        </fieldset>
        {p.editable ? (
          <div class="page-actions">
            <button type="submit" class="button" data-cy="btn-save">{t('globals.buttons.save')}</button>
          </div>
        ) : null}
      </form>
      {p.editable && !isNew ? (
        <div class="danger-zone" id="f-role">
          <form method="post" action={`/admin/users/roles/lists/${p.role!.id}/clone`}>
            <CsrfField token={p.csrf} />
            <button type="submit" class="button secondary" data-cy="btn-clone">{t('roles.clone')}</button>
          </form>
          <form method="post" action={`/admin/users/roles/lists/${p.role!.id}/delete`}>
            <CsrfField token={p.csrf} />
            <button type="submit" class="button danger" data-confirm={t('roles.confirmDelete', { name: p.role!.name })} data-cy="btn-delete-role">{t('roles.delete')}</button>
          </form>
        </div>
      ) : null}
    </>
  );
}
