/**
 * OpenID Connect sign-in with one provider (issue 16 "Sign-in" item 4; listmonk `cmd/auth.go`
 * OIDCLogin/OIDCFinish, `internal/auth/auth.go`), with `openid-client`: the authorisation code flow
 * with PKCE (S256), `state` and `nonce`, scopes `openid profile email`, redirect URL
 * `<root_url>/auth/oidc` (listmonk's: the start and the callback share the path).
 *
 * Nothing is kept in process memory between the two requests (issue 16: any instance serves the
 * callback): {@link OidcService.start} stores the nonce, the PKCE verifier and where to go afterwards in
 * `oidc_logins` under the SHA-256 of the state, and the browser keeps the state in a short-lived
 * cookie; {@link OidcService.finish} takes the row (once), refuses a state that is not the cookie's
 * (an attacker's callback link opened in a victim's browser), exchanges the code, and checks the ID
 * token's signature, issuer, audience and nonce (openid-client). Only the provider's metadata and keys
 * are cached per process, as listmonk does.
 *
 * The user is the enabled `user`-type user whose e-mail equals the e-mail claim (ID token, else the
 * userinfo endpoint, as listmonk). A claim the provider marks `email_verified: false` is refused (not
 * checked by listmonk). With `auto_create_users`, an unknown e-mail becomes a user with the default
 * roles, no password and password login off (listmonk createOIDCUser). The session is the same as after
 * a password (SessionService.start); the provider did the authentication, so no TOTP step follows.
 */
