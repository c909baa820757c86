/**
 * Authentication and authorisation (issue "Foundation" §5, spec part 5, issue 14 finding 1, issue 16):
 * HTTP Basic credentials or listmonk's `Authorization: token <user>:<token>` (API users and the legacy
 * MAILROOM_ADMIN_USER), or the admin UI's `session` cookie. With both, the Authorization header wins
 * (listmonk ignores it when a session cookie is present, a v3→v4 upgrade hack; a script that sends a
 * header means it). Every authenticated request gets `request.principal`; the route's declared
 * `config.permission` (src/http/access.ts) is then checked: 403 `permission denied: <perm>` without it.
 * A route that declares none is allowed to the Super Admin only (fail closed). A request made with the
 * cookie that changes state must carry the session's CSRF token (`X-CSRF-Token` header or `_csrf` form
 * field), else 403. An admin page without a signed-in user redirects to `/admin/login?next=…`; the API
 * answers 401. Whether a request needs
 * them is decided on the route the router matched, never on the URL string: every route needs
 * credentials unless its route-table entry says `config: { public: true }` (public subscription, pages
 * linked from e-mails, `/health`). Matching the raw URL against prefixes let `/%61pi/settings` and
 * `GET http://x/api/subscribers` through, because the router decodes and strips what the prefix test
 * did not. A request that matches no route goes to the not-found handler (404) without a check.
 * Failures are 401 with `WWW-Authenticate` (listmonk v4+ answers 403; see docs/differences-from-listmonk.md).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../errors.js';
import { allows, deniedName, isSuperAdmin, type Principal } from './access.js';
import { LoginThrottle } from './security.js';

/** Something that can check API credentials: the principal they belong to, or null when wrong. */
export interface CredentialVerifier {
  authenticate(username: string, secret: string): Promise<Principal | null>;
}

/** Something that can find the signed-in user of a session cookie. */
export interface SessionFinder {
  find(token: string): Promise<{ principal: Principal; twofaPending: boolean } | null>;
}

/** Route config flag: this route answers without credentials. */
export interface PublicRouteConfig {
  public?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers without credentials (public subscription, pages linked from e-mails). */
    public?: boolean;
    /** The route serves a session still waiting for its TOTP code (the 2FA form). */
    twofa?: boolean;
  }
}

/** Methods that change nothing and need no CSRF token (RFC 9110 §9.2.1 safe methods). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when the matched route is an admin page (HTML), which redirects to sign-in instead of a 401. */
export function isAdminPage(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? '';
  return url === '/admin' || url.startsWith('/admin/');
}

/** The sign-in URL that returns to the current page afterwards. */
export function loginRedirect(request: FastifyRequest): string {
  return `/admin/login?next=${encodeURIComponent(request.url)}`;
}

/** True for C0 control characters and DEL, which RFC 7617 §2 forbids in a user-id and a password. */
const CONTROL = /[\u0000-\u001f\u007f]/u;

/**
 * Extracts `[user, password]` from an Authorization header value, or null when it is absent, not one of
 * the two accepted schemes, or malformed: no `:`, an empty user name, or a control character (NUL
 * included) in either part (RFC 7617 §2; issue 14 finding 9: a NUL reached the database and answered
 * 400 without being counted). Basic is case-insensitive (RFC 7617); `token` as listmonk sends it.
 */
export function parseAuthorization(header: string | undefined): [string, string] | null {
  if (header === undefined) return null;
  const m = /^\s*(\S+)\s+(\S+)\s*$/u.exec(header);
  if (!m) return null;
  const scheme = (m[1] as string).toLowerCase();
  let pair: string;
  if (scheme === 'basic') {
    if (!/^[A-Za-z0-9+/]+={0,2}$/u.test(m[2] as string)) return null;
    pair = Buffer.from(m[2] as string, 'base64').toString('utf8');
  } else if (scheme === 'token') {
    pair = m[2] as string;
  } else return null;
  const colon = pair.indexOf(':');
  if (colon <= 0 || CONTROL.test(pair)) return null;
  return [pair.slice(0, colon), pair.slice(colon + 1)];
}

/**
 * True when the request needs credentials: it matched a route (unmatched requests answer 404) and that
 * route is not marked `config: { public: true }`. Decided on Fastify's matched route only.
 */
export function needsCredentials(request: FastifyRequest): boolean {
  if (request.is404) return false;
  const config = request.routeOptions.config as PublicRouteConfig | undefined;
  return config?.public !== true;
}

/** The throttle's key for one credential pair (a digest: the password is not kept in memory as is). */
function credentialKey(user: string, password: string): string {
  return createHash('sha256').update(`${user}\u0000${password}`).digest('base64');
}

