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
import type { TotpEnrolment } from '../../auth/twofa.js';
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
  /** A secret being enrolled and its QR code (PNG, base64), or null. */
  enrolment?: TotpEnrolment | null;
  /** Errors of the two-step sign-in forms (`code`, `twofa_password`). */
  twofaErrors?: FormErrors;
}

/** The profile page's content. */
export function ProfileView({ ctx, user, values, errors = {}, formError, enrolment = null, twofaErrors = {} }: ProfileViewProps): VNode {
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
          {TwoFactorBox({ csrf: ctx.csrf, user, enrolment, errors: twofaErrors })}
        </section>
      ) : null}
    </section>
  );
}

/** The two-step sign-in box's forms: start, enrol with the app's code, or turn off with the password. */
function TwoFactorBox({ csrf, user, enrolment, errors }: { csrf: string; user: User; enrolment: TotpEnrolment | null; errors: FormErrors }): VNode {
  if (!user.password_login) return <p class="muted">{t('users.twoFANeedsPassword')}</p>;
  if (user.twofa_type === 'totp') {
    return (
      <form method="post" action="/admin/user/profile/twofa/disable" class="form-stack" data-cy="twofa-disable-form">
        <CsrfField token={csrf} />
        <Field name="password" id="twofa_password" label={t('users.twoFAPassword')} type="password" error={errors.twofa_password} cy="twofa-password" autocomplete="current-password" required />
        <div class="page-actions">
          <button type="submit" class="button danger" data-cy="btn-twofa-disable">{t('users.twoFADisable')}</button>
        </div>
      </form>
    );
  }
  if (enrolment === null) {
    return (
      <p>
        <a class="button secondary" href="/admin/user/profile?twofa=setup#twofa-title" data-cy="btn-twofa-setup">{t('users.twoFASetup')}</a>
      </p>
    );
  }
  return (
    <form method="post" action="/admin/user/profile/twofa" class="form-stack" data-cy="twofa-enable-form">
      <CsrfField token={csrf} />
      <input type="hidden" name="secret" value={enrolment.secret} />
      <p>{t('users.twoFAScan')}</p>
      <img class="twofa-qr" src={`data:image/png;base64,${enrolment.qr}`} width={200} height={200} alt={t('users.twoFAQrAlt')} data-cy="twofa-qr" />
      <p>
        {t('users.twoFASecret')} <code class="twofa-secret" data-cy="twofa-secret">{enrolment.secret}</code>
      </p>
      <Field name="code" label={t('users.totpCode')} hint={t('users.totpCodeHelp')} error={errors.code} required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength={6} cy="code" spellcheck={false} />
      <div class="page-actions">
        <button type="submit" class="button" data-cy="btn-twofa-enable">{t('users.twoFAEnable')}</button>
        <a class="button secondary" href="/admin/user/profile">{t('globals.buttons.cancel')}</a>
      </div>
    </form>
  );
}
