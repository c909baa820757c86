/**
 * The only file that listens: loads the configuration, builds the dependencies, starts the HTTP server
 * and the delivery engine, and stops them gracefully on SIGTERM/SIGINT (stop claiming work, let
 * in-flight sends settle and write progress, close connections) within a bound.
 */
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { buildDeps } from './deps.js';
import { ConfigError } from './errors.js';
import { createLogger } from './modules/logs/logger.js';
import { LogLineWriter } from './modules/logs/writer.js';

/** Longest graceful shutdown before the process exits anyway (ms). */
const SHUTDOWN_TIMEOUT_MS = 20_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`mailroom: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // Info-and-above lines also go to the database, for GET /api/logs across instances.
  const logLines = new LogLineWriter();
  const logger = createLogger(config.logLevel, { instance: config.instanceId.slice(0, 8) }, logLines);
  // Set once the shutdown below exists: another live instance took this instance's id (PostgreSQL).
  let stopOnIdTaken: (() => void) | null = null;
  const deps = await buildDeps(config, logger, { logLines, onInstanceIdTaken: () => stopOnIdTaken?.() });
  const app = await buildApp(deps);
  await app.listen({ port: config.port, host: config.host });
  // The setting in effect, not MAILROOM_ROOT_URL: the variable only seeds app.root_url on first start.
  logger.info(
    { url: `http://${config.host}:${config.port}`, store: deps.db.kind, root_url: deps.settings.get(deps.core.rootUrl), api_only: config.apiOnly },
    'mailroom started',
  );
  await deps.runner?.start();

  let stopping = false;
  const shutdown = (signal: string, exitCode = 0): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    force.unref();
    void (async () => {
      // Stop claiming work at once, while the HTTP server drains its requests.
      await Promise.all([app.close(), deps.runner?.stop()]);
      await deps.close();
      logger.info('stopped');
      process.exit(exitCode);
    })();
  };
  // Two live instances with one id would send each other's batches: this one stops (status 1).
  stopOnIdTaken = () => shutdown('instance id taken by another instance', 1);
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`mailroom: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
