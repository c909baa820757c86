/**
 * The settings every part of Mailroom reads: public URL, default sender, SMTP servers, and the sending
 * engine's basic sizes (reference §12, §15.1, §18.1). First start seeds them from the environment
 * (MAILROOM_ROOT_URL, MAILROOM_FROM_EMAIL, MAILROOM_SMTP_URL); afterwards the database is authoritative.
 */
import { checkCustomHeaders } from '../../mail/headers.js';
import { FieldError } from '../../errors.js';
import { randomUUID } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { Config } from '../../config.js';
import { availableLanguages, hasLanguage } from '../../i18n/catalog.js';
import { parseSender } from '../../mail/address.js';
import { DURATION_PATTERN } from '../../util/duration.js';
import { defineSetting, duplicateUuid, passwordBlocks, type SettingDef } from '../../settings/definitions.js';

/** One SMTP server block, listmonk's shape (reference §18.1). */
export const SmtpServer = Type.Object({
  uuid: Type.String({ maxLength: 64 }),
  name: Type.String({ maxLength: 100, pattern: '^[a-z0-9_-]*$' }),
  enabled: Type.Boolean(),
  host: Type.String({ minLength: 1, maxLength: 255 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  hello_hostname: Type.String({ maxLength: 255 }),
  auth_protocol: Type.Enum(['none', 'plain', 'login', 'cram']),
  username: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  tls_type: Type.Enum(['none', 'STARTTLS', 'TLS']),
  tls_skip_verify: Type.Boolean(),
  max_conns: Type.Integer({ minimum: 1, maximum: 1000 }),
  idle_timeout: Type.String({ pattern: DURATION_PATTERN }),
  wait_timeout: Type.String({ pattern: DURATION_PATTERN }),
  max_msg_retries: Type.Integer({ minimum: 0, maximum: 100 }),
  email_headers: Type.Array(Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 2000 })), { maxItems: 50 }),
});
export type SmtpServer = Static<typeof SmtpServer>;

/** The SMTP block seeded from MAILROOM_SMTP_URL on first start. */
export function smtpFromConfig(config: Config): SmtpServer {
  const { smtp } = config;
  return {
    uuid: randomUUID(),
    name: 'primary',
    enabled: true,
    host: smtp.host,
    port: smtp.port,
    hello_hostname: '',
    auth_protocol: smtp.user ? 'login' : 'none',
    username: smtp.user ?? '',
    password: smtp.password ?? '',
    tls_type: smtp.secure ? 'TLS' : 'STARTTLS',
    tls_skip_verify: false,
    max_conns: 10,
    idle_timeout: '15s',
    wait_timeout: '5s',
    max_msg_retries: 2,
    email_headers: [],
  };
}

/**
 * `app.root_url` without its trailing slashes, as listmonk stores it (reference §12) and as
 * MAILROOM_ROOT_URL is read: every link is built as `<root_url>/path`. Non-strings are left to the schema.
 */
export function withoutTrailingSlashes(raw: unknown): unknown {
  return typeof raw === 'string' ? raw.replace(/\/+$/u, '') : raw;
}

/**
 * Rules of the `smtp` list beyond its schema: at least one enabled server (listmonk refuses the
 * settings otherwise, reference §12 `settings.errorNoSMTP`: the `email` messenger would have nothing to
 * send through), unique non-empty names (each is the messenger `email-<name>`), unique uuids (blocks
 * are matched by uuid to keep their passwords), and `email_headers` that pass the one header rule
 * (src/mail/headers.ts, issue 14 finding 7: no `Bcc` copying every message sent through the server).
 */
export function checkSmtpServers(servers: SmtpServer[]): string | null {
  if (!servers.some((s) => s.enabled)) return 'at least one SMTP block should be enabled';
  for (const [i, s] of servers.entries()) {
    try {
      checkCustomHeaders('email_headers', s.email_headers);
    } catch (err) {
      if (err instanceof FieldError) return `server ${i + 1}${s.name ? ` ("${s.name}")` : ''}: ${err.message}`;
      throw err;
    }
  }
  const names = servers.map((s) => s.name).filter((n) => n !== '');
  if (new Set(names).size !== names.length) return 'server names must be unique';
  const uuid = duplicateUuid(servers);
  if (uuid !== null) return `server uuids must be unique ("${uuid}" is used more than once)`;
  return null;
}

