/**
 * Password sign-in and first-run setup for the admin UI (issue 16 "Sign-in"; listmonk reference §3.1):
 * `user`-type users with password login on and status enabled; a minimum response time so a wrong
 * user name and a wrong password take as long (listmonk: 100 ms; here {@link MIN_LOGIN_MS}); failed
 * attempts counted per client address in the database, so the limit holds across instances. With no
 * sign-in user yet, the login page is the first-run form that creates the Super Admin (listmonk's).
 */
import { isDbError, SqlState, type Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { FieldError } from '../../errors.js';
import { principalRowByUsername } from '../users/principal.js';
import { generatePassword, hashPassword, verifyPassword } from '../users/service.js';
import type { SessionOrigin, SessionService } from './sessions.js';
import { sleep } from '../../util/sleep.js';
import { FailureCounter, ipKey } from './failures.js';

const Q = loadQueries(new URL('./login.sql', import.meta.url), ['login-user-count', 'login-setup-insert']);

/** Shortest time a sign-in attempt takes (ms), right or wrong. */
export const MIN_LOGIN_MS = 300;
/** The failure limit and window, shared with the TOTP step (failures.ts). */
export { LOGIN_MAX_FAILURES, LOGIN_WINDOW_S } from './failures.js';
// Any fixed 64-bit number; only has to be the same in every instance.
const SETUP_LOCK_KEY = 7_305_861_990_113;

/** The outcome of a correct password: a session token, and whether it still owes the TOTP code. */
export interface SignedIn {
  token: string;
  userId: number;
  twofaPending: boolean;
}

/** Why a sign-in failed, for the login page (never which of user name and password was wrong). */
export class LoginError extends Error {}

/** The first-run form's fields (listmonk's: email, username, password, password2). */
export interface SetupInput {
  email: string;
  username: string;
  password: string;
  password2: string;
}

/** Signs users in with a password, and creates the first user. */
export class LoginService {
  private dummyHash: Promise<string> | null = null;
  private readonly failures: FailureCounter;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
  ) {
    this.failures = new FailureCounter(db);
  }

  /** True when no sign-in user exists yet (the login page shows the first-run form). */
  async needsSetup(): Promise<boolean> {
    const [row] = await this.db.run<{ n: number }>(Q['login-user-count']);
    return (row?.n ?? 0) === 0;
  }

  /**
   * Checks `username`/`password` and starts a session. Throws {@link LoginError} for wrong credentials
   * (one message for every reason), TooManyRequestsError past the failure limit for `origin.ip`.
   * Always takes at least {@link MIN_LOGIN_MS}.
   */
  async signIn(username: string, password: string, origin: SessionOrigin): Promise<SignedIn> {
    const started = Date.now();
    try {
      return await this.check(username, password, origin);
    } finally {
      const left = MIN_LOGIN_MS - (Date.now() - started);
      if (left > 0) await sleep(left);
    }
  }

  private async check(username: string, password: string, origin: SessionOrigin): Promise<SignedIn> {
    const keys = [ipKey(origin.ip)];
    await this.failures.check(keys);
    const row = username.length > 0 && username.length <= 2000 ? await principalRowByUsername(this.db, username) : null;
    const usable = row !== null && row.type === 'user' && row.password_login && row.password_hash !== null;
    this.dummyHash ??= hashPassword(generatePassword());
    const ok = await verifyPassword(password.slice(0, 2000), usable ? (row.password_hash as string) : await this.dummyHash);
    if (!usable || !ok) {
      await this.failures.fail(keys);
      throw new LoginError('wrong user name or password');
    }
    await this.failures.clear(keys);
    const twofaPending = row.twofa_type === 'totp';
    const token = await this.sessions.start(row.id, origin, twofaPending);
    return { token, userId: row.id, twofaPending };
  }

  /**
   * Creates the first Super Admin (role 1) and signs it in; refused once any sign-in user exists.
   * Validation as listmonk's user rules (reference §15): username 3–2000 of letters, digits and
   * `_-.@`; a valid e-mail; password 8–2000 and repeated. Throws FieldError naming the field.
   */
  async setup(input: SetupInput, origin: SessionOrigin): Promise<SignedIn> {
    const username = input.username.trim();
    const email = input.email.trim();
    if (!/^[A-Za-z0-9_.@-]{3,2000}$/u.test(username)) throw new FieldError('username', 'must be 3 to 2000 letters, digits or _ - . @');
    if (email.length > 1000 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/u.test(email)) throw new FieldError('email', 'is not a valid e-mail address');
    if (input.password.length < 8 || input.password.length > 2000) throw new FieldError('password', 'must be 8 to 2000 characters');
    if (input.password !== input.password2) throw new FieldError('password2', 'does not match the password');
    const hash = await hashPassword(input.password);
    let id: number | null;
    try {
      id = await this.db.tx(async (q) => {
        await q.sql('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY]);
        const [row] = await q.run<{ id: number }>(Q['login-setup-insert'], { username, email, password_hash: hash });
        return row?.id ?? null;
      });
    } catch (err) {
      // The legacy MAILROOM_ADMIN_USER (an API user) may hold the name already.
      if (isDbError(err, SqlState.uniqueViolation)) throw new FieldError('username', 'is already taken by an API user; choose another');
      throw err;
    }
    if (id === null) throw new FieldError('username', 'setup is already done: sign in instead');
    const token = await this.sessions.start(id, origin);
    return { token, userId: id, twofaPending: false };
  }
}
