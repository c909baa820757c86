/**
 * The sign-in pages (issue 16 "Sign-in"; listmonk's `/admin/login`, admin UI map §5.1): the login form,
 * or listmonk's first-run setup form while no sign-in user exists; both post to `POST /admin/login`.
 *
 * Before anyone is signed in there is no session to hold a CSRF token, so the form carries a
 * double-submit token: a random value in the `login_csrf` cookie (HttpOnly, SameSite=Strict, path
 * /admin) and the same value in the form's `_csrf`; a POST whose two differ is refused (login CSRF:
 * another site signing the browser in to an account of the attacker's). On success the session cookie
 * is set (HttpOnly, SameSite=Lax, Secure when the root URL is https) and the browser goes to the
 * sanitised `next` (a local /admin path only), or to the TOTP step when the user has 2FA.
 *
 * These routes set cookies, so they are registered directly rather than through `registerPages`
 * (whose handlers do not get the reply); they render with the kit's context and layout all the same.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FieldError, TooManyRequestsError } from '../../errors.js';
import { pageContext, safeNext, sendResult, view } from '../../ui/pages.js';
import { t } from '../../ui/i18n.js';
import { LoginView, SetupView, type OidcOption, type ViewParts } from '../../ui/views/auth.js';
import { LoginError, type LoginService, type SignedIn } from './login.js';
import { originOf } from './signin-routes.js';
import { randomToken, sameToken, SESSION_ABSOLUTE_S, SESSION_COOKIE, type SessionService } from './sessions.js';

/** The double-submit cookie of the sign-in forms. */
export const LOGIN_CSRF_COOKIE = 'login_csrf';

/** What the sign-in pages need. */
export interface LoginPageDeps {
  login: LoginService;
  sessions: SessionService;
  /** Cookies get `Secure` (the root URL is https). */
  secureCookies: boolean;
  /** The OIDC button while `security.oidc` is on (OidcService.loginOption), else null. */
  oidc?: { loginOption(): OidcOption | null };
}

type Form = Record<string, unknown>;
const field = (body: Form, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');

/** Registers `GET` and `POST /admin/login`, and `POST /admin/logout` (the shell's sign-out form). */
export function loginPages(app: FastifyInstance, deps: LoginPageDeps): void {
  const cookieBase = { path: '/', httpOnly: true, secure: deps.secureCookies } as const;

  /** The form's token: the one in the browser's cookie, or a new one set now. */
  const formToken = (request: FastifyRequest, reply: FastifyReply): string => {
    const have = request.cookies[LOGIN_CSRF_COOKIE];
    if (typeof have === 'string' && /^[A-Za-z0-9_-]{43}$/u.test(have)) return have;
    const token = randomToken();
    void reply.setCookie(LOGIN_CSRF_COOKIE, token, { ...cookieBase, path: '/admin', sameSite: 'strict', maxAge: 3600 });
    return token;
  };

  const render = async (request: FastifyRequest, reply: FastifyReply, parts: ViewParts, status: number) => {
    const ctx = await pageContext(app, request, reply, true);
    return sendResult(app, request, reply, ctx, view(parts.title, parts.body, { status, layout: 'auth' }));
  };

  const signedIn = async (reply: FastifyReply, done: SignedIn, next: string) => {
    void reply.setCookie(SESSION_COOKIE, done.token, { ...cookieBase, sameSite: 'lax', maxAge: SESSION_ABSOLUTE_S });
    void reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/admin' });
    const to = done.twofaPending ? `/admin/login/twofa?next=${encodeURIComponent(next)}` : next;
    return reply.status(303).header('Location', to).send('');
  };

  app.get('/admin/login', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const next = safeNext((request.query as Form).next);
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) {
      const found = await deps.sessions.find(cookie);
      if (found !== null && !found.twofaPending) return reply.redirect(next, 302);
    }
    const csrf = formToken(request, reply);
    if (await deps.login.needsSetup()) return render(request, reply, SetupView({ csrf }), 200);
    return render(request, reply, LoginView({ csrf, next, oidc: deps.oidc?.loginOption() ?? null }), 200);
  });

  app.post('/admin/login', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const next = safeNext(body.next);
    const setup = await deps.login.needsSetup();
    const given = field(body, '_csrf');
    const cookie = request.cookies[LOGIN_CSRF_COOKIE];
    if (typeof cookie !== 'string' || !sameToken(given, cookie)) {
      const csrf = formToken(request, reply);
      const error = t('users.loginFormExpired');
      return setup
        ? render(request, reply, SetupView({ csrf, email: field(body, 'email'), username: field(body, 'username'), errors: { username: error } }), 403)
        : render(request, reply, LoginView({ csrf, next, username: field(body, 'username'), error }), 403);
    }
    const origin = originOf(request);
    if (setup) {
      try {
        const done = await deps.login.setup(
          { email: field(body, 'email'), username: field(body, 'username'), password: field(body, 'password'), password2: field(body, 'password2') },
          origin,
        );
        return await signedIn(reply, done, '/admin');
      } catch (err) {
        if (!(err instanceof FieldError)) throw err;
        const errors = { [err.field]: err.message.replace(/^[^:]+: /u, '') };
        return render(request, reply, SetupView({ csrf: cookie, email: field(body, 'email'), username: field(body, 'username'), errors }), 422);
      }
    }
    try {
      return await signedIn(reply, await deps.login.signIn(field(body, 'username'), field(body, 'password'), origin), next);
    } catch (err) {
      const username = field(body, 'username');
      if (err instanceof LoginError) return render(request, reply, LoginView({ csrf: cookie, next, username, error: t('users.invalidLogin') }), 401);
      if (err instanceof TooManyRequestsError) return render(request, reply, LoginView({ csrf: cookie, next, username, error: err.message }), 429);
      throw err;
    }
  });

  // The shell's sign-out form: a signed-in POST, so the auth hook has checked its CSRF token.
  app.post('/admin/logout', { config: { permission: 'authenticated' }, schema: { hide: true } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await deps.sessions.end(token);
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.status(303).header('Location', '/admin/login').send('');
  });
}
