/**
 * The user form `/admin/users/new` and `/admin/users/:id` (listmonk admin UI map §1.14 "User form",
 * row 15; v7's `user.html` page): type (user / API user, fixed once created), status, user name, name,
 * e-mail and password login with password + repeat (not for API users), user role and list role.
 * Anyone with `users:get` sees it; Save (`btn-save`), Delete (`btn-delete`) and "new API token" show
 * only with `users:manage`, and the POSTs refuse without it (conventions §15). Errors stand beside
 * their fields (the service's FieldError), a rule that is not about one field (the last Super Admin)
 * above the form. Pure: a function of its props.
 *
 * {@link TokenView} is the page an API user's token is shown on: rendered directly as the answer to
 * the POST that made the token (create or regenerate), never stored and never reachable by a GET.
 */
import type { VNode } from 'preact';
import { can } from '../../../http/access.js';
import type { PageContext } from '../../../ui/context.js';
import { CsrfField, Field, type FieldOption, type FormErrors } from '../../../ui/components/form.js';
import { PageHeader } from '../../../ui/components/misc.js';
import { NoticeMessage } from '../../../ui/components/notice.js';
import { t } from '../../../ui/i18n.js';
import type { ListRole, UserRole } from '../../roles/schemas.js';
import type { User } from '../schemas.js';
import { StatusBadge, TwoFactorLabel, When } from './common.js';

/** The form's values as the browser sends them back (strings; the checkbox as a boolean). */
export interface UserFormValues {
  username: string;
  name: string;
  email: string;
  type: 'user' | 'api';
  status: string;
  password_login: boolean;
  /** The user role's id, as text ('' when none chosen). */
  user_role: string;
  /** The list role's id, as text ('' for none). */
  list_role: string;
}

/** The form's values for a stored user (edit), or the defaults of a new one. */
export function formValues(user: User | null): UserFormValues {
  if (user === null) return { username: '', name: '', email: '', type: 'user', status: 'enabled', password_login: true, user_role: '', list_role: '' };
  return {
    username: user.username,
    name: user.name,
    email: user.email ?? '',
    type: user.type === 'api' ? 'api' : 'user',
    status: user.status,
    password_login: user.password_login,
    user_role: String(user.user_role_id),
    list_role: user.list_role_id === null ? '' : String(user.list_role_id),
  };
}

/** Props of {@link UserFormView}. */
export interface UserFormViewProps {
  ctx: PageContext;
  /** The stored user when editing; null on /admin/users/new. */
  user: User | null;
  values: UserFormValues;
  userRoles: readonly UserRole[];
  listRoles: readonly ListRole[];
  /** Field name (the form's input names) → message. */
  errors?: FormErrors;
  /** A refusal about the whole form (e.g. the last Super Admin rule), shown above it. */
  formError?: string | null;
}

/** The form's title: "New user" or `@username`. */
export function userFormTitle(user: User | null): string {
  return user === null ? t('users.newUser') : `@${user.username}`;
}

