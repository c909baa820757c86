/**
 * The sign-in pages after the password (issue 16 "Sign-in" item 4; listmonk's public admin pages):
 *
 * | Method | Path | Access | Does |
 * |---|---|---|---|
 * | GET | `/admin/login/twofa` | a session owing its code | the code form (else back to the login page) |
 * | POST | `/admin/login/twofa` | a session owing its code | checks the code; new session cookie; 303 to `next` |
 * | GET | `/admin/forgot` | public | the forgot-password form |
 * | POST | `/admin/forgot` | public | mails a reset link if the address is known; the same answer either way |
 * | GET | `/admin/reset?token=…` | public | the new-password form, or the error page for a dead link |
 * | POST | `/admin/reset` | public | sets the password; 303 to the login page with a notice |
 *
 * The login page (`/admin/login`) sends a user with two-factor on to `/admin/login/twofa?next=…` with the
 * pending session's cookie. The code step is public to the auth hook (the pending session reaches no
 * other route) and reads the cookie itself; it needs no CSRF token: a forged post would need the
 * victim's own pending cookie and code. Handlers call the services, never SQL (conventions §13).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FieldError, TooManyRequestsError, UnauthorizedError } from '../../errors.js';
import { pageContext, publicPage, redirect, registerPages, safeNext, sendResult, view, type PageResult } from '../../ui/pages.js';
import type { PublicPageContext } from '../../ui/context.js';
import { ForgotPasswordView, ResetPasswordView, TwoFactorView } from '../../ui/views/auth.js';
import type { PasswordResetService } from './password-reset.js';
import { SESSION_COOKIE } from './sessions.js';
import { originOf, setSessionCookie } from './signin-routes.js';
import type { TwofaService } from './twofa.js';

/** What the sign-in pages need. */
export interface SigninPagesDeps {
  twofa: TwofaService;
  passwordReset: PasswordResetService;
  /** `app.root_url`: the session cookie is Secure when it is https. */
  rootUrl: () => string;
}

type Form = Record<string, unknown>;

/** A form field as a string ('' when absent or not a string). */
function field(body: unknown, name: string): string {
  const v = (body as Form | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** The problem of a FieldError without its `field: ` prefix, for display beside the field. */
function problem(err: FieldError): string {
  const text = err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const expired = () => redirect('/admin/login', { kind: 'error', key: 'users.signinExpired' });

/** The code form, when the cookie is a pending sign-in. */
async function twofaForm(d: SigninPagesDeps, request: FastifyRequest, ctx: PublicPageContext): Promise<PageResult> {
  const token = request.cookies[SESSION_COOKIE] ?? '';
  if (!(await d.twofa.isPending(token))) return expired();
  const v = TwoFactorView({ csrf: ctx.csrf, next: safeNext((request.query as Form).next) });
  return view(v.title, v.body);
}

/** Checks the code; on success sets the new session cookie (which is why this route is not in the page table). */
function registerTwofaSubmit(app: FastifyInstance, d: SigninPagesDeps): void {
  app.post('/admin/login/twofa', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const ctx = await pageContext(app, request, reply, false);
    const next = safeNext(field(request.body, 'next'));
    const again = (error: string, status: number) => {
      const v = TwoFactorView({ csrf: ctx.csrf, next, error });
      return view(v.title, v.body, { status });
    };
    let result: PageResult;
    try {
      const code = field(request.body, 'code') || field(request.body, 'totp_code');
      const token = await d.twofa.completeSignIn(request.cookies[SESSION_COOKIE] ?? '', code, originOf(request));
      setSessionCookie(reply, token, d.rootUrl());
      result = redirect(next);
    } catch (err) {
      if (err instanceof FieldError) result = again(problem(err), 422);
      else if (err instanceof TooManyRequestsError) result = again(err.message, 429);
      else if (err instanceof UnauthorizedError) result = expired();
      else throw err;
    }
    return sendResult(app, request, reply, ctx, result);
  });
}

/** Sends the link (or nothing), then says the same thing for every address. */
async function forgotSubmit(d: SigninPagesDeps, request: FastifyRequest, ctx: PublicPageContext): Promise<PageResult> {
  const email = field(request.body, 'email');
  try {
    await d.passwordReset.request(email);
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    const v = ForgotPasswordView({ csrf: ctx.csrf, email, error: problem(err) });
    return view(v.title, v.body, { status: 422 });
  }
  const v = ForgotPasswordView({ csrf: ctx.csrf, sent: true });
  return view(v.title, v.body);
}

/** The new-password form for a live link; a dead link throws ResetLinkError (the error page, 400). */
async function resetForm(d: SigninPagesDeps, request: FastifyRequest, ctx: PublicPageContext): Promise<PageResult> {
  const token = String((request.query as Form).token ?? '');
  await d.passwordReset.check(token);
  const v = ResetPasswordView({ csrf: ctx.csrf, token, email: '' });
  return view(v.title, v.body);
}

/** Sets the password, or re-renders with the field's error. */
async function resetSubmit(d: SigninPagesDeps, request: FastifyRequest, ctx: PublicPageContext): Promise<PageResult> {
  const token = field(request.body, 'token');
  try {
    await d.passwordReset.reset(token, field(request.body, 'password'), field(request.body, 'password2'));
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    const v = ResetPasswordView({ csrf: ctx.csrf, token, email: '', errors: { [err.field]: problem(err) } });
    return view(v.title, v.body, { status: 422 });
  }
  return redirect('/admin/login', { kind: 'success', key: 'users.passwordResetDone' });
}

/** Registers the sign-in pages (after installUi). */
export function registerSigninPages(app: FastifyInstance, d: SigninPagesDeps): void {
  registerPages(app, [
    publicPage('GET', '/admin/login/twofa', (req, ctx) => twofaForm(d, req, ctx)),
    publicPage('GET', '/admin/forgot', (_req, ctx) => {
      const v = ForgotPasswordView({ csrf: ctx.csrf });
      return view(v.title, v.body);
    }),
    publicPage('POST', '/admin/forgot', (req, ctx) => forgotSubmit(d, req, ctx)),
    publicPage('GET', '/admin/reset', (req, ctx) => resetForm(d, req, ctx)),
    publicPage('POST', '/admin/reset', (req, ctx) => resetSubmit(d, req, ctx)),
  ]);
  registerTwofaSubmit(app, d);
}
