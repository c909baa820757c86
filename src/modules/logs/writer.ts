/**
 * Writes this process's log lines into the database (table log_lines), so GET /api/logs shows the
 * recent lines of every instance, not only of the one that answers (issue 16: "works across
 * instances"; listmonk keeps them in one process's memory).
 *
 * It is a pino destination: `write` only parses the line and queues it, so logging never waits for the
 * database. A timer (and a full batch) flushes the queue in one INSERT per batch, then trims this
 * instance to its newest `keep` lines. Kept: info and above, except Fastify's per-request
 * "incoming request"/"request completed" lines (info lines carrying `req` or `res`), which would flush
 * the window in seconds and turn every request into a database write; warnings and errors are kept
 * with their request. While the database cannot be written the lines stay queued and are retried; past
 * `maxPending` the oldest are dropped and counted ({@link LogLineWriter.dropped}, exposed as the metric
 * `mailroom_log_lines_dropped_total`), never silently.
 */
import type { Db } from '../../db/db.js';
import { Q } from './queries.js';

/** pino's numeric levels (info = 30, warn = 40). */
const INFO = 30;
const WARN = 40;

/** Tunables of the writer; defaults in {@link DEFAULT_LOG_LINE_OPTIONS}. */
export interface LogLineOptions {
  /** Lines kept per instance (the trim after each flush). */
  keep: number;
  /** Lines per INSERT. */
  batchSize: number;
  /** Time between flushes (ms). */
  flushMs: number;
  /** Lines queued at most (database slow or down); beyond, the oldest are dropped and counted. */
  maxPending: number;
  /** Longest line stored (characters of its JSON); longer ones keep their level, time and a cut message. */
  maxLineChars: number;
  /** Lines of any instance older than this are deleted (ms; checked hourly): stopped instances trim nothing. */
  maxAgeMs: number;
}

/** Defaults: the last 1,000 lines per instance, flushed every second, a week at most. */
export const DEFAULT_LOG_LINE_OPTIONS: LogLineOptions = {
  keep: 1000,
  batchSize: 500,
  flushMs: 1000,
  maxPending: 10_000,
  maxLineChars: 8192,
  maxAgeMs: 7 * 86_400_000,
};

const EXPIRE_EVERY_MS = 3_600_000;

/** Where the lines go once the database is open. */
interface Target {
  db: Db;
  instance: string;
  /** Told when writing starts failing (once per outage) and when it works again. */
  onTrouble: (err: unknown) => void;
  onRecovered: () => void;
}

/** A pino destination writing info-and-above lines to log_lines in batches. */
export class LogLineWriter {
  private pending: Array<Record<string, unknown>> = [];
  private target: Target | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;
  private failing = false;
  private lastExpiry = 0;
  /** Lines dropped because the queue was full (database slow or down). */
  dropped = 0;
  /** Lines written to the database. */
  written = 0;
  private readonly opts: LogLineOptions;

  constructor(opts: Partial<LogLineOptions> = {}) {
    this.opts = { ...DEFAULT_LOG_LINE_OPTIONS, ...opts };
  }

  /** pino's destination call: one serialised line (JSON text with a newline). Never throws, never waits. */
  write(chunk: string): boolean {
    if (this.closed) return true;
    const line = this.parse(chunk);
    if (line === null) return true;
    this.pending.push(line);
    if (this.pending.length > this.opts.maxPending) {
      const over = this.pending.length - this.opts.maxPending;
      this.pending.splice(0, over);
      this.dropped += over;
    }
    if (this.target !== null && this.pending.length >= this.opts.batchSize) this.kick();
    return true;
  }

