/**
 * The whole application on a fresh test database (PGlite, or PostgreSQL with DATABASE_URL), built the
 * way main.ts builds it, driven through `app.inject` (real HTTP semantics, no socket) or a real port.
 */
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildDeps, type Deps } from '../../src/deps.js';
import type { App } from '../../src/http/types.js';
import type { RunnerOptions } from '../../src/workers/campaign-runner.js';
import type { BuildOptions } from '../../src/deps.js';
import { openTestDb, type TestDb } from './db.js';

export const TEST_USER = 'admin';
export const TEST_PASSWORD = 'test-password-123';
/** Authorization header for the test API user. */
export const AUTH = `Basic ${Buffer.from(`${TEST_USER}:${TEST_PASSWORD}`).toString('base64')}`;
export const ROOT_URL = 'http://mailroom.test';

/** A built application and its parts. */
export interface TestApp {
  app: App;
  deps: Deps;
  testDb: TestDb;
  /** Injects a JSON request with credentials; returns status and parsed body. */
  api<T = any>(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Options: environment overrides and engine tunables. `startRunner` starts the delivery engine. */
export interface TestAppOptions {
  env?: Record<string, string>;
  /** Settings written before the app is used; default `{"app.message_rate": 0}` (no rate limit); null: none. */
  settings?: Record<string, unknown> | null;
  runner?: Partial<Omit<RunnerOptions, 'owner'>>;
  startRunner?: boolean;
  /** Importer tunables (batch size, the beforeFlush hook). */
  importer?: BuildOptions['importer'];
  /** Adds routes before the app is ready (e.g. a test-only page rendering UI kit components). */
  routes?: (app: App) => void;
}

/** Fast engine settings for tests: short ticks, checkpoints and leases. */
export const FAST_RUNNER: Partial<Omit<RunnerOptions, 'owner'>> = { tickMs: 100, checkpointMs: 50, leaseMs: 5000, retryBaseMs: 100, retryMaxMs: 1000 };

/** Builds the app on a fresh database. */
export async function buildTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const testDb = await openTestDb();
  const config = loadConfig({
    MAILROOM_ADMIN_USER: TEST_USER,
    MAILROOM_ADMIN_PASSWORD: TEST_PASSWORD,
    MAILROOM_ROOT_URL: ROOT_URL,
    MAILROOM_SMTP_URL: 'smtp://127.0.0.1:9',
    MAILROOM_FROM_EMAIL: 'Mailroom Test <news@mailroom.test>',
    MAILROOM_DATA_DIR: '/tmp/mailroom-test-unused',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const deps = await buildDeps(config, logger, { db: testDb.db, runner: { ...FAST_RUNNER, ...opts.runner }, ...(opts.importer ? { importer: opts.importer } : {}) });
  // Tests send as fast as they can unless they test the limiter (the default rate is 10 messages/s).
  if (opts.settings !== null) await deps.settings.update({ 'app.message_rate': 0, ...opts.settings });
  const app = await buildApp(deps);
  opts.routes?.(app);
  await app.ready();
  if (opts.startRunner) await deps.runner?.start();
  return {
    app,
    deps,
    testDb,
    async api(method, url, body, headers = {}) {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: AUTH, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        /* not JSON */
      }
      return { status: res.statusCode, body: parsed as never, headers: res.headers };
    },
    async close() {
      await app.close();
      await deps.close();
      await testDb.destroy();
    },
  };
}
