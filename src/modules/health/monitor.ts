/**
 * What `/api/health` and `/metrics` report (issue "Trustworthy" §6–7): the database answers, and every
 * messenger has delivered recently or at least not only failed. Messengers are wrapped by
 * {@link MeteredMessenger}, which counts sends and failures per messenger (Prometheus counters) and
 * remembers the latest outcome; a messenger whose recent sends all failed transiently (SMTP server down
 * or its queue full) makes the service unhealthy until a send succeeds again. State changes are logged.
 */
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { SendError, type Messenger, type OutgoingMessage } from '../../mail/messenger.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['campaign-progress']);

/** Reads the progress of running and paused campaigns, for {@link Metrics.campaignProgress}. */
export function campaignProgressReader(db: Db) {
  return () => db.run<{ id: number; status: string; sent: number; to_send: number }>(Q['campaign-progress']);
}

/** Consecutive transient failures after which a messenger counts as failing. */
export const FAILING_AFTER = 3;

/** The Prometheus registry and Mailroom's own metrics. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'mailroom_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly messagesSent = new Counter({
    name: 'mailroom_messages_sent_total',
    help: 'Messages accepted by a messenger',
    labelNames: ['messenger'] as const,
    registers: [this.registry],
  });
  readonly messagesFailed = new Counter({
    name: 'mailroom_messages_failed_total',
    help: 'Send attempts that failed, by messenger and kind (transient: will be retried; permanent: bounce)',
    labelNames: ['messenger', 'kind'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mailroom_' });
  }

  /**
   * Exposes the progress of running and paused campaigns (`mailroom_campaign_sent`,
   * `mailroom_campaign_to_send`), read from the database at scrape time so every instance reports the
   * same, exact figures.
   */
  campaignProgress(fetch: () => Promise<Array<{ id: number; status: string; sent: number; to_send: number }>>): void {
    const sent = new Gauge({ name: 'mailroom_campaign_sent', help: 'Messages sent by a running or paused campaign', labelNames: ['campaign_id', 'status'] as const, registers: [this.registry] });
    new Gauge({
      name: 'mailroom_campaign_to_send',
      help: 'Messages a running or paused campaign will send in all',
      labelNames: ['campaign_id', 'status'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        sent.reset();
        for (const c of await fetch()) {
          const labels = { campaign_id: String(c.id), status: c.status };
          this.set(labels, c.to_send);
          sent.set(labels, c.sent);
        }
      },
    });
  }
}

interface MessengerState {
  consecutiveTransient: number;
  lastError: string;
}

/** Tracks health of the database and the messengers. */
export class HealthMonitor {
  private readonly messengers = new Map<string, MessengerState>();
  private lastProblems = '';

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /** Records a send outcome for `messenger` (null error: success). */
  record(messenger: string, error: SendError | null): void {
    const s = this.messengers.get(messenger) ?? { consecutiveTransient: 0, lastError: '' };
    if (error === null) s.consecutiveTransient = 0;
    else if (error.kind === 'transient') {
      s.consecutiveTransient += 1;
      s.lastError = error.message;
    }
    this.messengers.set(messenger, s);
  }

  /** The current problems, empty when healthy. Logs when the set of problems changes. */
  async problems(): Promise<string[]> {
    const out: string[] = [];
    try {
      await this.db.ping();
    } catch (err) {
      out.push(`database unavailable (${err instanceof Error ? err.message : String(err)})`);
    }
    for (const [name, s] of this.messengers) {
      if (s.consecutiveTransient >= FAILING_AFTER) out.push(`messenger "${name}" failing: ${s.consecutiveTransient} sends in a row failed (last: ${s.lastError})`);
    }
    const key = out.join('; ');
    if (key !== this.lastProblems) {
      if (out.length > 0) this.log.warn({ problems: out }, 'unhealthy');
      else this.log.info('healthy again');
      this.lastProblems = key;
    }
    return out;
  }
}

/** Counts every push of the wrapped messenger and reports outcomes to the health monitor. */
export class MeteredMessenger implements Messenger {
  constructor(
    private readonly inner: Messenger,
    private readonly metrics: Metrics,
    private readonly health: HealthMonitor,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  /** The wrapped messenger's immediate-retry count (the engine reads it). */
  get maxRetries(): number | undefined {
    return this.inner.maxRetries;
  }

  /** Pushes through the wrapped messenger; rethrows its SendError after counting it. */
  async push(message: OutgoingMessage): Promise<void> {
    try {
      await this.inner.push(message);
    } catch (err) {
      const e = err instanceof SendError ? err : new SendError('transient', String(err));
      this.metrics.messagesFailed.inc({ messenger: this.name, kind: e.kind });
      this.health.record(this.name, e);
      throw e;
    }
    this.metrics.messagesSent.inc({ messenger: this.name });
    this.health.record(this.name, null);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
