/**
 * Process configuration, read once from environment variables and validated at start-up. A bad value
 * throws {@link ConfigError} naming the variable; main.ts prints it and exits. Operator-editable
 * settings (SMTP servers, rates, privacy) live in the database instead (conventions §10).
 * Source: issue "Foundation" §2.
 */
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConfigError } from './errors.js';
import { parseSender, type Sender } from './mail/address.js';
import { parseDuration } from './util/duration.js';

/** Validated configuration. Durations are milliseconds. */
export interface Config {
  /** TCP port the HTTP server listens on (PORT, default 9000). */
  port: number;
  /** Interface to bind (HOST, default 0.0.0.0). */
  host: string;
  /** PostgreSQL connection string (DATABASE_URL); null means the embedded PGlite store. */
  databaseUrl: string | null;
  /** Absolute directory for the embedded database and uploads (MAILROOM_DATA_DIR, default ./data). */
  dataDir: string;
  /** Public base URL used in links inside e-mails, without trailing slash (MAILROOM_ROOT_URL). */
  rootUrl: string;
  /** API user name (MAILROOM_ADMIN_USER, default `admin`). */
  adminUser: string;
  /** API password; null keeps the stored one (or generates one on first start). */
  adminPassword: string | null;
  /** SMTP server of the default `email` messenger (MAILROOM_SMTP_URL). */
  smtp: SmtpUrl;
  /** Default sender (MAILROOM_FROM_EMAIL), `Name <address>`. */
  fromEmail: string;
  /** Parsed form of {@link fromEmail}. */
  from: Sender;
  /** Log level for pino (LOG_LEVEL, default info). */
  logLevel: string;
  /** This process's instance id, used for work leases (MAILROOM_INSTANCE_ID, default random). */
  instanceId: string;
  /** When true the process serves the API but never sends campaigns (MAILROOM_API_ONLY). */
  apiOnly: boolean;
  /**
   * Connections a subscriber import writes on at once on PostgreSQL (MAILROOM_IMPORT_WRITERS, 1–16,
   * default 2); the embedded store always uses one.
   */
  importWriters: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (MAILROOM_TRUST_PROXY): false
   * (default), true (any), a hop count, or a comma-separated list of addresses/CIDRs. Fastify `trustProxy`.
   */
  trustProxy: boolean | number | string[];
  /** Timeouts and the connection bound of the HTTP server (issue 14 finding 8). */
  http: HttpLimits;
}

/**
 * How long the HTTP server waits for a client, and how many connections it keeps (issue 14 finding 8:
 * slow bodies held ~20,000 connections until the file descriptors ran out). Durations are ms.
 */
export interface HttpLimits {
  /** Time to receive a request's headers, from its first byte (MAILROOM_HTTP_HEADERS_TIMEOUT, 30 s). */
  headersTimeoutMs: number;
  /** Time to receive the body of a request once its headers are in (MAILROOM_HTTP_REQUEST_TIMEOUT, 60 s). */
  requestTimeoutMs: number;
  /** The same for the upload routes: imports, media, tx attachments (MAILROOM_HTTP_UPLOAD_TIMEOUT, 1 h). */
  uploadTimeoutMs: number;
  /** Idle time of a kept-alive connection between two requests (MAILROOM_HTTP_KEEPALIVE_TIMEOUT, 72 s). */
  keepAliveTimeoutMs: number;
  /** Time a connection may pass with nothing sent or received (MAILROOM_HTTP_CONNECTION_TIMEOUT, 5 min). */
  connectionTimeoutMs: number;
  /** Most open connections (MAILROOM_HTTP_MAX_CONNECTIONS); null: derived from the descriptor limit at start. */
  maxConnections: number | null;
}

/** An SMTP server parsed from an `smtp://` or `smtps://` URL. */
export interface SmtpUrl {
  host: string;
  port: number;
  /** true for implicit TLS (`smtps://`, usually port 465). */
  secure: boolean;
  user: string | null;
  password: string | null;
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Every environment variable Mailroom reads. {@link loadConfig} reads the environment only through
 * this list (its variables are typed by it), so a new variable has to be added here, and
 * test/unit/configuration-doc.test.ts then requires it in docs/configuration.md.
 */
export const ENV_VARS = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'MAILROOM_DATA_DIR',
  'MAILROOM_ROOT_URL',
  'MAILROOM_ADMIN_USER',
  'MAILROOM_ADMIN_PASSWORD',
  'MAILROOM_SMTP_URL',
  'MAILROOM_FROM_EMAIL',
  'LOG_LEVEL',
  'MAILROOM_INSTANCE_ID',
  'MAILROOM_API_ONLY',
  'MAILROOM_TRUST_PROXY',
  'MAILROOM_IMPORT_WRITERS',
  'MAILROOM_HTTP_HEADERS_TIMEOUT',
  'MAILROOM_HTTP_REQUEST_TIMEOUT',
  'MAILROOM_HTTP_UPLOAD_TIMEOUT',
  'MAILROOM_HTTP_KEEPALIVE_TIMEOUT',
  'MAILROOM_HTTP_CONNECTION_TIMEOUT',
  'MAILROOM_HTTP_MAX_CONNECTIONS',
] as const;

