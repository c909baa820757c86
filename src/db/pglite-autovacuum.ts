/**
 * Autovacuum for the embedded store. PGlite runs PostgreSQL in single-user mode inside this process,
 * where no autovacuum launcher exists: without this module no table is ever analyzed or vacuumed, so
 * the planner works without statistics for the life of the data directory and dead rows are never
 * reclaimed. Without statistics, carving a campaign batch at subscriber 50,000 of 100,000 took
 * 628 ms instead of 6 ms (a bitmap scan of every subscriber instead of two index ranges), so an
 * embedded campaign slowed down as it grew.
 *
 * Every {@link PgliteAutovacuumOptions.intervalMs} it reads the cumulative statistics and applies
 * PostgreSQL's own autovacuum rule (PostgreSQL 15 manual, §25.1.6 "The Autovacuum Daemon", with the
 * server's `autovacuum_*` settings, whose defaults are thresholds 50 / 50 / 1000 rows and scale factors
 * 0.2 / 0.1 / 0.2 of the table's row estimate):
 *  - VACUUM (ANALYZE) when dead rows exceed `autovacuum_vacuum_threshold + scale × reltuples`, or rows
 *    inserted since the last vacuum exceed `autovacuum_vacuum_insert_threshold + scale × reltuples`;
 *  - ANALYZE when rows changed since the last analyze exceed `autovacuum_analyze_threshold + scale × reltuples`.
 * Temporary tables (the importer's staging tables) are skipped, as autovacuum skips them.
 *
 * PGlite executes one statement at a time, so a VACUUM holds up other queries while it runs (tens of
 * milliseconds for 10,000 rows; ANALYZE samples at most 30,000 rows whatever the table's size).
 */
import type { PGlite } from '@electric-sql/pglite';

/** Tunables. */
export interface PgliteAutovacuumOptions {
  /** Pause between two checks (ms). */
  intervalMs: number;
  /** Told about a table that could not be processed (the check goes on with the next one). */
  onError?: (err: unknown, table: string) => void;
}

/** Defaults: a check every 10 s (PostgreSQL's `autovacuum_naptime` is 60 s per database; the check itself costs about 1 ms). */
export const DEFAULT_AUTOVACUUM_OPTIONS: PgliteAutovacuumOptions = { intervalMs: 10_000 };

/** One table the check processed, and how. */
export interface AutovacuumAction {
  /** Quoted, schema-qualified name. */
  table: string;
  action: 'vacuum analyze' | 'analyze';
}

/** The tables due for VACUUM or ANALYZE under PostgreSQL's autovacuum rule (see the module comment). */
const DUE = `
SELECT quote_ident(s.schemaname) || '.' || quote_ident(s.relname) AS table,
       (s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
                       + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
        OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
                       + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0)) AS vacuum,
       s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                       + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) AS analyze
FROM pg_stat_user_tables s
JOIN pg_class c ON c.oid = s.relid
WHERE c.relpersistence <> 't'
ORDER BY s.relname`;

/** Runs PostgreSQL's autovacuum rule over a PGlite database, in the background or on demand. */
export class PgliteAutovacuum {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly pg: Pick<PGlite, 'query'>,
    private readonly opts: PgliteAutovacuumOptions = DEFAULT_AUTOVACUUM_OPTIONS,
  ) {}

  /** Starts the periodic checks (the timer does not keep the process alive). */
  start(): void {
    if (this.stopped || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .catch((err: unknown) => this.opts.onError?.(err, '*'))
        .finally(() => {
          this.running = null;
          this.start();
        });
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  /** Stops the checks and waits for one in progress; the database can be closed afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * One check: flushes this session's pending statistics, then vacuums or analyzes every table that is
   * due, one statement each. Returns what it did. Throws only when the statistics cannot be read.
   */
  async runOnce(): Promise<AutovacuumAction[]> {
    // Counters reach the shared statistics at most once a second, when the session is idle; the
    // flush makes this check see the writes made up to now.
    await this.pg.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await this.pg.query<{ table: string; vacuum: boolean; analyze: boolean }>(DUE);
    const done: AutovacuumAction[] = [];
    for (const r of rows) {
      if (this.stopped) break;
      if (!r.vacuum && !r.analyze) continue;
      const action = r.vacuum ? 'vacuum analyze' : 'analyze';
      try {
        await this.pg.query(r.vacuum ? `VACUUM (ANALYZE) ${r.table}` : `ANALYZE ${r.table}`);
        done.push({ table: r.table, action });
      } catch (err) {
        this.opts.onError?.(err, r.table); // dropped meanwhile, or a full disk: the next check tries again
      }
    }
    return done;
  }
}
