/**
 * Authentication (issue "Foundation" §5, spec part 5, issue 14 finding 1): HTTP Basic credentials, or
 * listmonk's `Authorization: token <user>:<password>` form of the same pair. Whether a request needs
 * them is decided on the route the router matched, never on the URL string: every route needs
 * credentials unless its route-table entry says `config: { public: true }` (public subscription, pages
 * linked from e-mails, `/health`). Matching the raw URL against prefixes let `/%61pi/settings` and
 * `GET http://x/api/subscribers` through, because the router decodes and strips what the prefix test
 * did not. A request that matches no route goes to the not-found handler (404) without a check.
 * Failures are 401 with `WWW-Authenticate` (listmonk v4+ answers 403; see docs/differences-from-listmonk.md).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequestsError, UnauthorizedError } from '../errors.js';
import { LoginThrottle } from './security.js';

/** Something that can check a user name and password. */
export interface CredentialVerifier {
  verify(username: string, password: string): Promise<boolean>;
}

/** Route config flag: this route answers without credentials. */
export interface PublicRouteConfig {
  public?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers without credentials (public subscription, pages linked from e-mails). */
    public?: boolean;
  }
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
 * Adds the authentication hook to `app`. Each check of a password is reserved with the throttle before
 * the hash starts and settled after (issue 14 finding 5), so a client has at most the throttle's limit
 * of checks failed or in flight; malformed credentials count as a failure without a check. Past the
 * limit the client gets 429 with `Retry-After` (issue "Trustworthy" §3).
 */
export function installAuth(app: FastifyInstance, verifier: CredentialVerifier, throttle = new LoginThrottle()): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!needsCredentials(request)) return;
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
    let ok: boolean;
    try {
      ok = await verifier.verify(creds[0], creds[1]);
    } catch (err) {
      attempt.cancelled();
      throw err;
    }
    if (ok) return attempt.succeeded();
    attempt.failed();
    throw new UnauthorizedError('invalid credentials');
  });
}