/** The name of one environment variable Mailroom reads. */
export type EnvVar = (typeof ENV_VARS)[number];

/** The variables of {@link ENV_VARS} that `env` sets (the only way loadConfig reads the environment). */
function readEnv(env: NodeJS.ProcessEnv): Partial<Record<EnvVar, string>> {
  const vars: Partial<Record<EnvVar, string>> = {};
  for (const name of ENV_VARS) {
    const value = env[name];
    if (value !== undefined) vars[name] = value;
  }
  return vars;
}

/** Reads and validates configuration from `env`. Throws ConfigError naming the first bad variable. */
export function loadConfig(processEnv: NodeJS.ProcessEnv = process.env): Config {
  const env = readEnv(processEnv);
  const port = parsePort(env.PORT ?? '9000', 'PORT');
  const host = nonEmpty(env.HOST ?? '0.0.0.0', 'HOST');
  const databaseUrl = parseDatabaseUrl(env.DATABASE_URL);
  const dataDir = resolve(nonEmpty(env.MAILROOM_DATA_DIR ?? './data', 'MAILROOM_DATA_DIR'));
  const rootUrl = parseRootUrl(env.MAILROOM_ROOT_URL ?? `http://localhost:${port}`);
  const adminUser = parseAdminUser(env.MAILROOM_ADMIN_USER ?? 'admin');
  const adminPassword = parseAdminPassword(env.MAILROOM_ADMIN_PASSWORD);
  const smtp = parseSmtpUrl(env.MAILROOM_SMTP_URL ?? 'smtp://localhost:25');
  const fromEmail = (env.MAILROOM_FROM_EMAIL ?? 'Mailroom <mailroom@localhost>').trim();
  const from = parseSender(fromEmail);
  if (from === null) throw new ConfigError('MAILROOM_FROM_EMAIL', 'must be `Name <address>` or an e-mail address');
  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${[...LOG_LEVELS].join(', ')}`);
  const instanceId = env.MAILROOM_INSTANCE_ID?.trim() || randomUUID();
  const apiOnly = parseBool(env.MAILROOM_API_ONLY ?? 'false', 'MAILROOM_API_ONLY');
  const trustProxy = parseTrustProxy(env.MAILROOM_TRUST_PROXY ?? 'false');
  const importWriters = parseInteger(env.MAILROOM_IMPORT_WRITERS ?? '2', 'MAILROOM_IMPORT_WRITERS', 1, 16);
  const http = parseHttpLimits(env);
  return { port, host, databaseUrl, dataDir, rootUrl, adminUser, adminPassword, smtp, fromEmail, from, logLevel, instanceId, apiOnly, trustProxy, importWriters, http };
}

const DAY_MS = 86_400_000;

/** The HTTP server's timeouts and connection bound; defaults as documented in docs/configuration.md. */
function parseHttpLimits(env: Partial<Record<EnvVar, string>>): HttpLimits {
  const ms = (name: EnvVar, fallback: string) => parseDurationVar(env[name] ?? fallback, name, 100, DAY_MS);
  const headersTimeoutMs = ms('MAILROOM_HTTP_HEADERS_TIMEOUT', '30s');
  const requestTimeoutMs = ms('MAILROOM_HTTP_REQUEST_TIMEOUT', '60s');
  const uploadTimeoutMs = ms('MAILROOM_HTTP_UPLOAD_TIMEOUT', '1h');
  const keepAliveTimeoutMs = ms('MAILROOM_HTTP_KEEPALIVE_TIMEOUT', '72s');
  const connectionTimeoutMs = ms('MAILROOM_HTTP_CONNECTION_TIMEOUT', '5m');
  const max = env.MAILROOM_HTTP_MAX_CONNECTIONS?.trim() ?? '';
  const maxConnections = max === '' ? null : parseInteger(max, 'MAILROOM_HTTP_MAX_CONNECTIONS', 1, 1_000_000);
  return { headersTimeoutMs, requestTimeoutMs, uploadTimeoutMs, keepAliveTimeoutMs, connectionTimeoutMs, maxConnections };
}

/**
 * A duration variable: whole milliseconds (`1500`) or a Go-style duration as listmonk's settings write
 * them (`90s`, `5m`, `1h30m`, `250ms`), between `minMs` and `maxMs`. Throws ConfigError naming it.
 */
function parseDurationVar(value: string, name: string, minMs: number, maxMs: number): number {
  const v = value.trim();
  const ms = /^\d+$/u.test(v) ? Number(v) : parseDuration(v);
  if (ms === null) throw new ConfigError(name, `must be a duration like 30s, 5m or 1h30m, or whole milliseconds, got "${value}"`);
  if (ms < minMs || ms > maxMs) throw new ConfigError(name, `must be between ${minMs}ms and ${maxMs / 3_600_000}h, got "${value}"`);
  return ms;
}

function nonEmpty(value: string, name: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new ConfigError(name, 'must not be empty');
  return trimmed;
}

function parsePort(value: string, name: string): number {
  if (!/^\d+$/u.test(value.trim())) throw new ConfigError(name, `must be a port number, got "${value}"`);
  const port = Number(value);
  if (port < 1 || port > 65535) throw new ConfigError(name, `must be between 1 and 65535, got ${port}`);
  return port;
}

function parseInteger(value: string, name: string, min: number, max: number): number {
  const v = value.trim();
  if (!/^\d+$/u.test(v) || Number(v) < min || Number(v) > max) throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${value}"`);
  return Number(v);
}

