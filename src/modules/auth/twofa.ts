/**
 * TOTP two-factor sign-in (issue 16 "Sign-in" item 4; listmonk `cmd/auth.go` GenerateTOTPQR and
 * doTwofaVerify, `cmd/users.go` EnableTOTP/DisableTOTP): RFC 6238 codes of 6 digits, 30-second steps,
 * HMAC-SHA1 (what authenticator apps expect), accepted one step either side of now (clock drift).
 *
 * - Enrolment: {@link TwofaService.generate} makes a secret and its QR code; the user's app shows a
 *   code; {@link TwofaService.enable} checks that code against the secret and turns TOTP on.
 * - Turning it off needs the password ({@link TwofaService.disable}), as listmonk.
 * - Both end the user's other sessions: a session opened before the change keeps no rights from it.
 * - Sign-in: a correct password opens a session that still owes the code (SessionService, twofaPending);
 *   {@link TwofaService.completeSignIn} checks the code and turns it into a full session under a new token.
 *
 * Unlike listmonk, a code is good once: the step of the last accepted code is stored and earlier or
 * equal steps are refused (RFC 6238 §5.2), and wrong codes are counted like wrong passwords
 * (failures.ts), per address and per user.
 */
import QRCode from 'qrcode';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { BadRequestError, FieldError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../errors.js';
import { verifyPassword } from '../users/service.js';
import { FailureCounter, ipKey, twofaKey } from './failures.js';
import { sessionId, type SessionOrigin, type SessionService } from './sessions.js';

const Q = loadQueries(new URL('./twofa.sql', import.meta.url), [
  'twofa-user',
  'twofa-set',
  'twofa-use-step',
  'twofa-pending-session',
  'sessions-delete-others',
]);

/** Seconds per TOTP step (RFC 6238 default; every authenticator app uses it). */
export const TOTP_PERIOD_S = 30;
/** Digits of a code. */
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one (clock drift): ±1, as listmonk's library. */
export const TOTP_WINDOW = 1;
/** Bytes of a generated secret (160 bits, RFC 4226 §4's recommendation; 32 base32 characters). */
export const TOTP_SECRET_BYTES = 20;
/** How long after the password a pending sign-in may give its code (s): 5 minutes, listmonk's. */
export const TWOFA_PENDING_MAX_S = 5 * 60;

/** What enrolment shows the user: the secret (base32, to type in) and its QR code (PNG, base64). */
export interface TotpEnrolment {
  secret: string;
  qr: string;
}

interface TwofaUserRow {
  id: number;
  username: string;
  email: string | null;
  type: 'user' | 'api';
  status: string;
  password_login: boolean;
  password_hash: string | null;
  twofa_type: 'none' | 'totp';
  twofa_key: string | null;
  twofa_last_step: string | number | null;
}

/** Collaborators and tunables of the {@link TwofaService}. */
export interface TwofaOptions {
  /** The issuer name shown in authenticator apps. */
  issuer: () => string;
  /** Current time in ms (tests); default Date.now. */
  now?: () => number;
}

/** A TOTP of `secret` (base32) with Mailroom's parameters. */
function totpFor(secret: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/**
 * A secret as typed or sent back by a client, canonical: spaces and `=` padding removed, upper case.
 * Throws FieldError(`secret`) unless it is base32 of 16 to 128 characters (80 to 640 bits).
 */
export function normalizeSecret(raw: string): string {
  const s = raw.replace(/[\s=]/gu, '').toUpperCase();
  if (!/^[A-Z2-7]{16,128}$/u.test(s)) throw new FieldError('secret', 'must be a base32 TOTP secret of 16 to 128 characters');
  return s;
}

/**
 * The step of `code` for `secret` at time `nowMs`, or null when it is not a code of the current step
 * or the one either side. `code` must already be 6 digits.
 */
export function codeStep(secret: string, code: string, nowMs: number): number | null {
  const totp = totpFor(secret);
  const delta = totp.validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

/** A code as typed (spaces allowed), or FieldError(`field`) unless it is 6 digits. */
function cleanCode(raw: string, field: string): string {
  const code = raw.replace(/\s/gu, '');
  if (!/^\d{6}$/u.test(code)) throw new FieldError(field, 'must be the 6-digit code from the authenticator app');
  return code;
}

/** Enrols, checks and removes TOTP second factors. */
export class TwofaService {
  private readonly failures: FailureCounter;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly opts: TwofaOptions,
  ) {
    this.failures = new FailureCounter(db);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** The user, or NotFoundError. */
  private async user(userId: number): Promise<TwofaUserRow> {
    const [row] = await this.db.run<TwofaUserRow>(Q['twofa-user'], { id: userId });
    if (row === undefined) throw new NotFoundError('user not found');
    return row;
  }

  /** Refuses users that do not sign in with a password: API users, password login off (listmonk's rule). */
  private static requirePasswordLogin(row: TwofaUserRow): void {
    if (row.type !== 'user' || !row.password_login) throw new BadRequestError('two-factor sign-in is only for users who sign in with a password');
  }

  /**
   * A new secret and its QR code (an `otpauth://` URI, PNG 200 px, base64) for user `userId`; nothing
   * is stored until {@link enable}. Throws NotFoundError, BadRequestError when TOTP is already on or the
   * user does not sign in with a password (listmonk `users.twoFAAlreadyEnabled`).
   */
  async generate(userId: number): Promise<TotpEnrolment> {
    return this.enrolment(userId, new Secret({ size: TOTP_SECRET_BYTES }).base32);
  }

  /**
   * The enrolment of a given secret (the admin profile page shows the same QR code again when the code
   * typed was wrong, so the user need not scan a new one). Same errors as {@link generate}, plus
   * FieldError(`secret`) for a malformed secret.
   */
  async enrolment(userId: number, rawSecret: string): Promise<TotpEnrolment> {
    const secret = normalizeSecret(rawSecret);
    const row = await this.user(userId);
    TwofaService.requirePasswordLogin(row);
    if (row.twofa_type === 'totp') throw new BadRequestError('two-factor sign-in is already on');
    const uri = totpFor(secret, row.email ?? row.username, this.opts.issuer()).toString();
    const png = await QRCode.toBuffer(uri, { type: 'png', width: 200, margin: 2, errorCorrectionLevel: 'M' });
    return { secret, qr: png.toString('base64') };
  }

  /**
   * Turns TOTP on with `secret` once `code` proves the app has it, then ends the user's sessions other
   * than `keepSessionId` (the id hash of the session that asked; null: end all). Throws FieldError
   * (`secret`, `code`) for a malformed secret or a wrong code, BadRequestError when it is already on or
   * the user does not sign in with a password.
   */
  async enable(userId: number, rawSecret: string, rawCode: string, keepSessionId: string | null): Promise<void> {
    const secret = normalizeSecret(rawSecret);
    const code = cleanCode(rawCode, 'code');
    const row = await this.user(userId);
    TwofaService.requirePasswordLogin(row);
    if (row.twofa_type === 'totp') throw new BadRequestError('two-factor sign-in is already on');
    const step = codeStep(secret, code, this.now());
    if (step === null) throw new FieldError('code', 'is not the current code for this secret: check the clock of the device and try again');
    const done = await this.db.run(Q['twofa-set'], { id: userId, type: 'totp', key: secret, step, from: 'none' });
    if (done.length === 0) throw new BadRequestError('two-factor sign-in is already on');
    await this.db.run(Q['sessions-delete-others'], { user_id: userId, keep: keepSessionId ?? '' });
  }

  /**
   * Turns TOTP off after checking the user's password (listmonk: 403 on a wrong one), then ends the
   * user's other sessions as {@link enable}. A wrong password counts as a failed sign-in from
   * `origin.ip`. Throws FieldError(`password`) for a missing one, ForbiddenError for a wrong one,
   * BadRequestError when TOTP is not on, TooManyRequestsError past the failure limit.
   */
  async disable(userId: number, password: string, origin: SessionOrigin, keepSessionId: string | null): Promise<void> {
    if (password.length < 8 || password.length > 2000) throw new FieldError('password', 'must be 8 to 2000 characters');
    const row = await this.user(userId);
    if (row.twofa_type !== 'totp') throw new BadRequestError('two-factor sign-in is not on');
    const keys = [ipKey(origin.ip)];
    await this.failures.check(keys);
    if (row.password_hash === null || !(await verifyPassword(password, row.password_hash))) {
      await this.failures.fail(keys);
      throw new ForbiddenError('wrong password');
    }
    const done = await this.db.run(Q['twofa-set'], { id: userId, type: 'none', key: null, step: null, from: 'totp' });
    if (done.length === 0) throw new BadRequestError('two-factor sign-in is not on');
    await this.db.run(Q['sessions-delete-others'], { user_id: userId, keep: keepSessionId ?? '' });
  }

  /**
   * True when cookie token `token` is a session still owing its TOTP code and young enough to give it
   * (the 2FA page's GET shows the form only then).
   */
  async isPending(token: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{20,100}$/u.test(token)) return false;
    const rows = await this.db.run(Q['twofa-pending-session'], { id: sessionId(token), max_age_s: TWOFA_PENDING_MAX_S });
    return rows.length > 0;
  }

  /**
   * The sign-in step after the password (listmonk's `/admin/login/twofa`): checks `rawCode` for the
   * session of cookie token `token`, which must still owe its code and be at most
   * {@link TWOFA_PENDING_MAX_S} old. Returns the session's new cookie token (SessionService.completeTwofa).
   * Throws UnauthorizedError when there is no such pending session (sign in again), FieldError
   * (`code`; listmonk's form calls it `totp_code`) for a malformed, wrong or already used code (each counted as a
   * failed sign-in for the address and the user), TooManyRequestsError past the failure limit.
   */
  async completeSignIn(token: string, rawCode: string, origin: SessionOrigin): Promise<string> {
    const expired = new UnauthorizedError('the sign-in has expired: sign in again');
    if (!/^[A-Za-z0-9_-]{20,100}$/u.test(token)) throw expired;
    const [pending] = await this.db.run<{ user_id: number }>(Q['twofa-pending-session'], { id: sessionId(token), max_age_s: TWOFA_PENDING_MAX_S });
    if (pending === undefined) throw expired;
    const keys = [ipKey(origin.ip), twofaKey(pending.user_id)];
    await this.failures.check(keys);
    const code = cleanCode(rawCode, 'code');
    const row = await this.user(pending.user_id);
    if (row.twofa_type !== 'totp' || row.twofa_key === null) throw expired;
    const step = codeStep(row.twofa_key, code, this.now());
    if (step === null) {
      await this.failures.fail(keys);
      throw new FieldError('code', 'is not the current code: check the clock of the device and try again');
    }
    const fresh = await this.db.run(Q['twofa-use-step'], { id: row.id, step });
    if (fresh.length === 0) {
      await this.failures.fail(keys);
      throw new FieldError('code', 'was used already: wait for the next code');
    }
    await this.failures.clear(keys);
    const next = await this.sessions.completeTwofa(token, row.id);
    if (next === null) throw expired;
    return next;
  }
}
