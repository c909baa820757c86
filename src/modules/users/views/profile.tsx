/**
 * The profile page `/admin/user/profile` (listmonk admin UI map §1.16, row 20; any signed-in user):
 * `@username` and the role badge; name, e-mail and a new password with its repeat, saved as
 * `PUT /api/profile` saves them (AccountService.updateProfile). As listmonk: the e-mail is hidden for
 * API users and read-only without password login; the password only with password login. The
 * two-step sign-in box is a labelled placeholder until the 2FA service is on main (it says where 2FA
 * is managed meanwhile). Pure: a function of its props.
 */
import type { VNode } from 'preact';
import type { PageContext } from '../../../ui/context.js';
import { CsrfField, Field, type FormErrors } from '../../../ui/components/form.js';
import { Badge, PageHeader } from '../../../ui/components/misc.js';
import { NoticeMessage } from '../../../ui/components/notice.js';
import { t } from '../../../ui/i18n.js';
import type { User } from '../schemas.js';
import { TwoFactorLabel } from './common.js';

/** What the profile form sends back (kept on a failed save; passwords never are). */
export interface ProfileValues {
  name: string;
  email: string;
}

/** Props of {@link ProfileView}. */
export interface ProfileViewProps {
  ctx: PageContext;
  user: User;
  /** The values to show (the stored ones, or the ones just posted when the save failed). */
  values?: ProfileValues;
  errors?: FormErrors;
  formError?: string | null;
}

/** The profile page's content. */
export function ProfileView({ ctx, user, values, errors = {}, formError }: ProfileViewProps): VNode {
  const v = values ?? { name: user.name, email: user.email ?? '' };
  const isApi = user.type === 'api';
  const withPassword = !isApi && user.password_login;
  return (
    <section class="profile-page">
      <PageHeader title={`@${user.username}`}>
        <Badge tone="info">{user.user_role.name}</Badge>
        {user.list_role ? <Badge tone="info">{user.list_role.name}</Badge> : null}
      </PageHeader>
      {formError ? <NoticeMessage kind="error" cy="form-error">{formError}</NoticeMessage> : null}
      <form method="post" action="/admin/user/profile" class="form-stack card" data-guard data-cy="profile-form" novalidate>
        <CsrfField token={ctx.csrf} />
        <h2 class="section-title">{t('users.account')}</h2>
        {!isApi ? (
          <Field name="email" label={t('users.email')} type="email" value={v.email} error={errors.email} cy="email" disabled={!withPassword}
            hint={withPassword ? undefined : t('users.emailNeedsPasswordLogin')} autocomplete="email" />
        ) : null}
        <Field name="name" label={t('users.name')} value={v.name} error={errors.name} cy="name" autocomplete="name" maxlength={2000} />
        {withPassword ? (
          <>
            <Field name="password" label={t('users.newPassword')} type="password" error={errors.password} cy="password" autocomplete="new-password" hint={t('users.passwordKeepHint')} />
            <Field name="password2" label={t('users.passwordRepeat')} type="password" error={errors.password2} cy="password2" autocomplete="new-password" />
          </>
        ) : null}
        <div class="page-actions">
          <button type="submit" class="button" data-cy="btn-save">{t('globals.buttons.save')}</button>
        </div>
      </form>
      {!isApi ? (
        <section class="card form-stack" aria-labelledby="twofa-title" data-cy="twofa">
          <h2 id="twofa-title" class="section-title">{t('users.twoFA')}</h2>
          <p>{t('users.twoFAStatus')} <TwoFactorLabel type={user.twofa_type} /></p>
          <p class="muted" data-cy="twofa-placeholder">{t('users.twoFAPlaceholder')}</p>
        </section>
      ) : null}
    </section>
  );
}
