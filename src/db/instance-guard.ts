/**
 * One live instance per instance id (MAILROOM_INSTANCE_ID) on a PostgreSQL database.
 *
 * Work leases (campaign batches, imports) are owned by instance id, and an instance resumes the
 * batches its id owns at once after a restart. Two live processes with the same id would therefore
 * each treat the other's batches as their own and send them twice. The guard prevents that: an
 * instance holds a session-level advisory lock on its id for as long as it runs, on a connection of
 * its own, and a second process with the same id refuses to start.
 *
 * The lock goes with the holder's connection, so a stopped or killed instance frees it at once (the
 * server sees the socket close). A holder that stopped answering without its connection closing (its
 * host died) is recognised by its heartbeat: the holder runs a statement every `heartbeatMs`, and a
 * holder whose last statement is older than `staleMs` is disconnected (`pg_terminate_backend`) so the
 * restarted instance can take its id. Needs session semantics (a direct connection or a session-mode
 * pooler), as the importer's temporary tables do.
 */
import type { Logger } from 'pino';
import type { BulkSession, Db } from './db.js';

/** First key of the advisory lock (the namespace "MR"); the second is hashtext(instance id). */
const LOCK_CLASS = 0x4d52;

/** Timings (ms). */
export interface InstanceGuardOptions {
  /** How often the holder shows it is alive. */
  heartbeatMs: number;
  /** A holder silent for longer than this is taken to be dead. */
  staleMs: number;
  /** How long a start waits for a holder that is going away (its backend exiting) before refusing. */
  waitMs: number;
  /**
   * Called once when, after losing its connection, the guard finds the id held by another live
   * instance: both now run with one id, so this one must stop (main.ts shuts the process down).
   */
  onTaken?: (err: InstanceIdInUseError) => void;
}

/** Defaults: a heartbeat every 5 s, a holder silent for 30 s is dead, a start waits 3 s. */
export const DEFAULT_INSTANCE_GUARD_OPTIONS: InstanceGuardOptions = { heartbeatMs: 5000, staleMs: 30_000, waitMs: 3000 };

/** Thrown when another live instance holds the id; the message says what to do. */
export class InstanceIdInUseError extends Error {
  constructor(id: string, holder: string) {
    super(
      `MAILROOM_INSTANCE_ID "${id}" is in use by another running instance (${holder}); give every instance its own id, ` +
        'or stop the other one first',
    );
  }
}

/** The holder of an id's lock, as pg_stat_activity shows it. */
interface Holder {
  pid: number;
  application_name: string;
  addr: string | null;
  /** Milliseconds since its last statement started; null when the server does not show it to us. */
  silent_ms: number | null;
}

/** "database backend 123, "mailroom node-1" from 10.0.0.5". */
function describe(h: Holder): string {
  return `database backend ${h.pid}${h.application_name ? `, "${h.application_name}"` : ''}${h.addr ? ` from ${h.addr}` : ''}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds this instance's id for the life of the process (see the module comment). */
export class InstanceGuard {
  private closed = false;
  private wake: (() => void) | null = null;
  private held: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Db,
    private readonly id: string,
    private readonly opts: InstanceGuardOptions,
    private readonly logger: Logger,
  ) {}

  /**
   * Takes the lock on `id` and keeps it (re-taking it after a lost connection) until {@link close}.
   * Throws InstanceIdInUseError when a live instance holds it, or the driver's error when the database
   * cannot be reached.
   */
  static async acquire(db: Db, id: string, logger: Logger, opts: InstanceGuardOptions = DEFAULT_INSTANCE_GUARD_OPTIONS): Promise<InstanceGuard> {
    const guard = new InstanceGuard(db, id, opts, logger);
    await new Promise<void>((resolve, reject) => {
      guard.held = guard.hold(resolve, reject);
    });
    return guard;
  }

  /** Releases the lock (closes its connection's session use); idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.held;
  }

  /** Takes the lock on a session and beats until closed; after a lost connection, takes it again. */
  private async hold(acquired: () => void, refused: (err: unknown) => void): Promise<void> {
    let first = true;
    let retryMs = 500;
    while (!this.closed) {
      try {
        await this.db.bulk(async (s) => {
          await this.take(s);
          if (first) acquired();
          else this.logger.info({ instance_id: this.id }, 'instance id lock taken again');
          first = false;
          retryMs = 500;
          while (!this.closed) {
            await new Promise<void>((resolve) => {
              this.wake = resolve;
              setTimeout(resolve, this.opts.heartbeatMs).unref();
            });
            this.wake = null;
            if (!this.closed) await s.sql('SELECT 1');
          }
          await s.sql('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, this.id]);
        });
      } catch (err) {
        if (first) return refused(err);
        if (this.closed) return;
        if (err instanceof InstanceIdInUseError) {
          this.logger.error({ err, instance_id: this.id }, 'another instance took this instance id while the database connection was lost; stopping');
          this.opts.onTaken?.(err);
          return;
        }
        this.logger.error({ err, instance_id: this.id }, 'lost the instance id lock (database connection); taking it again');
        await sleep(retryMs);
        retryMs = Math.min(retryMs * 2, 10_000);
      }
    }
  }

  /** Takes the lock on `s`, disconnecting a dead holder; throws InstanceIdInUseError for a live one. */
  private async take(s: BulkSession): Promise<void> {
    const deadline = Date.now() + this.opts.waitMs;
    // Names the connection, so an operator (and a refused instance's message) can tell whose it is.
    await s.sql("SELECT set_config('application_name', $1, false)", [`mailroom ${this.id}`.slice(0, 63)]);
    for (;;) {
      const [row] = await s.sql<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, this.id]);
      if (row?.ok) return;
      const [holder] = await s.sql<Holder>(
        `SELECT a.pid, a.application_name, host(a.client_addr) AS addr,
                (extract(epoch FROM now() - a.query_start) * 1000)::bigint AS silent_ms
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.classid = $1::int4::oid AND l.objid = hashtext($2)::oid AND l.objsubid = 2`,
        [LOCK_CLASS, this.id],
      );
      if (holder !== undefined && holder.silent_ms !== null && Number(holder.silent_ms) > this.opts.staleMs) {
        this.logger.warn({ instance_id: this.id, pid: holder.pid, silent_ms: Number(holder.silent_ms) }, 'instance id held by a silent connection; disconnecting it');
        await s.sql('SELECT pg_terminate_backend($1)', [holder.pid]);
      } else if (Date.now() >= deadline) {
        throw new InstanceIdInUseError(this.id, holder === undefined ? 'it let go while we looked; try again' : describe(holder));
      }
      await sleep(200);
    }
  }
}
