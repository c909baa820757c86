/**
 * The sign-in pages (issue 16 "Sign-in"; listmonk's public admin pages, admin UI map §5.1): login,
 * first-run setup, the 2FA code step, forgot password, reset password. Pure views: the lead's handlers
 * (src/modules/users) give them the CSRF token, the values to keep, and errors; passwords are never
 * given back. Each returns `{ title, body }` for `view(title, body)` of ../pages.ts (public pages are
 * drawn in the sign-in frame).
 */
import type { VNode } from 'preact';
import { t } from '../i18n.js';
import { CsrfField, Field, type FormErrors } from '../components/form.js';
import { NoticeMessage } from '../components/notice.js';

/** A view's title and content. */
export interface ViewParts {
  title: string;
  body: VNode;
}

/** The OIDC provider offered on the login page. */
export interface OidcOption {
  /** The provider's name, e.g. "Google" (setting `security.oidc.provider_name`). */
  name: string;
  /** Where the button posts to start the flow (listmonk: `POST /auth/oidc`). */
  action: string;
}

/** Props of {@link LoginView}. */
export interface LoginViewProps {
  csrf: string;
  /** The local /admin path to return to after signing in (validated with safeNext). */
  next: string;
  username?: string;
  /** A failed sign-in's message (one message for wrong user or password: no user enumeration). */
  error?: string | null;
  oidc?: OidcOption | null;
  /** Hide the password form when password login is off (OIDC only). */
  passwordLogin?: boolean;
}

/** The login form (POST /admin/login): username, password, hidden next and _csrf; optional OIDC button. */
export function LoginView(p: LoginViewProps): ViewParts {
  const showPassword = p.passwordLogin !== false;
  return {
    title: t('users.login'),
    body: (
      <>
        <h1>{t('users.login')}</h1>
        {p.error ? <NoticeMessage kind="error" cy="login-error">{p.error}</NoticeMessage> : null}
        {showPassword ? (
          <form method="post" action="/admin/login" class="form-stack" data-cy="login-form">
            <CsrfField token={p.csrf} />
            <input type="hidden" name="next" value={p.next} />
            <Field name="username" label={t('users.username')} value={p.username ?? ''} required autocomplete="username" autofocus={!p.username} cy="username" maxlength={200} spellcheck={false} />
            <Field name="password" label={t('users.password')} type="password" required autocomplete="current-password" autofocus={!!p.username} cy="password" maxlength={200} />
            <button type="submit" class="button block" data-cy="btn-login">{t('users.login')}</button>
          </form>
        ) : null}
        {p.oidc ? (
          <form method="post" action={p.oidc.action} class="oidc-form">
            <CsrfField token={p.csrf} />
            <input type="hidden" name="next" value={p.next} />
            {showPassword ? <p class="divider"><span>{t('users.or')}</span></p> : null}
            <button type="submit" class="button secondary block" data-cy="btn-oidc">{t('users.loginOIDC', { name: p.oidc.name })}</button>
          </form>
        ) : null}
        {showPassword ? (
          <p class="auth-links"><a href="/admin/forgot">{t('users.forgotPassword')}</a></p>
        ) : null}
      </>
    ),
  };
}

/** Props of {@link SetupView}. */
export interface SetupViewProps {
  csrf: string;
  email?: string;
  username?: string;
  errors?: FormErrors;
}

/** listmonk's first-run form (no user exists yet): creates the first Super Admin. POST /admin/login. */
export function SetupView(p: SetupViewProps): ViewParts {
  const e = p.errors ?? {};
  return {
    title: t('users.setupTitle'),
    body: (
      <>
        <h1>{t('users.setupTitle')}</h1>
        <p class="lead">{t('users.firstTime')}</p>
        <form method="post" action="/admin/login" class="form-stack" data-cy="setup-form">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="setup" value="true" />
          <Field name="email" label={t('subscribers.email')} type="email" value={p.email ?? ''} required autocomplete="email" error={e.email} cy="email" maxlength={300} />
          <Field name="username" label={t('users.username')} value={p.username ?? ''} required autocomplete="username" error={e.username} cy="username" hint={t('users.usernameHint')} maxlength={200} spellcheck={false} />
          <Field name="password" label={t('users.password')} type="password" required autocomplete="new-password" error={e.password} cy="password" hint={t('users.passwordHint')} maxlength={200} />
          <Field name="password2" label={t('users.passwordRepeat')} type="password" required autocomplete="new-password" error={e.password2} cy="password2" maxlength={200} />
          <button type="submit" class="button block" data-cy="btn-setup">{t('users.setupButton')}</button>
        </form>
      </>
    ),
  };
}

