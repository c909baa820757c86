/**
 * The installation-wide send limiter: `app.message_rate` (messages per second) and the sliding window
 * (at most N messages in any interval of a duration), enforced across every campaign of every instance.
 *
 * Permits are granted by the database (`rate-grant`, one statement on a locked row), so instances on
 * one PostgreSQL share one budget whatever their number. Each instance asks only for as many permits
 * as it has senders waiting and hands them out at once in arrival order (FIFO), so no instance hoards
 * permits and campaigns waiting here take turns. The bucket banks at most 0.5 s of permits, so over any
 * 10 s the rate is exceeded by at most 5 % (a burst after an idle moment); an instance asks again after
 * half of that has accrued, so a grant round trip of up to 0.25 s costs no throughput
 * (src/workers/README.md, "Rate limits").
 */
import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { loadQueries } from '../db/queries.js';
import type { RateLimits } from './engine-settings.js';
import { sleep } from '../util/sleep.js';

const Q = loadQueries(new URL('./rate-queries.sql', import.meta.url), ['rate-grant']);

/** Seconds of permits the bucket may bank (bounds the burst after an idle period). */
export const BURST_SECONDS = 0.5;

/** Answer of one grant. */
export interface Grant {
  granted: number;
  /** How long until more permits could be granted (ms); 0 when unknown or now. */
  waitMs: number;
}

/** Where permits come from: the database (shared by instances). */
export interface PermitSource {
  grant(want: number, limits: RateLimits): Promise<Grant>;
}

/** Grants permits from the `send_limiter` row. */
export class DbPermitSource implements PermitSource {
  constructor(private readonly db: Db) {}

  /** One grant of up to `want` permits. */
  async grant(want: number, limits: RateLimits): Promise<Grant> {
    const [row] = await this.db.run<{ granted: number; bucket_wait_ms: number; window_wait_ms: number }>(Q['rate-grant'], {
      want,
      rate: limits.rate,
      burst: Math.max(1, limits.rate * BURST_SECONDS),
      window_rate: limits.windowRate,
      window_ms: limits.windowMs,
    });
    if (row === undefined) return { granted: 0, waitMs: 100 };
    return { granted: row.granted, waitMs: Math.max(row.bucket_wait_ms, row.window_wait_ms) };
  }
}

interface Waiter {
  resolve: (ok: boolean) => void;
}

/** Hands send permits to this instance's senders. */
export class RateLimiter {
  private readonly waiters: Waiter[] = [];
  private pumping = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly source: PermitSource,
    private limits: RateLimits,
    private readonly log: Logger,
  ) {}

  /** True when no limit is set (permits are not asked for). */
  get unlimited(): boolean {
    return this.limits.rate <= 0 && this.limits.windowRate <= 0;
  }

  /** Applies changed settings; waiting senders are re-evaluated at once. */
  configure(limits: RateLimits): void {
    this.limits = limits;
    this.wake?.();
  }

  /** Waits for one permit. Resolves true when granted, false when `signal` aborted first. */
  take(signal?: AbortSignal): Promise<boolean> {
    if (this.unlimited) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      };
      const waiter: Waiter = {
        resolve: (ok) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (!this.pumping) void this.pump();
    });
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        if (this.unlimited) {
          for (const w of this.waiters.splice(0)) w.resolve(true);
          break;
        }
        const want = Math.min(this.waiters.length, 1000);
        let waitMs: number;
        try {
          const g = await this.source.grant(want, this.limits);
          for (const w of this.waiters.splice(0, g.granted)) w.resolve(true);
          waitMs = this.pause(g);
        } catch (err) {
          this.log.warn({ err }, 'could not get send permits; retrying');
          waitMs = 500;
        }
        if (this.waiters.length > 0 && waitMs > 0) await this.nap(waitMs);
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * How long to wait before asking again: until a useful number of permits has accrued — what the
   * waiting senders need, at most half the bucket, so permits accruing during the round trip are kept.
   */
  private pause(g: Grant): number {
    if (this.waiters.length === 0) return 0;
    const { rate } = this.limits;
    const useful = rate > 0 ? (Math.min(this.waiters.length, Math.max(1, (rate * BURST_SECONDS) / 2)) / rate) * 1000 : 0;
    return Math.min(Math.max(g.waitMs, useful, 5), 1000);
  }

  private nap(ms: number): Promise<void> {
    const ctl = new AbortController();
    this.wake = () => ctl.abort();
    return sleep(ms, ctl.signal).finally(() => (this.wake = null));
  }
}