/**
 * The SMTP block fields that say where and how a password travels (issue 14 finding 1): a password sent
 * back masked is taken from the stored block only while none of them changed. The settings write and
 * the SMTP test (smtp-test.ts) apply the same rule.
 */
export const SMTP_SECRET_DESTINATION = ['host', 'port', 'username', 'tls_type', 'tls_skip_verify'] as const satisfies ReadonlyArray<keyof SmtpServer>;

/** Core setting declarations, with defaults seeded from `config`. */
export function coreSettings(config: Config) {
  return {
    rootUrl: defineSetting({
      key: 'app.root_url',
      schema: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://[^\\s?#]+$' }),
      default: config.rootUrl,
      description: 'Public base URL used in links inside e-mails; trailing slashes are removed.',
      normalize: withoutTrailingSlashes,
    }),
    logoUrl: defineSetting({
      key: 'app.logo_url',
      schema: Type.String({ maxLength: 2000, pattern: '^(https?://\\S+)?$' }),
      default: '',
      description: 'Logo URL, what `LogoURL` returns in templates (listmonk\'s system e-mails show it); empty: none.',
    }),
    lang: defineSetting({
      key: 'app.lang',
      schema: Type.String({ minLength: 2, maxLength: 20 }),
      default: 'en',
      description: 'Language of `L.T`/`L.Ts`/`L.Tc` in templates: a catalogue file in src/i18n (listmonk\'s `app.lang`).',
      check: (v) => (hasLanguage(v) ? null : `no catalogue for "${v}"; available: ${availableLanguages().join(', ')}`),
    }),
    fromEmail: defineSetting({
      key: 'app.from_email',
      schema: Type.String({ minLength: 3, maxLength: 2000 }),
      default: config.fromEmail,
      description: 'Default sender of campaigns, `Name <address>`.',
      check: (v) => (parseSender(v) === null ? 'must be `Name <address>` or an e-mail address' : null),
    }),
    notifyEmails: defineSetting({
      key: 'app.notify_emails',
      schema: Type.Array(Type.String({ minLength: 3, maxLength: 2000 }), { maxItems: 50 }),
      default: [] as string[],
      description: 'Who is e-mailed when a campaign finishes or pauses on errors and when an import ends (listmonk reference §12).',
      check: (list) => {
        const bad = list.findIndex((v) => parseSender(v) === null);
        return bad === -1 ? null : `item ${bad + 1} ("${list[bad]!.slice(0, 100)}") must be \`Name <address>\` or an e-mail address`;
      },
    }),
    concurrency: defineSetting({
      key: 'app.concurrency',
      schema: Type.Integer({ minimum: 1, maximum: 1000 }),
      default: 10,
      description: 'Messages sent concurrently by one instance, all campaigns together.',
    }),
    batchSize: defineSetting({
      key: 'app.batch_size',
      schema: Type.Integer({ minimum: 1, maximum: 100_000 }),
      default: 1000,
      description: 'Subscribers per unit of delivery work (batch).',
    }),
    optinTemplateId: defineSetting({
      key: 'app.optin_template_id',
      schema: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
      default: null,
      description: 'The transactional template used for double opt-in confirmation e-mails (installed on first start).',
    }),
    smtp: defineSetting({
      key: 'smtp',
      schema: Type.Array(SmtpServer, { maxItems: 50 }),
      default: [smtpFromConfig(config)],
      description: 'SMTP servers; the enabled ones form the `email` messenger.',
      // Where and how the password travels: a stored one is kept only while these stay the same.
      ...passwordBlocks<SmtpServer>({
        destination: SMTP_SECRET_DESTINATION,
        unused: (b) => b.auth_protocol === 'none',
      }),
      check: checkSmtpServers,
    }),
  } satisfies Record<string, SettingDef>;
}