/** Props of {@link TwoFactorView}. */
export interface TwoFactorViewProps {
  csrf: string;
  next: string;
  error?: string | null;
}

/** The TOTP code step after a correct password (POST /admin/login/twofa). */
export function TwoFactorView(p: TwoFactorViewProps): ViewParts {
  return {
    title: t('users.twoFA'),
    body: (
      <>
        <h1>{t('users.twoFA')}</h1>
        <form method="post" action="/admin/login/twofa" class="form-stack" data-cy="twofa-form">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="next" value={p.next} />
          <Field name="code" label={t('users.totpCode')} hint={t('users.totpCodeHelp')} error={p.error} required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength={6} autofocus cy="code" spellcheck={false} />
          <button type="submit" class="button block" data-cy="btn-verify">{t('users.verify')}</button>
        </form>
        <p class="auth-links"><a href="/admin/login">{t('users.backToLogin')}</a></p>
      </>
    ),
  };
}

/** Props of {@link ForgotPasswordView}. */
export interface ForgotPasswordViewProps {
  csrf: string;
  email?: string;
  error?: string | null;
  /** After a POST: say that a link was sent if the address is known (never whether it is). */
  sent?: boolean;
}

/** Ask for a password-reset e-mail (POST /admin/forgot). */
export function ForgotPasswordView(p: ForgotPasswordViewProps): ViewParts {
  return {
    title: t('users.forgotPasswordTitle'),
    body: (
      <>
        <h1>{t('users.forgotPasswordTitle')}</h1>
        {p.sent ? (
          <NoticeMessage kind="success" cy="reset-sent">{t('users.resetLinkSent')}</NoticeMessage>
        ) : (
          <>
            <p class="lead">{t('users.forgotPasswordHelp')}</p>
            <form method="post" action="/admin/forgot" class="form-stack" data-cy="forgot-form">
              <CsrfField token={p.csrf} />
              <Field name="email" label={t('subscribers.email')} type="email" value={p.email ?? ''} required autocomplete="email" error={p.error} autofocus cy="email" maxlength={300} />
              <button type="submit" class="button block" data-cy="btn-send-reset">{t('users.sendResetLink')}</button>
            </form>
          </>
        )}
        <p class="auth-links"><a href="/admin/login">{t('users.backToLogin')}</a></p>
      </>
    ),
  };
}

/** Props of {@link ResetPasswordView}. */
export interface ResetPasswordViewProps {
  csrf: string;
  /** The reset token and e-mail from the link (`/admin/reset?token=&email=`), carried as hidden fields. */
  token: string;
  email: string;
  errors?: FormErrors;
}

/** Choose a new password (POST /admin/reset). */
export function ResetPasswordView(p: ResetPasswordViewProps): ViewParts {
  const e = p.errors ?? {};
  return {
    title: t('users.resetPassword'),
    body: (
      <>
        <h1>{t('users.resetPassword')}</h1>
        {e.token ? <NoticeMessage kind="error" cy="reset-error">{e.token}</NoticeMessage> : null}
        <form method="post" action="/admin/reset" class="form-stack" data-cy="reset-form">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="token" value={p.token} />
          <input type="hidden" name="email" value={p.email} />
          <Field name="password" label={t('users.newPassword')} type="password" required autocomplete="new-password" error={e.password} hint={t('users.passwordHint')} autofocus cy="password" maxlength={200} />
          <Field name="password2" label={t('users.passwordRepeat')} type="password" required autocomplete="new-password" error={e.password2} cy="password2" maxlength={200} />
          <button type="submit" class="button block" data-cy="btn-reset">{t('users.resetPassword')}</button>
        </form>
        <p class="auth-links"><a href="/admin/login">{t('users.backToLogin')}</a></p>
      </>
    ),
  };
}