/** The user form page's content. */
export function UserFormView(p: UserFormViewProps): VNode {
  const { ctx, user, values } = p;
  const errors = p.errors ?? {};
  const manage = can(ctx.principal, 'users:manage');
  const isNew = user === null;
  const isApi = values.type === 'api';
  const roleOptions: FieldOption[] = [
    ...(values.user_role === '' ? [{ value: '', label: t('users.chooseRole') }] : []),
    ...p.userRoles.map((r) => ({ value: String(r.id), label: r.name })),
  ];
  const listRoleOptions: FieldOption[] = [{ value: '', label: t('users.listRoleNone') }, ...p.listRoles.map((r) => ({ value: String(r.id), label: r.name }))];
  const statusOptions: FieldOption[] = [
    { value: 'enabled', label: t('users.statusEnabled') },
    { value: 'disabled', label: t('users.statusDisabled') },
  ];
  return (
    <section class="user-page">
      <PageHeader title={userFormTitle(user)}>
        <a class="button secondary" href="/admin/users" data-cy="btn-back">{t('users.backToUsers')}</a>
      </PageHeader>
      {user !== null ? (
        <p class="user-facts">
          <StatusBadge status={user.status} /> <span>{t('users.createdOn')} <When at={user.created_at} /></span>{' '}
          <span>{t('users.lastLogin')}: <When at={user.loggedin_at} /></span>{' '}
          <span>{t('users.twoFA')}: <TwoFactorLabel type={user.twofa_type} /></span>
        </p>
      ) : null}
      {!manage ? <NoticeMessage kind="info" cy="read-only">{t('users.readOnly')}</NoticeMessage> : null}
      {p.formError ? <NoticeMessage kind="error" cy="form-error">{p.formError}</NoticeMessage> : null}
      <form id="user-form" method="post" action={isNew ? '/admin/users' : `/admin/users/${user.id}`} class="form-stack card" data-guard data-cy="user-form" novalidate>
        <CsrfField token={ctx.csrf} />
        <fieldset class="form-section" disabled={!manage || undefined}>
          <legend>{t('users.account')}</legend>
          {isNew ? (
            <Field name="type" label={t('users.type')} type="select" value={values.type} error={errors.type} cy="type" hint={t('users.typeHint')}
              options={[{ value: 'user', label: t('users.typeUser') }, { value: 'api', label: t('users.typeApiUser') }]} />
          ) : (
            <p class="field-static"><strong>{t('users.type')}:</strong> {t(isApi ? 'users.typeApiUser' : 'users.typeUser')} <span class="muted">({t('users.typeFixed')})</span></p>
          )}
          <Field name="status" label={t('users.status')} type="select" value={values.status} error={errors.status} cy="status" options={statusOptions} />
          <Field name="username" label={t('users.username')} value={values.username} error={errors.username} required cy="username" hint={t('users.usernameHint')} autocomplete="off" maxlength={2000} spellcheck={false} />
          <Field name="name" label={t('users.name')} value={values.name} error={errors.name} cy="name" hint={t('users.nameHint')} maxlength={2000} />
          {!isApi || isNew ? (
            <Field name="email" label={t('users.email')} type="email" value={values.email} error={errors.email} cy="email" hint={isNew ? t('users.emailHint') : undefined} autocomplete="off" />
          ) : null}
        </fieldset>
        {!isApi || isNew ? (
          <fieldset class="form-section" disabled={!manage || undefined}>
            <legend>{t('users.password')}</legend>
            <Field name="password_login" label={t('users.passwordLogin')} type="checkbox" value={values.password_login} error={errors.password_login} cy="password_login" hint={t('users.passwordLoginHint')} />
            <Field name="password" label={t(isNew ? 'users.password' : 'users.newPassword')} type="password" error={errors.password} cy="password" autocomplete="new-password" hint={isNew ? t('users.passwordHint') : t('users.passwordKeepHint')} />
            <Field name="password2" label={t('users.passwordRepeat')} type="password" error={errors.password2} cy="password2" autocomplete="new-password" />
          </fieldset>
        ) : (
          <p class="muted">{t('users.apiUserNoPassword')}</p>
        )}
        <fieldset class="form-section" disabled={!manage || undefined}>
          <legend>{t('users.roles')}</legend>
          <Field name="user_role" label={t('users.userRole')} type="select" value={values.user_role} error={errors.user_role} required cy="user_role" options={roleOptions} hint={t('users.userRoleHint')} />
          <Field name="list_role" label={t('users.listRole')} type="select" value={values.list_role} error={errors.list_role} cy="list_role" options={listRoleOptions} hint={t('users.listRoleHint')} />
        </fieldset>
        {manage ? (
          <div class="page-actions">
            <button type="submit" class="button" data-cy="btn-save">{t(isNew ? 'users.create' : 'globals.buttons.save')}</button>
          </div>
        ) : null}
      </form>
      {!isNew && manage ? <UserDangerZone ctx={ctx} user={user} /> : null}
    </section>
  );
}

/** The edit page's separate forms: a new API token (API users) and Delete, each confirmed first. */
function UserDangerZone({ ctx, user }: { ctx: PageContext; user: User }): VNode {
  return (
    <section class="card form-stack danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title" class="section-title">{t('users.otherActions')}</h2>
      {user.type === 'api' ? (
        <form method="post" action={`/admin/users/${user.id}/regenerate-token`} class="action-row">
          <CsrfField token={ctx.csrf} />
          <p>{t('users.regenerateHelp')}</p>
          <button type="submit" class="button secondary" data-cy="btn-regenerate-token" data-confirm={t('users.regenerateConfirm', { name: user.username })}>{t('users.regenerateToken')}</button>
        </form>
      ) : null}
      <form method="post" action={`/admin/users/${user.id}/delete`} class="action-row">
        <CsrfField token={ctx.csrf} />
        <p>{t('users.deleteHelp')}</p>
        <button type="submit" class="button danger" data-cy="btn-delete" data-confirm={t('users.deleteConfirm', { name: user.username })}>{t('users.delete')}</button>
      </form>
    </section>
  );
}

/** Props of {@link TokenView}: the API user and its new token (plain, shown this once). */
export interface TokenViewProps {
  ctx: PageContext;
  user: User;
  token: string;
  /** True right after creating the user; false after a regeneration. */
  created: boolean;
}

/**
 * The one time an API token is shown: the answer to the POST that made it (not a redirect, so the
 * token is in no cookie, URL or store; the page is `Cache-Control: no-store` like every admin page).
 */
export function TokenView({ user, token, created }: TokenViewProps): VNode {
  return (
    <section class="token-page">
      <PageHeader title={t('users.apiTokenTitle', { name: user.username })} />
      <NoticeMessage kind="success" cy="token-notice">{t(created ? 'users.apiUserCreated' : 'users.apiTokenRegenerated', { name: user.username })}</NoticeMessage>
      <div class="card form-stack">
        <div class="field">
          <label for="api-token">{t('users.apiToken')}</label>
          <input id="api-token" type="text" readonly value={token} data-cy="api-token" class="token-value" spellcheck={false} autocomplete="off" aria-describedby="api-token-hint" />
          <p class="field-hint" id="api-token-hint">{t('users.apiTokenOnce')}</p>
        </div>
        <p>{t('users.apiTokenUsage')}</p>
        <pre class="token-usage"><code>{`Authorization: token ${user.username}:${token}`}</code></pre>
        <div class="page-actions">
          <a class="button" href="/admin/users" data-cy="btn-done">{t('users.tokenDone')}</a>
          <a class="button secondary" href={`/admin/users/${user.id}`}>{t('users.openUser', { name: user.username })}</a>
        </div>
      </div>
    </section>
  );
}