function parseBool(value: string, name: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got "${value}"`);
}

function parseTrustProxy(value: string): boolean | number | string[] {
  const v = value.trim();
  if (/^\d+$/u.test(v)) return Number(v);
  if (['true', 'false', 'yes', 'no', '1', '0', 'on', 'off', ''].includes(v.toLowerCase())) return parseBool(v, 'MAILROOM_TRUST_PROXY');
  const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (list.every((x) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/u.test(x))) return list;
  throw new ConfigError('MAILROOM_TRUST_PROXY', 'must be true, false, a hop count, or a comma-separated list of addresses/CIDRs');
}

function parseDatabaseUrl(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError('DATABASE_URL', 'must be a URL like postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must use postgres:// or postgresql://, got ${url.protocol}//`);
  }
  return value.trim();
}

function parseRootUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError('MAILROOM_ROOT_URL', `must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('MAILROOM_ROOT_URL', 'must use http:// or https://');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError('MAILROOM_ROOT_URL', 'must not have a query string or fragment');
  }
  return url.toString().replace(/\/+$/u, '');
}

function parseAdminUser(value: string): string {
  const user = value.trim();
  if (!/^[A-Za-z0-9_.@-]{3,200}$/u.test(user)) {
    throw new ConfigError('MAILROOM_ADMIN_USER', 'must be 3-200 characters of letters, digits, _ . @ -');
  }
  return user;
}

function parseAdminPassword(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (value.length < 8) throw new ConfigError('MAILROOM_ADMIN_PASSWORD', 'must be at least 8 characters');
  if (value.length > 1000) throw new ConfigError('MAILROOM_ADMIN_PASSWORD', 'must be at most 1000 characters');
  if (value.includes(':')) throw new ConfigError('MAILROOM_ADMIN_PASSWORD', 'must not contain ":" (HTTP Basic separator)');
  return value;
}

/** Parses `smtp://[user:pass@]host[:port]` or `smtps://…`. Throws ConfigError naming MAILROOM_SMTP_URL. */
export function parseSmtpUrl(value: string, name = 'MAILROOM_SMTP_URL'): SmtpUrl {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(name, 'must be a URL like smtp://user:password@host:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(name, `must use smtp:// or smtps://, got ${url.protocol}//`);
  }
  if (url.hostname === '') throw new ConfigError(name, 'must name a host');
  const secure = url.protocol === 'smtps:';
  const port = url.port === '' ? (secure ? 465 : 25) : Number(url.port);
  const user = url.username === '' ? null : decodeURIComponent(url.username);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  return { host: url.hostname.replace(/^\[(.*)\]$/u, '$1'), port, secure, user, password };
}
