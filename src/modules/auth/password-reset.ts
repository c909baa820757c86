/**
 * Forgot/reset password by e-mail (issue 16 "Sign-in" item 4; listmonk `cmd/auth.go` doForgotPassword
 * and doResetPassword, system e-mail `forgot-password`).
 *
 * - {@link PasswordResetService.request}: for the e-mail of an enabled `user` with password login, a
 *   random single-use token (256 bits) is made, only its SHA-256 stored in `password_resets` with a
 *   one-hour expiry, and the link `<root_url>/admin/reset?token=…` e-mailed from `app.from_email` with
 *   the `forgot-password` system template. The answer is the same whether or not the address belongs to
 *   anyone, and takes as long ({@link RESET_MIN_MS}; the mail is sent in the background so the mail
 *   server's latency tells nothing either). At most {@link RESET_MAX_PER_WINDOW} links per user per hour
 *   are sent, so the form cannot flood a mailbox.
 * - {@link PasswordResetService.reset}: sets the password (8–2000 characters, given twice), marks the
 *   token and every other outstanding token of the user used, and ends all the user's sessions. It does
 *   not sign the user in (listmonk does, which skips the user's TOTP step): they sign in with the new
 *   password next.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { BadRequestError, FieldError } from '../../errors.js';
import { parseSender } from '../../mail/address.js';
import type { OutgoingMessage } from '../../mail/messenger.js';
import { TemplateMessage } from '../../mail/template-message.js';
import { sleep } from '../../util/sleep.js';
import { hashPassword } from '../users/service.js';
import { randomToken, sessionId } from './sessions.js';

const Q = loadQueries(new URL('./password-reset.sql', import.meta.url), [
  'reset-user-by-email',
  'reset-recent-count',
  'reset-insert',
  'reset-get',
  'reset-consume',
  'reset-consume-others',
  'reset-set-password',
  'resets-delete-old',
  'reset-end-sessions',
]);

/** How long a reset link works (s): one hour (listmonk: 30 minutes). */
export const RESET_TTL_S = 3600;
/** Shortest time a reset request takes (ms), for an address that exists or not. */
export const RESET_MIN_MS = 300;
/** Most reset links sent to one user per {@link RESET_WINDOW_S}. */
export const RESET_MAX_PER_WINDOW = 3;
/** The window of {@link RESET_MAX_PER_WINDOW} (s). */
export const RESET_WINDOW_S = 3600;

/** The `forgot-password` system template: subject, HTML body and plain-text alternative. */
export const FORGOT_PASSWORD_TEMPLATE = {
  name: 'forgot-password',
  subject: '{{ L.T "email.forgotPassword.subject" }}',
  body: readFileSync(new URL('./emails/forgot-password.tpl', import.meta.url), 'utf8'),
  altbody: '{{ L.T "email.forgotPassword.text" }}\n{{ .ResetURL }}\n\n{{ L.T "email.forgotPassword.info" }}\n',
};

/** Why a reset link was refused. */
export type ResetLinkProblem = 'unknown' | 'used' | 'expired' | 'unusable';

const PROBLEMS: Record<ResetLinkProblem, string> = {
  unknown: 'this password reset link is not valid: ask for a new one',
  used: 'this password reset link was used already: ask for a new one',
  expired: 'this password reset link has expired (links work for one hour): ask for a new one',
  unusable: 'this account cannot set a password here: ask an administrator',
};

/** A reset link that cannot be used (400), with the reason for the page to show. */
export class ResetLinkError extends BadRequestError {
  constructor(readonly problem: ResetLinkProblem) {
    super(PROBLEMS[problem]);
  }
}

/** Collaborators of the {@link PasswordResetService}; the settings are read at each request. */
export interface PasswordResetOptions {
  /** Queues one e-mail (AdminNotifier.deliver): background, retried, drained on close. */
  deliver: (message: OutgoingMessage) => boolean;
  /** `app.root_url`, `app.from_email`, `app.logo_url`, `app.lang`. */
  config: () => { rootUrl: string; fromEmail: string; logoUrl: string; lang: string };
  logger: Logger;
}

/** Loose e-mail shape check (listmonk `utils.ValidateEmail` accepts more than this refuses). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/** Sends reset links and sets passwords from them. */
export class PasswordResetService {
  private readonly template = new TemplateMessage({ ...FORGOT_PASSWORD_TEMPLATE, contentType: 'html' });

