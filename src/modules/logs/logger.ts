/**
 * The process logger (pino): JSON lines to stdout at LOG_LEVEL and, when given, info-and-above lines
 * to a {@link LogLineWriter} (the database, for GET /api/logs). Secrets never reach either: values
 * under the keys below are replaced by `[redacted]` wherever a log call passes them (a settings object,
 * request headers, an error carrying its configuration).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLineWriter } from './writer.js';

/** Paths pino redacts (one level of nesting under any key, plus request headers and SMTP blocks). */
export const REDACTED_PATHS = [
  'password', '*.password', 'smtp[*].password', 'messengers[*].password',
  'token', '*.token', 'secret', '*.secret', 'api_key', '*.api_key',
  'authorization', 'cookie', 'headers.authorization', 'headers.cookie', 'req.headers.authorization', 'req.headers.cookie',
];

/**
 * Builds the logger. `base` fields go on every line (main.ts: the short instance id). With a writer,
 * lines at info and above also go to it (below LOG_LEVEL nothing is logged at all). `out` is where the
 * lines are printed: stdout unless given (tests).
 */
export function createLogger(level: string, base: Record<string, unknown>, writer?: LogLineWriter, out: DestinationStream = pino.destination(1)): Logger {
  const options = { level, base, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (writer === undefined || level === 'silent') return pino(options, out);
  const dbLevel = pino.levels.values[level]! > pino.levels.values.info! ? level : 'info';
  return pino(options, pino.multistream([
    { level: level as pino.Level, stream: out },
    { level: dbLevel as pino.Level, stream: writer },
  ]));
}
