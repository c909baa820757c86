/**
 * Route table of two-factor enrolment and OIDC sign-in (issue 16 "Sign-in" item 4; listmonk
 * `cmd/handlers.go`):
 *
 * | Method | Path | Access | Does |
 * |---|---|---|---|
 * | GET | `/api/users/:id/twofa/totp` | own id (or Super Admin) | new TOTP secret + QR code (PNG, base64) |
 * | PUT | `/api/users/:id/twofa` | own id | turn TOTP on: `{type: "totp", secret, code}` |
 * | DELETE | `/api/users/:id/twofa` | own id | turn TOTP off: `{password}` |
 * | GET | `/auth/oidc` | public | start an OIDC sign-in; with `code`/`state`, the provider's callback |
 * | POST | `/auth/oidc` | public | start an OIDC sign-in (the login page's button, listmonk's form) |
 *
 * listmonk's 2FA handlers act on the signed-in user whatever `:id` says; here a different `:id` is
 * refused with 403. `/auth/oidc` is visited by the browser: its refusals are the admin error page (HTML,
 * same status) rather than JSON. The pages (`/admin/login/twofa`, `/admin/forgot`, `/admin/reset`) call
 * TwofaService.completeSignIn and PasswordResetService.request/check/reset.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ForbiddenError, UnauthorizedError } from '../../errors.js';
import { isSuperAdmin } from '../../http/access.js';
import { Envelope, ErrorBody, errorResponses, IdParams, TrueEnvelope } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { sendErrorPage } from '../../ui/pages.js';
import { OIDC_LOGIN_TTL_S, OIDC_STATE_COOKIE, type OidcService } from './oidc.js';
import { SESSION_ABSOLUTE_S, SESSION_COOKIE, type SessionOrigin } from './sessions.js';
import type { TwofaService } from './twofa.js';

/** What the sign-in routes need. */
export interface SigninApi {
  twofa: TwofaService;
  oidc: OidcService;
  /** `app.root_url`: cookies are Secure when it is https. */
  rootUrl: () => string;
}

/**
 * The session cookie's attributes (issue 16 "Sign-in": HttpOnly, SameSite=Lax, Secure when the root URL
 * is https, the session's absolute lifetime), the same after a password, a TOTP code or OIDC.
 */
export function sessionCookieOptions(rootUrl: string) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: /^https:/iu.test(rootUrl), path: '/', maxAge: SESSION_ABSOLUTE_S };
}

/** Sets the session cookie for `token`. */
export function setSessionCookie(reply: FastifyReply, token: string, rootUrl: string): void {
  void reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(rootUrl));
}