  /**
   * Starts writing to `db` as `instance` (config.instanceId); lines logged before are written first.
   * `onTrouble` is told once when writing starts failing, `onRecovered` when it works again (both may log).
   */
  attach(db: Db, instance: string, hooks: { onTrouble?: (err: unknown) => void; onRecovered?: () => void } = {}): void {
    this.target = { db, instance, onTrouble: hooks.onTrouble ?? (() => undefined), onRecovered: hooks.onRecovered ?? (() => undefined) };
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = setInterval(() => this.kick(), this.opts.flushMs);
    this.timer.unref();
    this.kick();
  }

  /** Writes what is queued now (tests, shutdown). Resolves once that is written, or when writing failed. */
  async flush(): Promise<void> {
    // Bounded by what is queued now: lines logged meanwhile wait for the timer.
    let rounds = Math.ceil(this.pending.length / this.opts.batchSize) + 1;
    while (this.target !== null && this.pending.length > 0 && rounds-- > 0) {
      await this.kick();
      if (this.failing) return;
    }
    await this.flushing;
  }

  /** Stops the timer and writes what is queued (before the database closes); later lines are not stored. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    this.closed = true;
    this.target = null;
    this.pending = [];
  }

  /** Starts one flush unless one runs; resolves when that flush ends. */
  private kick(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const t = this.target;
    if (t === null || this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.opts.batchSize);
    try {
      await t.db.run(Q['log-lines-insert'], { instance: t.instance, lines: JSON.stringify(batch) });
      this.written += batch.length;
      await t.db.run(Q['log-lines-trim'], { instance: t.instance, keep: this.opts.keep });
      if (Date.now() - this.lastExpiry > EXPIRE_EVERY_MS) {
        this.lastExpiry = Date.now();
        await t.db.run(Q['log-lines-expire'], { max_age_s: Math.round(this.opts.maxAgeMs / 1000) });
      }
      if (this.failing) {
        this.failing = false;
        t.onRecovered();
      }
    } catch (err) {
      // A line the database refuses (SQLSTATE class 22, data exception) would fail every retry: the
      // batch is dropped and counted. Anything else (connection lost) is retried.
      if (String((err as { code?: unknown }).code ?? '').startsWith('22')) {
        this.dropped += batch.length;
        t.onTrouble(err);
        return;
      }
      // Back to the front of the queue, to be retried; the queue bound drops (and counts) the oldest.
      this.pending.unshift(...batch);
      const over = this.pending.length - this.opts.maxPending;
      if (over > 0) {
        this.pending.splice(0, over);
        this.dropped += over;
      }
      if (!this.failing) {
        this.failing = true;
        t.onTrouble(err);
      }
    }
  }

  /** The line to store, or null for lines not kept (below info, per-request lines, not JSON). */
  private parse(chunk: string): Record<string, unknown> | null {
    let line: unknown;
    try {
      line = JSON.parse(jsonbSafe(chunk));
    } catch {
      return null;
    }
    if (line === null || typeof line !== 'object') return null;
    const obj = line as Record<string, unknown>;
    const level = typeof obj.level === 'number' ? obj.level : 0;
    if (level < INFO) return null;
    if (level < WARN && (obj.req !== undefined || obj.res !== undefined)) return null;
    if (typeof obj.time !== 'number') obj.time = Date.now();
    if (chunk.length <= this.opts.maxLineChars) return obj;
    const msg = typeof obj.msg === 'string' ? obj.msg.slice(0, 1000) : '';
    return { level, time: obj.time, msg, truncated: chunk.length };
  }
}

/**
 * JSON text made storable as jsonb: PostgreSQL refuses the escape `\u0000` and unpaired surrogate
 * escapes in jsonb, so they become U+FFFD (the replacement character).
 */
export function jsonbSafe(json: string): string {
  if (!json.includes('\\u')) return json;
  return json
    .replace(/(?<!\\)((?:\\\\)*)\\u0000/gu, '$1\\ufffd')
    .replace(/\\u(d[89ab][0-9a-f]{2})(?!\\ud[c-f][0-9a-f]{2})/giu, '\\ufffd')
    .replace(/(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/giu, '\\ufffd');
}