function tooMany(reply: FastifyReply, waitMs: number): TooManyRequestsError {
  void reply.header('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
  return new TooManyRequestsError('too many failed logins from this address; try again later');
}

/**
 * Adds the authentication and permission hooks to `app`. Each check of an API password is reserved
 * with the throttle before the hash starts and settled after (issue 14 finding 5), so a client has at
 * most the throttle's limit of checks failed or in flight; malformed credentials count as a failure
 * without a check. Past the limit the client gets 429 with `Retry-After` (issue "Trustworthy" §3).
 * Needs @fastify/cookie registered first.
 */
export function installAuth(app: FastifyInstance, verifier: CredentialVerifier, sessions: SessionFinder, opts: AuthOptions = {}): void {
  const throttle = opts.throttle ?? new LoginThrottle();
  const refuse = async (request: FastifyRequest, reply: FastifyReply, message: string): Promise<unknown> => {
    if (opts.pageDenied && isAdminPage(request)) return opts.pageDenied(request, reply, 403, message);
    throw new ForbiddenError(message);
  };
  app.addHook('onRequest', async (request, reply) => {
    if (!needsCredentials(request)) return;
    const header = request.headers.authorization;
    const cookie = request.cookies?.session;
    let principal: Principal | null;
    if (header === undefined && (cookie === undefined || cookie === '') && isAdminPage(request)) {
      return reply.redirect(loginRedirect(request), SAFE_METHODS.has(request.method) ? 302 : 303);
    }
    if (header !== undefined || cookie === undefined || cookie === '') {
      principal = await apiPrincipal(request, reply, verifier, throttle);
    } else {
      const found = await sessions.find(cookie);
      principal = found !== null && (!found.twofaPending || request.routeOptions.config.twofa === true) ? found.principal : null;
      if (principal === null) {
        if (isAdminPage(request)) return reply.redirect(loginRedirect(request), SAFE_METHODS.has(request.method) ? 302 : 303);
        throw new UnauthorizedError('invalid session: sign in again');
      }
    }
    request.principal = principal;
    const access = request.routeOptions.config.permission;
    if (access === undefined ? !isSuperAdmin(principal) : !allows(principal, access)) {
      return refuse(request, reply, `permission denied: ${access === undefined ? 'super admin' : deniedName(access)}`);
    }
  });
  // After the body is parsed (form fields), before validation: a cookie request that changes state
  // carries the session's CSRF token. Multipart bodies are parsed later, so they must send the header.
  app.addHook('preValidation', async (request, reply) => {
    const session = request.principal?.session;
    if (session == null || SAFE_METHODS.has(request.method)) return;
    const given = request.headers['x-csrf-token'] ?? (request.body as { _csrf?: unknown } | undefined)?._csrf;
    if (typeof given !== 'string' || !sameString(given, session.csrf)) return refuse(request, reply, 'invalid or missing CSRF token: reload the page and try again');
  });
}

/** Options of {@link installAuth}. */
export interface AuthOptions {
  /** The API's failed-login throttle (one per app). */
  throttle?: LoginThrottle;
  /** Answers a refused admin page (403) with an HTML page instead of JSON. */
  pageDenied?: (request: FastifyRequest, reply: FastifyReply, status: number, message: string) => Promise<unknown>;
}

/** Constant-time string comparison. */
function sameString(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return x.equals(y) && a.length === b.length;
}

/** The principal of the request's Authorization header; throws 401 or 429 when there is none. */
async function apiPrincipal(request: FastifyRequest, reply: FastifyReply, verifier: CredentialVerifier, throttle: LoginThrottle): Promise<Principal> {
  const wait = throttle.retryAfter(request.ip);
  if (wait > 0) throw tooMany(reply, wait);
  const header = request.headers.authorization;
  if (header === undefined) throw new UnauthorizedError('authentication required: send HTTP Basic credentials');
  const creds = parseAuthorization(header);
  if (creds === null) {
    throttle.fail(request.ip);
    throw new UnauthorizedError('invalid credentials');
  }
  const attempt = throttle.reserve(request.ip, credentialKey(creds[0], creds[1]));
  if (attempt === null) throw tooMany(reply, throttle.retryAfter(request.ip));
  let principal: Principal | null;
  try {
    principal = await verifier.authenticate(creds[0], creds[1]);
  } catch (err) {
    attempt.cancelled();
    throw err;
  }
  if (principal !== null) {
    attempt.succeeded();
    return principal;
  }
  attempt.failed();
  throw new UnauthorizedError('invalid credentials');
}