  constructor(
    private readonly db: Db,
    private readonly opts: PasswordResetOptions,
  ) {}

  /**
   * Handles the forgot-password form for `rawEmail`: sends a link when it names an enabled sign-in user
   * with password login, and nothing otherwise, in the same time and with the same (absent) answer.
   * Throws FieldError(`email`) only for a value that is not an e-mail address at all.
   */
  async request(rawEmail: string): Promise<void> {
    const email = rawEmail.trim();
    if (email.length > 1000 || !EMAIL.test(email)) throw new FieldError('email', 'is not a valid e-mail address');
    const started = Date.now();
    try {
      await this.send(email);
    } finally {
      const left = RESET_MIN_MS - (Date.now() - started);
      if (left > 0) await sleep(left);
    }
  }

  private async send(email: string): Promise<void> {
    const [user] = await this.db.run<{ id: number; email: string }>(Q['reset-user-by-email'], { email });
    if (user === undefined) return;
    const [recent] = await this.db.run<{ n: number }>(Q['reset-recent-count'], { user_id: user.id, window_s: RESET_WINDOW_S });
    if ((recent?.n ?? 0) >= RESET_MAX_PER_WINDOW) {
      this.opts.logger.info({ user_id: user.id }, 'password reset link not sent: too many were sent to this user in the last hour');
      return;
    }
    const token = randomToken();
    await this.db.run(Q['reset-insert'], { id: sessionId(token), user_id: user.id, ttl_s: RESET_TTL_S });
    const cfg = this.opts.config();
    const root = cfg.rootUrl.replace(/\/+$/u, '');
    const message = this.template.render(
      { ResetURL: `${root}/admin/reset?token=${token}` },
      { rootUrl: root, logoUrl: cfg.logoUrl, lang: cfg.lang },
      { from: cfg.fromEmail, to: { name: '', address: parseSender(user.email)?.address ?? user.email }, headers: [['Auto-Submitted', 'auto-generated']] },
    );
    this.opts.deliver(message);
  }

  /**
   * The user a reset link's `token` is for, or ResetLinkError saying why it cannot be used (unknown,
   * used, expired, or the user was disabled or lost password login since). Changes nothing: the page's
   * GET uses it to decide between the form and the message.
   */
  async check(token: string): Promise<number> {
    if (!/^[A-Za-z0-9_-]{20,100}$/u.test(token)) throw new ResetLinkError('unknown');
    const [row] = await this.db.run<{ user_id: number; used: boolean; expired: boolean; usable: boolean }>(Q['reset-get'], { id: sessionId(token) });
    if (row === undefined) throw new ResetLinkError('unknown');
    if (row.used) throw new ResetLinkError('used');
    if (row.expired) throw new ResetLinkError('expired');
    if (!row.usable) throw new ResetLinkError('unusable');
    return row.user_id;
  }

  /**
   * Sets the password of the user of `token` to `password` (8–2000 characters, equal to `password2`;
   * listmonk's rules and field names), uses up the token and every other outstanding one of the user,
   * and ends all the user's sessions. Returns the user id. Throws ResetLinkError for an unusable link
   * (checked first, so a dead link is reported before the password), FieldError (`password`,
   * `password2`) for a bad password.
   */
  async reset(token: string, password: string, password2: string): Promise<number> {
    await this.check(token);
    if (password.length < 8 || password.length > 2000) throw new FieldError('password', 'must be 8 to 2000 characters');
    if (password !== password2) throw new FieldError('password2', 'does not match the password');
    const hash = await hashPassword(password);
    const id = sessionId(token);
    const userId = await this.db.tx(async (q) => {
      const [used] = await q.run<{ user_id: number }>(Q['reset-consume'], { id });
      if (used === undefined) return null;
      const set = await q.run(Q['reset-set-password'], { id: used.user_id, password_hash: hash });
      if (set.length === 0) throw new ResetLinkError('unusable'); // rolls the token back
      await q.run(Q['reset-consume-others'], { user_id: used.user_id });
      await q.run(Q['reset-end-sessions'], { user_id: used.user_id });
      return used.user_id;
    });
    if (userId === null) {
      await this.check(token); // another request used it meanwhile, or it just expired: say which
      throw new ResetLinkError('used');
    }
    return userId;
  }

  /** Forgets reset tokens a day after they expired; safe to run from every instance. */
  async purgeExpired(): Promise<void> {
    await this.db.run(Q['resets-delete-old']);
  }
}
