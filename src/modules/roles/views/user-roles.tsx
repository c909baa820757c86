/**
 * The user-role pages (listmonk admin UI map rows 16–17, §1.15): the table of user roles and the role
 * form with its permission matrix (one row per group of PERMISSION_GROUPS, a checkbox per permission,
 * the permission's own name as its label, as listmonk shows them). Pure views: props in, markup out.
 */
import type { VNode } from 'preact';
import { PERMISSION_GROUPS, PERMISSIONS, SUPER_ADMIN_ROLE_ID } from '../../../http/access.js';
import { CsrfField, ErrorSummary, Field, type FormErrors } from '../../../ui/components/form.js';
import { Badge, EmptyState, PageHeader } from '../../../ui/components/misc.js';
import { Table } from '../../../ui/components/table.js';
import { t } from '../../../ui/i18n.js';
import type { UserRole } from '../schemas.js';

/** Permissions flagged as high risk beside their checkbox (listmonk v6 flags sql_query, v7 also users:manage). */
export const HIGH_RISK_PERMISSIONS: ReadonlySet<string> = new Set(['subscribers:sql_query', 'users:manage']);

/**
 * The permissions a new role starts with (listmonk §1.15): everything except the users group,
 * `subscribers:sql_query`, the lists group and the settings group.
 */
export const NEW_ROLE_PERMISSIONS: readonly string[] = PERMISSIONS.filter(
  (p) => !(PERMISSION_GROUPS.users as readonly string[]).includes(p) && !(PERMISSION_GROUPS.lists as readonly string[]).includes(p) && !(PERMISSION_GROUPS.settings as readonly string[]).includes(p) && p !== 'subscribers:sql_query',
);

/** A date-time as the tables show it: `2026-11-28 10:30` (UTC). */
export function shortTime(value: string | Date): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  return Number.isNaN(d.getTime()) ? String(value) : d.toISOString().slice(0, 16).replace('T', ' ');
}

/** Props of {@link UserRolesView}. */
export interface UserRolesViewProps {
  roles: readonly UserRole[];
  /** The viewer may create, edit and delete roles (`roles:manage`). */
  canManage: boolean;
}

/** `/admin/users/roles`: every user role with how many permissions it grants. */
export function UserRolesView({ roles, canManage }: UserRolesViewProps): VNode {
  return (
    <>
      <PageHeader title={t('menu.userRoles')} count={roles.length}>
        {canManage ? <a class="button" href="/admin/users/roles/new" data-cy="btn-new">{t('roles.newUserRole')}</a> : null}
      </PageHeader>
      <p class="page-intro">{t('roles.userRolesIntro')}</p>
      <Table<UserRole>
        caption={t('menu.userRoles')}
        rows={roles}
        rowKey={(r) => r.id}
        path="/admin/users/roles"
        cy="user-roles"
        empty={<EmptyState />}
        columns={[
          {
            key: 'name',
            label: t('globals.fields.name'),
            cell: (r) => (
              <>
                <a href={`/admin/users/roles/${r.id}`} data-cy={canManage && r.id !== SUPER_ADMIN_ROLE_ID ? 'btn-edit' : 'btn-view'}>{r.name}</a>
                {r.id === SUPER_ADMIN_ROLE_ID ? <> <Badge tone="info">{t('roles.superAdmin')}</Badge></> : null}
              </>
            ),
          },
          {
            key: 'permissions',
            label: t('roles.permissions'),
            numeric: true,
            cell: (r) => t('roles.permissionCount', { n: r.id === SUPER_ADMIN_ROLE_ID ? PERMISSIONS.length : r.permissions.length, total: PERMISSIONS.length }),
          },
          { key: 'updated_at', label: t('roles.updated'), cell: (r) => <time datetime={r.updated_at}>{shortTime(r.updated_at)}</time> },
        ]}
      />
    </>
  );
}

/** Props of {@link UserRoleFormView}. */
export interface UserRoleFormProps {
  csrf: string;
  /** The role being edited; null for a new one. */
  role: Pick<UserRole, 'id' | 'name'> | null;
  /** The name and permissions to show (the role's, or what was posted). */
  name: string;
  permissions: ReadonlySet<string>;
  /** The viewer may change this role (`roles:manage`, and not role 1). */
  editable: boolean;
  /** Why it is read-only, when it is: role 1, or no `roles:manage`. */
  readOnlyReason?: 'super-admin' | 'no-permission';
  /** The viewer may copy this role into a new one (`roles:manage`; role 1 too, as listmonk allows). */
  canClone?: boolean;
  errors?: FormErrors;
}

