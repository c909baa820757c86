/**
 * What `/api/health` and `/metrics` report (issue "Trustworthy" §6–7): the database answers, and every
 * messenger can be connected to. Messengers are wrapped by {@link MeteredMessenger}, which counts sends
 * and failures per messenger (Prometheus counters) and tells the monitor the outcome. A messenger whose
 * last {@link FAILING_AFTER} attempts all failed at the connection or login level (SMTP server
 * unreachable, timing out, refusing the login; postback endpoint down) makes the service unhealthy until
 * a send reaches the server again. Failures about one message or recipient (SMTP 4xx/5xx to MAIL FROM,
 * RCPT TO or DATA) never do: a subscriber chooses their address, and one address the relay
 * temp-rejects must not take the instance out of a load balancer (issue 14 finding 6). Only the
 * messengers of the current settings are watched ({@link HealthMonitor.watch}). State changes are
 * logged with the full error; the reasons the API shows carry no hosts or ports (finding 10).
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
   * Exposes the log-line writer's counts (src/modules/logs/writer.ts): `mailroom_log_lines_written_total`
   * and `mailroom_log_lines_dropped_total` (lines lost because the database could not take them in time).
   */
  logLines(counts: { readonly written: number; readonly dropped: number }): void {
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name, help, registers: [this.registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    counter('mailroom_log_lines_written_total', 'Log lines written to the database (GET /api/logs)', () => counts.written);
    counter('mailroom_log_lines_dropped_total', 'Log lines dropped because the database could not be written in time (queue full)', () => counts.dropped);
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
  name: string;
  /** Connection-level failures in a row, since the last time the server was reached. */
  consecutive: number;
  /** The last one's API-safe message and its full detail (log only). */
  lastError: string;
  lastDetail: string;
}

/** Tracks health of the database and the messengers. */
export class HealthMonitor {
  /** The watched messengers (identity: a messenger replaced by a settings change is another one). */
  private readonly messengers = new Map<object, MessengerState>();
  private lastProblems = '';

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /**
   * Watches exactly these messengers from now on: the ones no longer configured (removed or replaced
   * by a settings change) are forgotten with their failures, and late outcomes they report are ignored.
   */
  watch(messengers: Array<{ readonly name: string }>): void {
    const keep = new Set<object>(messengers);
    for (const m of [...this.messengers.keys()]) if (!keep.has(m)) this.messengers.delete(m);
    for (const m of messengers) if (!this.messengers.has(m)) this.messengers.set(m, { name: m.name, consecutive: 0, lastError: '', lastDetail: '' });
  }

  /**
   * Records a send outcome of the watched messenger `source` (null error: success). A `message`-scope
   * failure means the server was reached and answered, so it ends a run of connection failures like a
   * success does; only `messenger`-scope failures extend it.
   */
  record(source: object, error: SendError | null): void {
    const s = this.messengers.get(source);
    if (s === undefined) return;
    if (error === null || error.scope === 'message') s.consecutive = 0;
    else {
      s.consecutive += 1;
      s.lastError = error.message;
      s.lastDetail = error.detail;
    }
  }

  /**
   * The current problems, empty when healthy. The reasons hold no internal hosts or ports; the log
   * line written when the set of problems changes has the full errors.
   */
  async problems(): Promise<string[]> {
    const out: string[] = [];
    const details: string[] = [];
    try {
      await this.db.ping();
    } catch (err) {
      out.push('database unavailable');
      details.push(`database unavailable (${err instanceof Error ? err.message : String(err)})`);
    }
    for (const s of this.messengers.values()) {
      if (s.consecutive < FAILING_AFTER) continue;
      const line = `messenger "${s.name}" failing: ${s.consecutive} sends in a row failed`;
      out.push(`${line} (last: ${s.lastError})`);
      details.push(`${line} (last: ${s.lastDetail})`);
    }
    const key = out.join('; ');
    if (key !== this.lastProblems) {
      if (out.length > 0) this.log.warn({ problems: details }, 'unhealthy');
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
      this.health.record(this, e);
      throw e;
    }
    this.metrics.messagesSent.inc({ messenger: this.name });
    this.health.record(this, null);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
