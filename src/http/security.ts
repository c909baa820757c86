/**
 * Security headers and login throttling (issue "Trustworthy" §3–4).
 *
 * - @fastify/helmet on every answer, with a Content-Security-Policy that allows only what Mailroom's own
 *   pages use (inline styles, same-origin forms and images) and no script at all. Routes that show stored
 *   HTML (previews, "view in browser", uploads) add `Content-Security-Policy: sandbox` themselves.
 *   `Cross-Origin-Resource-Policy` is `cross-origin` because e-mail clients load the tracking pixel and
 *   uploaded images from other origins (helmet's `same-origin` default would break them).
 * - Failed logins are limited per client address: after {@link MAX_FAILURES} failures within
 *   {@link FAILURE_WINDOW_MS}, further attempts from that address get 429 until the window passes.
 *   Each password check is reserved before it starts and counts against the limit while in flight
 *   (issue 14 finding 5), so concurrent requests cannot get more guesses checked than the limit.
 *   Counted per instance (several instances behind a load balancer each keep their own count).
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** Failed attempts allowed per client address per window. */
export const MAX_FAILURES = 10;
/** Window for counting failed attempts (ms). */
export const FAILURE_WINDOW_MS = 60_000;

/** Registers helmet with Mailroom's policy. */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
    // HSTS only makes sense behind TLS; the operator's reverse proxy sets it.
    strictTransportSecurity: false,
  });
}

/**
 * One reserved credential check (issue 14 finding 5): settle it exactly once, with {@link failed},
 * {@link succeeded} or {@link cancelled}. Later calls on the same attempt do nothing.
 */
export interface LoginAttempt {
  /** The credentials were wrong: counts one failure against the client. */
  failed(): void;
  /** The credentials were right: frees the reservation, counts nothing. */
  succeeded(): void;
  /** The check could not be made (the verifier threw): frees the reservation, counts nothing. */
  cancelled(): void;
}

/** A reservation in flight; attempts with the same credentials from one client share it. */
interface Reservation {
  credential: string;
  settled: boolean;
}

/**
 * Counts failed logins per client address in a sliding window, and reserves each credential check
 * before it starts (issue 14 finding 5): failures are known only after the password hash finishes, so
 * counting them afterwards let 200 concurrent wrong passwords all be checked. A check in flight counts
 * against the limit like a failure until it is settled, so at most `maxFailures` checks minus recent
 * failures run at once for one client; concurrent attempts with the same credentials share one
 * reservation (and one hash: `UserService.verify` shares checks in flight too).
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly inFlight = new Map<string, Reservation[]>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = FAILURE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Milliseconds until `client` may try again, or 0 when it may try now. When recent failures alone
   * reach the limit, the wait is until the oldest leaves the window; when checks in flight fill the
   * rest, 1000 ms (they end within the time of one hash, and then the answer is known).
   */
  retryAfter(client: string): number {
    const recent = this.recent(client);
    if (recent.length >= this.maxFailures) return Math.max(1, (recent[recent.length - this.maxFailures] as number) + this.windowMs - this.now());
    const pending = this.inFlight.get(client)?.length ?? 0;
    return recent.length + pending >= this.maxFailures ? 1000 : 0;
  }

  /**
   * Reserves a check of `credential` (an opaque digest of the user name and password) for `client`, or
   * returns null when the client has no allowance left ({@link retryAfter} says how long to wait). An
   * attempt with the same credentials as one already in flight joins it without taking another slot.
   */
  reserve(client: string, credential: string): LoginAttempt | null {
    const reservations = this.inFlight.get(client) ?? [];
    let reservation = reservations.find((r) => r.credential === credential);
    if (reservation === undefined) {
      if (this.retryAfter(client) > 0) return null;
      reservation = { credential, settled: false };
      reservations.push(reservation);
      this.inFlight.set(client, reservations);
    }
    const r = reservation;
    const settle = (failed: boolean) => {
      if (r.settled) return;
      r.settled = true;
      const list = this.inFlight.get(client) ?? [];
      const rest = list.filter((x) => x !== r);
      if (rest.length > 0) this.inFlight.set(client, rest);
      else this.inFlight.delete(client);
      if (failed) this.fail(client);
    };
    return { failed: () => settle(true), succeeded: () => settle(false), cancelled: () => settle(false) };
  }

  /** Records a failed attempt from `client` (malformed credentials, which need no check, count here). */
  fail(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    this.failures.set(client, recent);
    if (this.failures.size > 10_000) this.prune();
  }

  /** Checks in flight for `client` (for tests and metrics). */
  pending(client: string): number {
    return this.inFlight.get(client)?.length ?? 0;
  }

  private recent(client: string): number[] {
    const cutoff = this.now() - this.windowMs;
    return (this.failures.get(client) ?? []).filter((t) => t > cutoff);
  }

  private prune(): void {
    for (const client of this.failures.keys()) {
      if (this.recent(client).length === 0) this.failures.delete(client);
    }
  }
}