/** The human name of a permission group (`subscribers` → "Subscribers"). */
function groupLabel(group: string): string {
  return t(`roles.group.${group}`);
}

/** The matrix: one fieldset per group, a checkbox per permission; wraps to a stack on a phone. */
function PermissionMatrix({ permissions, disabled, error }: { permissions: ReadonlySet<string>; disabled: boolean; error?: string }): VNode {
  return (
    <fieldset class={`perm-matrix${error ? ' has-error' : ''}`} id="f-permissions" aria-describedby={error ? 'f-permissions-error' : 'f-permissions-hint'} tabindex={-1}>
      <legend>{t('roles.permissions')}</legend>
      <p class="field-hint" id="f-permissions-hint">{t('roles.permissionsHint')}</p>
      {error ? <p class="field-error" id="f-permissions-error"><span class="visually-hidden">{t('form.errorPrefix')} </span>{error}</p> : null}
      <div class="perm-rows">
        {Object.entries(PERMISSION_GROUPS).map(([group, perms]) => (
          <fieldset class="perm-row" data-cy={`perm-group-${group}`}>
            <legend class="perm-group">{groupLabel(group)}</legend>
            <div class="perm-checks">
              {perms.map((p) => {
                const id = `perm-${p.replace(/[^a-z0-9]+/gu, '-')}`;
                return (
                  <div class="perm-check">
                    <input type="checkbox" id={id} name="permissions" value={p} checked={permissions.has(p) || undefined} disabled={disabled || undefined} data-cy={p} />
                    <label for={id}>
                      <code>{p}</code>
                      {HIGH_RISK_PERMISSIONS.has(p) ? <> <Badge tone="warning">{t('roles.highRisk')}</Badge></> : null}
                    </label>
                  </div>
                );
              })}
            </div>
          </fieldset>
        ))}
      </div>
    </fieldset>
  );
}

/** `/admin/users/roles/new` and `/admin/users/roles/:id`: the name and the permission matrix. */
export function UserRoleFormView(p: UserRoleFormProps): VNode {
  const errors = p.errors ?? {};
  const isNew = p.role === null;
  const superAdmin = p.role?.id === SUPER_ADMIN_ROLE_ID;
  const action = isNew ? '/admin/users/roles' : `/admin/users/roles/${p.role!.id}`;
  const shown = superAdmin ? new Set<string>(PERMISSIONS) : p.permissions;
  return (
    <>
      <PageHeader title={isNew ? t('roles.newUserRole') : p.role!.name}>
        <a class="button secondary" href="/admin/users/roles">{t('roles.backToUserRoles')}</a>
      </PageHeader>
      {!p.editable ? (
        <p class="notice notice-info" data-cy="read-only">
          <span class="notice-text">{t(p.readOnlyReason === 'super-admin' ? 'roles.superAdminReadOnly' : 'roles.readOnly')}</span>
        </p>
      ) : null}
      <form method="post" action={action} class="form-stack card" data-cy="user-role-form" data-guard={p.editable || undefined}>
        <CsrfField token={p.csrf} />
        <ErrorSummary errors={errors} labels={{ name: t('globals.fields.name'), permissions: t('roles.permissions'), role: t('roles.role') }} />
        <Field name="name" label={t('globals.fields.name')} value={p.name} required maxlength={2000} disabled={!p.editable} error={errors.name} cy="name" autofocus={isNew || undefined} />
        <PermissionMatrix permissions={shown} disabled={!p.editable} error={errors.permissions} />
        {p.editable ? (
          <div class="page-actions">
            <button type="submit" class="button" data-cy="btn-save">{t('globals.buttons.save')}</button>
          </div>
        ) : null}
      </form>
      {!isNew && (p.canClone || p.editable) ? (
        <div class="danger-zone" id="f-role">
          {p.canClone ? (
            <form method="post" action={`/admin/users/roles/${p.role!.id}/clone`}>
              <CsrfField token={p.csrf} />
              <button type="submit" class="button secondary" data-cy="btn-clone">{t('roles.clone')}</button>
            </form>
          ) : null}
          {p.editable ? (
            <form method="post" action={`/admin/users/roles/${p.role!.id}/delete`}>
              <CsrfField token={p.csrf} />
              <button type="submit" class="button danger" data-confirm={t('roles.confirmDelete', { name: p.role!.name })} data-cy="btn-delete">{t('roles.delete')}</button>
            </form>
          ) : null}
        </div>
      ) : null}
    </>
  );
}
