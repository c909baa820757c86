/**
 * Admin sessions (issue 16 "Sign-in" item 4), stored in the database so any instance serves any
 * request (no sticky sessions). The browser holds a random 256-bit token in the `session` cookie
 * (HttpOnly, SameSite=Lax, Secure when the root URL is https; listmonk's cookie name); the table holds
 * only its SHA-256, so a copy of the table signs nobody in. Each session has its own CSRF token, which
 * every state-changing request made with the cookie must carry (src/http/auth.ts).
 *
 * Expiry: absolute {@link SESSION_ABSOLUTE_S} (7 days, listmonk's max-age) and idle
 * {@link SESSION_IDLE_S} (12 hours without a request). `seen_at` is written at most once a minute.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import type { Principal } from '../../http/access.js';
import { principalRowById, toPrincipal } from '../users/principal.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'session-insert',
  'session-get',
  'session-touch',
  'session-complete-twofa',
  'session-delete',
  'sessions-delete-for-user',
  'sessions-delete-expired',
  'user-logged-in',
]);

/** The session cookie's name (listmonk's). */
export const SESSION_COOKIE = 'session';
/** Absolute session lifetime (s): 7 days, listmonk's cookie max-age. */
export const SESSION_ABSOLUTE_S = 7 * 24 * 3600;
/** Idle timeout (s): a session unused for 12 hours ends. */
export const SESSION_IDLE_S = 12 * 3600;
/** `seen_at` is refreshed when older than this (s), so a busy page does not write on every request. */
const TOUCH_S = 60;

/** A random token for a cookie or a form: 32 bytes, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored id of a session token: its SHA-256, hex. */
export function sessionId(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two tokens (false when lengths differ). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A session as found from its cookie. */
export interface FoundSession {
  principal: Principal;
  /** Signed in with the password but still owing the TOTP code: grants nothing but the 2FA form. */
  twofaPending: boolean;
}

/** Where a session was started from, kept for the user's own view of their sessions. */
export interface SessionOrigin {
  ip: string;
  userAgent: string;
}

/** Creates, finds and ends admin sessions. */
export class SessionService {
  constructor(private readonly db: Db) {}

  /**
   * Starts a session for `userId`; returns the cookie token (shown to the browser once, never stored).
   * With `twofaPending`, the session only lets the user give the TOTP code.
   */
  async start(userId: number, origin: SessionOrigin, twofaPending = false): Promise<string> {
    const token = randomToken();
    await this.db.run(Q['session-insert'], {
      id: sessionId(token),
      user_id: userId,
      csrf: randomToken(),
      twofa_pending: twofaPending,
      ip: origin.ip,
      user_agent: origin.userAgent.slice(0, 500),
      absolute_s: SESSION_ABSOLUTE_S,
    });
    if (!twofaPending) await this.db.run(Q['user-logged-in'], { id: userId });
    return token;
  }

  /**
   * The live session for a cookie token, with its user's principal, or null when the token is unknown,
   * expired, idle too long, or its user is disabled or gone.
   */
  async find(token: string): Promise<FoundSession | null> {
    if (!/^[A-Za-z0-9_-]{20,100}$/u.test(token)) return null;
    const id = sessionId(token);
    const [s] = await this.db.run<{ id: string; user_id: number; csrf: string; twofa_pending: boolean; stale: boolean }>(Q['session-get'], {
      id,
      idle_s: SESSION_IDLE_S,
      touch_s: TOUCH_S,
    });
    if (s === undefined) return null;
    const row = await principalRowById(this.db, s.user_id);
    if (row === null || row.type !== 'user') return null;
    if (s.stale) await this.db.run(Q['session-touch'], { id });
    return { principal: toPrincipal(row, 'session', { id, csrf: s.csrf }), twofaPending: s.twofa_pending };
  }

  /**
   * Completes a session that was waiting for the TOTP code: it gets a new token (so a token seen before
   * the second factor is worth nothing after it) and a new CSRF token. Returns the new cookie token, or
   * null when the session was not pending.
   */
  async completeTwofa(token: string, userId: number): Promise<string | null> {
    const next = randomToken();
    const rows = await this.db.run(Q['session-complete-twofa'], { id: sessionId(token), new_id: sessionId(next), csrf: randomToken() });
    if (rows.length === 0) return null;
    await this.db.run(Q['user-logged-in'], { id: userId });
    return next;
  }

  /** Ends the session of a cookie token (logout). Unknown tokens are ignored. */
  async end(token: string): Promise<void> {
    await this.db.run(Q['session-delete'], { id: sessionId(token) });
  }

  /** Ends every session of a user (password changed, disabled, deleted). */
  async endAll(userId: number): Promise<void> {
    await this.db.run(Q['sessions-delete-for-user'], { user_id: userId });
  }

  /** Deletes expired and idle sessions; safe to run from every instance. */
  async purgeExpired(): Promise<void> {
    await this.db.run(Q['sessions-delete-expired'], { idle_s: SESSION_IDLE_S });
  }
}
