/**
 * Sign-in housekeeping (issue 16): deletes expired and idle sessions, spent password-reset tokens,
 * abandoned OIDC sign-ins and failed-sign-in counts of long-ended windows, a minute after start and
 * then hourly. Every instance runs it; each delete is
 * idempotent, so two instances at once delete each row once. Rows it has not reached yet are refused
 * on read anyway (each lookup checks the expiry): this keeps the tables small, it is not what makes an
 * expired session useless.
 */
import type { Logger } from 'pino';

/** Something with expired rows to delete. */
export interface Purgeable {
  purgeExpired(): Promise<void>;
}

/** Time between two runs (ms): one hour. */
export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;
const FIRST_RUN_DELAY_MS = 60_000;

/** Runs the purges of `targets` periodically. */
export class SignInHousekeeping {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly targets: readonly Purgeable[],
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Runs every purge once; a failed one is logged and the others still run. Never throws. */
  async runOnce(): Promise<void> {
    for (const target of this.targets) {
      try {
        await target.purgeExpired();
      } catch (err) {
        this.logger.warn({ err }, 'sign-in housekeeping failed; retried at the next interval');
      }
    }
  }

  /** Runs {@link runOnce} a minute after start (or after `intervalMs` if shorter), then every `intervalMs`. */
  start(intervalMs = HOUSEKEEPING_INTERVAL_MS): void {
    if (this.timer !== null) return;
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        this.running = this.runOnce().finally(() => {
          this.running = null;
          if (this.timer !== null) tick(intervalMs);
        });
      }, delay);
      this.timer.unref();
    };
    tick(Math.min(FIRST_RUN_DELAY_MS, intervalMs));
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
