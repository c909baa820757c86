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

/** Counts failed logins per client address in a sliding window. */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = FAILURE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `client` may try again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const recent = this.recent(client);
    if (recent.length < this.maxFailures) return 0;
    return Math.max(0, (recent[0] as number) + this.windowMs - this.now());
  }

  /** Records a failed attempt from `client`. */
  fail(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    this.failures.set(client, recent);
    if (this.failures.size > 10_000) this.prune();
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
