/**
 * Authentication for `/api` (issue "Foundation" §5, spec part 5): HTTP Basic credentials, or listmonk's
 * `Authorization: token <user>:<password>` form of the same pair. Routes marked `config: { public: true }`
 * (public subscription, public lists) skip it. Failures are 401 with `WWW-Authenticate` (listmonk v4+
 * answers 403; see docs/differences-from-listmonk.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/**
 * Extracts `[user, password]` from an Authorization header value, or null when it is absent or not
 * one of the two accepted schemes. Basic is case-insensitive (RFC 7617); `token` as listmonk sends it.
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
  if (colon <= 0) return null;
  return [pair.slice(0, colon), pair.slice(colon + 1)];
}

const PROTECTED_PREFIXES = ['/api', '/metrics'];

/** True when the request needs credentials: any `/api` route (and `/metrics`) not marked public. */
function needsAuth(request: FastifyRequest): boolean {
  const config = request.routeOptions.config as PublicRouteConfig | undefined;
  if (config?.public === true) return false;
  const path = request.url.split('?')[0] as string;
  return PROTECTED_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * Adds the authentication hook to `app`. Wrong credentials count against the client address; past the
 * throttle's limit the client gets 429 with `Retry-After` (issue "Trustworthy" §3).
 */
export function installAuth(app: FastifyInstance, verifier: CredentialVerifier, throttle = new LoginThrottle()): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!needsAuth(request)) return;
    const wait = throttle.retryAfter(request.ip);
    if (wait > 0) {
      void reply.header('Retry-After', String(Math.ceil(wait / 1000)));
      throw new TooManyRequestsError('too many failed logins from this address; try again later');
    }
    const header = request.headers.authorization;
    if (header === undefined) throw new UnauthorizedError('authentication required: send HTTP Basic credentials');
    const creds = parseAuthorization(header);
    if (creds === null || !(await verifier.verify(creds[0], creds[1]))) {
      throttle.fail(request.ip);
      throw new UnauthorizedError('invalid credentials');
    }
  });
}
