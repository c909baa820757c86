/**
 * The recent log lines of every instance, as text (GET /api/logs; the lines are written by
 * writer.ts). listmonk answers its lines as `2006/01/02 15:04:05 file.go:12: message`; Mailroom's lines
 * are structured (pino), so each is rendered on one line as
 * `<RFC 3339 time> <instance> <LEVEL> <component>: <message> <other fields as JSON>` (the component
 * part only when the line has one), e.g.
 * `2026-11-28T02:30:00.123Z node-1 WARN campaign-runner: campaign paused {"campaign_id":3}`.
 */
import type { Db } from '../../db/db.js';
import { Q } from './queries.js';
import { DEFAULT_LOG_LINES } from './schemas.js';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino fields shown in the line's head (or not at all), not repeated in its JSON tail. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'component', 'pid', 'hostname', 'instance']);

/** One stored line. */
interface StoredLine {
  instance: string;
  created_at: Date;
  level: number;
  line: Record<string, unknown>;
}

/** One log line in parts, as the Logs page shows it (the text form joins them with spaces). */
export interface LogLineParts {
  /** RFC 3339 time in UTC with milliseconds. */
  time: string;
  /** The instance that wrote it (MAILROOM_INSTANCE_ID). */
  instance: string;
  /** `INFO`, `WARN`, `ERROR`, … (pino's level names, upper case). */
  level: string;
  /** `[<component>: ]<message>[ <other fields as JSON>]`. */
  message: string;
}

/** Splits one stored line into the parts of its text form (see the module comment). */
export function logLineParts(r: StoredLine): LogLineParts {
  const component = typeof r.line.component === 'string' ? `${r.line.component}: ` : '';
  const msg = typeof r.line.msg === 'string' ? r.line.msg : '';
  const rest = Object.fromEntries(Object.entries(r.line).filter(([k]) => !HEAD_FIELDS.has(k)));
  const tail = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  return {
    time: new Date(r.created_at).toISOString(),
    instance: r.instance,
    level: LEVEL_NAMES[r.level] ?? String(r.level),
    message: `${component}${msg}${tail}`,
  };
}

/** Renders one stored line as text (see the module comment). */
export function formatLogLine(r: StoredLine): string {
  const p = logLineParts(r);
  return `${p.time} ${p.instance} ${p.level} ${p.message}`;
}

/** Reads log lines. */
export class LogService {
  constructor(private readonly db: Db) {}

  /** The `limit` newest lines of all instances, oldest first, as text. */
  async recent(limit = DEFAULT_LOG_LINES): Promise<string[]> {
    const rows = await this.db.run<StoredLine>(Q['log-lines-recent'], { limit });
    return rows.map(formatLogLine);
  }

  /** The `limit` newest lines of all instances, oldest first, in parts (the Logs page). */
  async recentParts(limit = DEFAULT_LOG_LINES): Promise<LogLineParts[]> {
    const rows = await this.db.run<StoredLine>(Q['log-lines-recent'], { limit });
    return rows.map(logLineParts);
  }
}
