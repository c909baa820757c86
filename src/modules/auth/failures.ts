/**
 * Failed sign-in attempts counted in the database (login_failures), shared by the password form
 * (login.ts), the TOTP step and 2FA changes that ask for the password (twofa.ts): the same queries,
 * limit and window, so a client cannot guess codes faster than passwords and the limit holds across
 * instances. Keys are `ip:<address>` (as login.ts) and, for the second factor, `twofa:<user id>`, so
 * guesses spread over many addresses still lock the one account they aim at.
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { TooManyRequestsError } from '../../errors.js';

/** Failed sign-ins allowed per key per window. */
export const LOGIN_MAX_FAILURES = 10;
/** The failure window (s). */
export const LOGIN_WINDOW_S = 15 * 60;

const Q = loadQueries(new URL('./failures.sql', import.meta.url), ['login-failure-get', 'login-failure-add', 'login-failure-clear', 'login-failures-delete-old']);

/** The failure key of a client address (login.ts uses the same). */
export function ipKey(ip: string): string {
  return `ip:${ip}`;
}

/** The failure key of one user's second factor. */
export function twofaKey(userId: number): string {
  return `twofa:${userId}`;
}

/** Counts, checks and clears failures for a set of keys. */
export class FailureCounter {
  constructor(private readonly db: Db) {}

  /**
   * Throws TooManyRequestsError (429) when any of `keys` is locked: {@link LOGIN_MAX_FAILURES} failures
   * within {@link LOGIN_WINDOW_S}, as the password form.
   */
  async check(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const [state] = await this.db.run<{ failures: number; locked_ms: number }>(Q['login-failure-get'], { key });
      if (state !== undefined && state.locked_ms > 0) {
        throw new TooManyRequestsError(`too many failed sign-ins; try again in ${Math.ceil(state.locked_ms / 60_000)} min`);
      }
    }
  }

  /** Counts one failure against each key. */
  async fail(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.db.run(Q['login-failure-add'], { key, window_s: LOGIN_WINDOW_S, max: LOGIN_MAX_FAILURES });
  }

  /** Forgets the failures of each key (after a success). */
  async clear(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.db.run(Q['login-failure-clear'], { key });
  }

  /** Deletes counts whose window ended more than a day ago (sign-in housekeeping); safe from every instance. */
  async purgeExpired(): Promise<void> {
    await this.db.run(Q['login-failures-delete-old'], { window_s: LOGIN_WINDOW_S });
  }
}