import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import type { Logger } from 'pino';
import { isDbError, SqlState, type Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { BadRequestError, ForbiddenError, NotFoundError, ServiceUnavailableError, UnauthorizedError } from '../../errors.js';
import { isLoopbackHost, providerUrlProblem, type OidcSetting } from './oidc-settings.js';
import { sameToken, type SessionOrigin, type SessionService } from './sessions.js';

const Q = loadQueries(new URL('./oidc.sql', import.meta.url), [
  'oidc-login-insert',
  'oidc-login-take',
  'oidc-logins-delete-old',
  'oidc-user-by-email',
  'oidc-user-insert',
  'oidc-user-avatar',
]);

/** The cookie that holds the state between the start and the callback. */
export const OIDC_STATE_COOKIE = 'oidc_state';
/** How long a started sign-in may take at the provider (s): 10 minutes. */
export const OIDC_LOGIN_TTL_S = 600;
/** How long the provider's metadata is reused before discovery runs again (ms). */
const METADATA_TTL_MS = 10 * 60_000;
/** Timeout of each request to the provider (s). */
const PROVIDER_TIMEOUT_S = 10;

/** Collaborators of the {@link OidcService}; settings are read at each request. */
export interface OidcOptions {
  settings: () => OidcSetting;
  /** `app.root_url`: the redirect URL is `<root_url>/auth/oidc`. */
  rootUrl: () => string;
  logger: Logger;
}

/** What {@link OidcService.start} gives the route: where to send the browser, and the cookie's state. */
export interface OidcStart {
  url: string;
  state: string;
}

/** A finished OIDC sign-in: the session's cookie token, the user, and where to go now. */
export interface OidcSignedIn {
  token: string;
  userId: number;
  next: string;
}

/** The claims used from the ID token or userinfo. */
interface Claims {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  preferred_username?: unknown;
  picture?: unknown;
}

/**
 * Where to go after sign-in: a local `/admin` path (as the login page's `next`, src/ui/pages.ts
 * safeNext; listmonk utils.SanitizeURI keeps any local path), else `/admin`. No open redirect.
 */
export function safeNext(raw: string | undefined): string {
  const next = (raw ?? '').trim();
  if (!/^\/(?![/\\])/u.test(next) || /[\u0000-\u001f\u007f\\]/u.test(next) || next.length > 2000) return '/admin';
  return next === '/admin' || next.startsWith('/admin/') || next.startsWith('/admin?') ? next : '/admin';
}

function digest(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** Starts and finishes OIDC sign-ins. */
export class OidcService {
  private cached: { key: string; at: number; config: Promise<client.Configuration> } | null = null;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly opts: OidcOptions,
  ) {}

  /** True when OIDC sign-in is turned on (the login page shows its button). */
  enabled(): boolean {
    return this.opts.settings().enabled;
  }

  /**
   * The login page's OIDC button while OIDC is on, else null: the provider's name (`provider_name`,
   * else the provider URL's host, as listmonk) and where the button posts.
   */
  loginOption(): { name: string; action: string } | null {
    const s = this.opts.settings();
    if (!s.enabled) return null;
    let host = '';
    try {
      host = new URL(s.provider_url).hostname;
    } catch {
      // a malformed URL is refused on write; an old stored one shows no host
    }
    return { name: s.provider_name.trim() || host || 'OpenID Connect', action: '/auth/oidc' };
  }

  /** The redirect URL to register with the provider: `<root_url>/auth/oidc`. */
  redirectUri(): string {
    return `${this.opts.rootUrl().replace(/\/+$/u, '')}/auth/oidc`;
  }

  /** The setting, or NotFoundError when OIDC sign-in is off (listmonk registers no route then). */
  private setting(): OidcSetting {
    const s = this.opts.settings();
    if (!s.enabled) throw new NotFoundError('OIDC sign-in is not enabled');
    return s;
  }

  /** The provider's configuration (discovery), reused for {@link METADATA_TTL_MS}; ServiceUnavailableError when unreachable. */
  private async config(s: OidcSetting): Promise<client.Configuration> {
    const key = JSON.stringify([s.provider_url, s.client_id, s.client_secret]);
    if (this.cached === null || this.cached.key !== key || Date.now() - this.cached.at > METADATA_TTL_MS) {
      const problem = providerUrlProblem(s.provider_url.trim());
      if (problem !== null) throw new ServiceUnavailableError(`OIDC sign-in is misconfigured: ${problem}`);
      const url = new URL(s.provider_url.trim());
      const insecure = url.protocol === 'http:' && isLoopbackHost(url.hostname);
      const auth = s.client_secret === '' ? client.None() : client.ClientSecretPost(s.client_secret);
      const config = client.discovery(url, s.client_id, undefined, auth, { timeout: PROVIDER_TIMEOUT_S, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) });
      this.cached = { key, at: Date.now(), config };
    }
    const entry = this.cached;
    try {
      return await entry.config;
    } catch (err) {
      if (this.cached === entry) this.cached = null;
      this.opts.logger.warn({ err, provider_url: s.provider_url }, 'OIDC discovery failed');
      throw new ServiceUnavailableError('the sign-in provider cannot be reached; try again later');
    }
  }

  /**
   * Starts a sign-in: stores state, nonce and PKCE verifier (for {@link OIDC_LOGIN_TTL_S}) and returns
   * the provider's authorisation URL and the state for the cookie. `next` is sanitised ({@link safeNext}).
   * Throws NotFoundError when OIDC is off, ServiceUnavailableError when the provider cannot be reached.
   */
  async start(next: string | undefined): Promise<OidcStart> {
    const s = this.setting();
    const config = await this.config(s);
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    const challenge = await client.calculatePKCECodeChallenge(verifier);
    // Starting needs no credentials: rows of abandoned starts go at once, so the table holds at most
    // OIDC_LOGIN_TTL_S worth of them however often someone starts (an index on expires_at).
    await this.purgeExpired();
    await this.db.run(Q['oidc-login-insert'], { id: digest(state), nonce, code_verifier: verifier, next: safeNext(next), ttl_s: OIDC_LOGIN_TTL_S });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: 'openid profile email',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state };
  }

  /**
   * Finishes a sign-in from the provider's redirect: `query` is the callback's query string (`code`,
   * `state`, `iss`, or `error`), `cookieState` the {@link OIDC_STATE_COOKIE} value. Returns the new
   * session's cookie token. Throws UnauthorizedError for a missing, foreign, used or expired state, a
   * failed code exchange or a bad ID token; BadRequestError when the provider reported an error or gave
   * no usable e-mail; ForbiddenError when no enabled user has the e-mail (and auto-creation is off).
   */
  async finish(query: string, cookieState: string | undefined, origin: SessionOrigin): Promise<OidcSignedIn> {
    const s = this.setting();
    const params = new URLSearchParams(query);
    const state = params.get('state') ?? '';
    if (state === '' || cookieState === undefined || !sameToken(state, cookieState)) {
      throw new UnauthorizedError('invalid or expired sign-in request: start the sign-in again');
    }
    const [login] = await this.db.run<{ nonce: string; code_verifier: string; next: string; live: boolean }>(Q['oidc-login-take'], { id: digest(state) });
    if (login === undefined || !login.live) throw new UnauthorizedError('invalid or expired sign-in request: start the sign-in again');
    const error = params.get('error');
    if (error !== null) throw new BadRequestError(`the sign-in provider refused: ${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`);
    const config = await this.config(s);
    const claims = await this.claims(config, query, state, login);
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (email === '' || email.length > 1000 || !/^[^\s@]+@[^\s@]+$/u.test(email)) throw new BadRequestError('email: the sign-in provider gave no e-mail address');
    if (claims.email_verified === false) throw new BadRequestError('email: the sign-in provider has not verified this e-mail address');
    const userId = await this.user(email, claims, s);
    if (typeof claims.picture === 'string' && /^https:\/\//u.test(claims.picture) && claims.picture.length <= 2000) {
      await this.db.run(Q['oidc-user-avatar'], { id: userId, avatar: claims.picture });
    }
    const token = await this.sessions.start(userId, origin);
    return { token, userId, next: login.next };
  }

  /** Exchanges the code and returns the ID token's claims, or the userinfo's when they lack the e-mail. */
  private async claims(config: client.Configuration, query: string, state: string, login: { nonce: string; code_verifier: string }): Promise<Claims> {
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, new URL(`${this.redirectUri()}?${query}`), {
        pkceCodeVerifier: login.code_verifier,
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      this.opts.logger.warn({ err }, 'OIDC code exchange failed');
      throw new UnauthorizedError(`the sign-in could not be completed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const idClaims = (tokens.claims() ?? {}) as Claims;
    if (typeof idClaims.email === 'string' && idClaims.email !== '') return idClaims;
    try {
      const info = (await client.fetchUserInfo(config, tokens.access_token, String(idClaims.sub))) as Claims;
      return { ...idClaims, ...info };
    } catch (err) {
      this.opts.logger.warn({ err }, 'OIDC userinfo request failed');
      throw new UnauthorizedError('the sign-in provider did not give the user\'s details');
    }
  }

  /** The id of the enabled sign-in user with `email`, created when auto-creation is on; ForbiddenError otherwise. */
  private async user(email: string, claims: Claims, s: OidcSetting): Promise<number> {
    const [found] = await this.db.run<{ id: number; type: string; status: string }>(Q['oidc-user-by-email'], { email });
    if (found !== undefined) {
      if (found.type !== 'user' || found.status !== 'enabled') throw new ForbiddenError(`no enabled user may sign in with ${email}`);
      return found.id;
    }
    if (!s.auto_create_users) throw new ForbiddenError(`no user has the e-mail ${email}: ask an administrator to add one`);
    const name = [claims.name, claims.preferred_username].find((n): n is string => typeof n === 'string' && n.trim() !== '')?.trim() ?? email.split('@')[0]!;
    try {
      const [row] = await this.db.run<{ id: number }>(Q['oidc-user-insert'], {
        email,
        name: name.slice(0, 2000),
        user_role_id: s.default_user_role_id,
        list_role_id: s.default_list_role_id,
      });
      if (row === undefined) throw new ServiceUnavailableError('OIDC sign-in is misconfigured: security.oidc.default_user_role_id or default_list_role_id names no role of that type');
      this.opts.logger.info({ user_id: row.id, email }, 'user created on first OIDC sign-in');
      return row.id;
    } catch (err) {
      // Two first sign-ins at once, or a user whose user name is this address: use the row that won.
      if (!isDbError(err, SqlState.uniqueViolation)) throw err;
      const [again] = await this.db.run<{ id: number; type: string; status: string }>(Q['oidc-user-by-email'], { email });
      if (again?.type === 'user' && again.status === 'enabled') return again.id;
      throw new ForbiddenError(`a user with the user name ${email} exists already: ask an administrator`);
    }
  }

  /** Deletes sign-ins that were started and never finished; safe to run from every instance. */
  async purgeExpired(): Promise<void> {
    await this.db.run(Q['oidc-logins-delete-old']);
  }
}