/** Where a request comes from, for the session and the failure counters. */
export function originOf(request: FastifyRequest): SessionOrigin {
  return { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
}

/** The id of the signed-in user when `id` is theirs (or `superAdminToo` and they are the Super Admin); 403 otherwise. */
function ownId(request: FastifyRequest, id: number, superAdminToo = false): void {
  const p = request.principal;
  if (p === undefined) throw new UnauthorizedError();
  if (p.userId !== id && !(superAdminToo && isSuperAdmin(p))) throw new ForbiddenError('permission denied: two-factor sign-in can only be changed by its own user');
}

const tags = ['users'];
const responses = { ...errorResponses, 403: ErrorBody };
const Enrolment = Type.Object({
  secret: Type.String({ description: 'The TOTP secret, base32 (for typing into the app)' }),
  qr: Type.String({ description: 'QR code of the otpauth:// URI, PNG, base64 (no data: prefix)' }),
});
const EnableBody = Type.Object({
  type: Type.Optional(Type.Literal('totp')),
  secret: Type.String({ maxLength: 200 }),
  code: Type.String({ maxLength: 20 }),
});
const DisableBody = Type.Object({ password: Type.String({ maxLength: 2000 }) });
const OidcQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  iss: Type.Optional(Type.String({ maxLength: 2000 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
const OidcStartBody = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  nonce: Type.Optional(Type.String({ maxLength: 200 })),
});
const redirect = { 302: Type.Null({ description: 'Redirect (Location)' }), ...errorResponses, 403: ErrorBody };

/** Registers the two-factor and OIDC routes. */
export function signinRoutes(app: App, api: SigninApi): void {
  const stateCookie = { httpOnly: true, sameSite: 'lax' as const, path: '/auth/oidc' };
  const startOidc = async (reply: FastifyReply, next: string | undefined) => {
    const { url, state } = await api.oidc.start(next);
    void reply.setCookie(OIDC_STATE_COOKIE, state, { ...stateCookie, secure: /^https:/iu.test(api.rootUrl()), maxAge: OIDC_LOGIN_TTL_S });
    return reply.header('Cache-Control', 'no-store').redirect(url, 302);
  };

  app.get('/api/users/:id/twofa/totp', {
    schema: { tags, summary: 'Two-factor enrolment: a new TOTP secret and its QR code (own user; listmonk GenerateTOTPQR)', params: IdParams, response: { 200: Envelope(Enrolment), ...responses } },
    config: { permission: 'authenticated' },
  }, async (request, reply) => {
    ownId(request, request.params.id, true);
    void reply.header('Cache-Control', 'no-store');
    return { data: await api.twofa.generate(request.params.id) };
  });

  app.put('/api/users/:id/twofa', {
    schema: { tags, summary: 'Turn TOTP two-factor sign-in on with a secret and a current code; ends the user\'s other sessions', params: IdParams, body: EnableBody, response: { 200: TrueEnvelope, ...responses } },
    config: { permission: 'authenticated' },
  }, async (request) => {
    ownId(request, request.params.id);
    await api.twofa.enable(request.params.id, request.body.secret, request.body.code, request.principal?.session?.id ?? null);
    return { data: true as const };
  });

  app.delete('/api/users/:id/twofa', {
    schema: { tags, summary: 'Turn two-factor sign-in off (needs the password); ends the user\'s other sessions', params: IdParams, body: DisableBody, response: { 200: TrueEnvelope, ...responses } },
    config: { permission: 'authenticated' },
  }, async (request) => {
    ownId(request, request.params.id);
    await api.twofa.disable(request.params.id, request.body.password, originOf(request), request.principal?.session?.id ?? null);
    return { data: true as const };
  });

  /** Runs `fn`; an AppError becomes the admin error page with its status and message (a browser is reading). */
  const asPage = async (request: FastifyRequest, reply: FastifyReply, fn: () => Promise<FastifyReply>): Promise<FastifyReply> => {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return sendErrorPage(app, request, reply, err.statusCode, err.message);
    }
  };

  app.get('/auth/oidc', {
    schema: { tags: ['auth'], summary: 'OIDC sign-in: starts it (redirect to the provider), or with code and state finishes it (session cookie, redirect to next)', querystring: OidcQuery, response: redirect },
    config: { public: true },
  }, async (request, reply) => asPage(request, reply, async () => {
    const q = request.query;
    if (q.code === undefined && q.state === undefined && q.error === undefined) return startOidc(reply, q.next);
    const query = request.url.slice(request.url.indexOf('?') + 1);
    void reply.clearCookie(OIDC_STATE_COOKIE, stateCookie);
    const done = await api.oidc.finish(query, request.cookies[OIDC_STATE_COOKIE], originOf(request));
    setSessionCookie(reply, done.token, api.rootUrl());
    return reply.header('Cache-Control', 'no-store').redirect(done.next, 302);
  }));

  app.post('/auth/oidc', {
    schema: { tags: ['auth'], summary: 'OIDC sign-in: starts it from the login form (redirect to the provider)', body: OidcStartBody, response: redirect },
    config: { public: true },
  }, async (request, reply) => asPage(request, reply, () => startOidc(reply, request.body?.next)));
}
