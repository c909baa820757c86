/**
 * The composition root (conventions §6): opens the database, applies migrations, and builds every
 * repository, service, messenger and worker, passing collaborators in. Nothing else constructs them.
 */
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { migrate } from './db/migrate.js';
import { openPglite } from './db/pglite-store.js';
import { openPostgres } from './db/pg-store.js';
import { MessengerRegistry, type Messenger } from './mail/messenger.js';
import { campaignProgressReader, HealthMonitor, MeteredMessenger, Metrics } from './modules/health/monitor.js';
import { buildSmtpMessengers } from './mail/smtp-messengers.js';
import { coreSettings } from './modules/settings/core-settings.js';
import { SettingsService } from './modules/settings/service.js';
import { SmtpTester } from './modules/settings/smtp-test.js';
import { ListRepo } from './modules/lists/repo.js';
import { ListService } from './modules/lists/service.js';
import { SubscriberRepo } from './modules/subscribers/repo.js';
import { SubscriberService } from './modules/subscribers/service.js';
import { SubscriberBulkService } from './modules/subscribers/bulk.js';
import { SubscriberCsvExporter } from './modules/subscribers/csv-export.js';
import { SubscriberFinder } from './modules/subscribers/filter.js';
import { OptinMailer } from './modules/subscribers/optin-mailer.js';
import type { SubscriberApi } from './modules/subscribers/routes.js';
import { subscriberSettings, timeoutMs } from './modules/subscribers/settings.js';
import { PublicSubscriptionService } from './modules/public-subscription/service.js';
import type { PublicSubscriptionApi } from './modules/public-subscription/routes.js';
import { publicSubscriptionSettings } from './modules/public-subscription/settings.js';
import { corsSettings } from './http/cors.js';
import { DEFAULT_INSTANCE_GUARD_OPTIONS, InstanceGuard, type InstanceGuardOptions } from './db/instance-guard.js';
import { parseDuration } from './util/duration.js';
import { TemplateRepo } from './modules/templates/repo.js';
import { TemplateService } from './modules/templates/service.js';
import { CampaignRepo } from './modules/campaigns/repo.js';
import { CampaignService } from './modules/campaigns/service.js';
import { CampaignMessages } from './modules/campaigns/messages.js';
import { CampaignValidator } from './modules/campaigns/validator.js';
import { CampaignPageService } from './modules/campaign-pages/service.js';
import { archiveSettings } from './modules/campaign-pages/settings.js';
import type { MessageUrls } from './mail/campaign-message.js';
import { SubscriptionPageService } from './modules/subscription-pages/service.js';
import { UserService } from './modules/users/service.js';
import { AccountRepo } from './modules/users/repo.js';
import { AccountService } from './modules/users/accounts.js';
import { RoleRepo } from './modules/roles/repo.js';
import { RoleService } from './modules/roles/service.js';
import { SessionService } from './modules/auth/sessions.js';
import { LoginService } from './modules/auth/login.js';
import { SignInHousekeeping } from './modules/auth/housekeeping.js';
import { FailureCounter } from './modules/auth/failures.js';
import { TwofaService } from './modules/auth/twofa.js';
import { PasswordResetService } from './modules/auth/password-reset.js';
import { OidcService } from './modules/auth/oidc.js';
import { oidcSettings } from './modules/auth/oidc-settings.js';
import { CampaignStore, pauseCampaignsForDeletedLists } from './workers/campaign-store.js';
import { CampaignRunner, DEFAULT_RUNNER_OPTIONS, type MessageSettings, type RunnerOptions } from './workers/campaign-runner.js';
import { engineSettings, type RateLimits } from './workers/engine-settings.js';
import { DbPermitSource, RateLimiter } from './workers/rate-limiter.js';
import { buildPostbackMessengers, messengerSettings } from './mail/messenger-settings.js';
import { privacySettings, type PrivacySwitches } from './modules/tracking/settings.js';
import { LinkRegistry } from './modules/tracking/links.js';
import { TrackingService } from './modules/tracking/service.js';
import { DashboardRepo } from './modules/dashboard/repo.js';
import { DashboardService } from './modules/dashboard/service.js';
import { join } from 'node:path';
import { mediaSettings } from './modules/media/settings.js';
import { MediaRepo } from './modules/media/repo.js';
import { MediaService } from './modules/media/service.js';
import { FilesystemStore } from './modules/media/store.js';
import { txSettings } from './modules/tx/settings.js';
import { TxRepo } from './modules/tx/repo.js';
import { TxService } from './modules/tx/service.js';
import { TxTemplateCache } from './modules/tx/template-cache.js';
import { importSettings } from './modules/import/settings.js';
import { ImportRepo } from './modules/import/repo.js';
import { ImportService } from './modules/import/service.js';
import { DEFAULT_IMPORTER_OPTIONS, Importer, type ImporterOptions } from './workers/importer.js';
import { AdminNotifier } from './modules/notifications/admin-notifier.js';
import { domainRules } from './modules/subscribers/domains.js';
import { MaintenanceService } from './modules/maintenance/service.js';
import { LogService } from './modules/logs/service.js';
import type { LogLineWriter } from './modules/logs/writer.js';
import { auditSettings } from './modules/audit/settings.js';
import { AuditRepo } from './modules/audit/repo.js';
import { AuditService } from './modules/audit/service.js';

/** Everything the HTTP app and the workers use. */
export interface Deps {
  config: Config;
  logger: Logger;
  db: Db;
  users: UserService;
  /** Users, API users and the profile (the users API). */
  accounts: AccountService;
  /** User roles and list roles (the roles API). */
  roles: RoleService;
  /** Admin UI sessions (issue 16). */
  sessions: SessionService;
  /** Password sign-in and first-run setup (issue 16). */
  login: LoginService;
  /** TOTP two-factor enrolment and the sign-in's code step (issue 16 "Sign-in"). */
  twofa: TwofaService;
  /** Forgot/reset password by e-mail. */
  passwordReset: PasswordResetService;
  /** OpenID Connect sign-in (setting `security.oidc`). */
  oidc: OidcService;
  lists: ListService;
  subscribers: SubscriberApi;
  publicSubscription: PublicSubscriptionApi;
  /** Sends double opt-in e-mails (background queue drained on close). */
  optinMailer: OptinMailer;
  templates: TemplateService;
  campaigns: CampaignService;
  /** Campaign previews and test sends. */
  campaignMessages: CampaignMessages;
  /** "View in browser" and the public archive. */
  campaignPages: CampaignPageService;
  subscriptionPages: SubscriptionPageService;
  media: MediaService;
  tx: TxService;
  /** Transactional settings declarations (typed keys for `settings.get`). */
  txDefs: ReturnType<typeof txSettings>;
  /** `security.trusted_urls` as it stands now: the origins allowed CORS (src/http/cors.ts). */
  trustedUrls: () => readonly string[];
  imports: ImportService;
  /** Settings → Maintenance: batched deletes and the analytics export. */
  maintenance: MaintenanceService;
  /** GET /api/logs: the recent log lines of every instance. */
  logs: LogService;
  messengers: MessengerRegistry;
  settings: SettingsService;
  /** POST /api/settings/smtp/test. */
  smtpTest: SmtpTester;
  metrics: Metrics;
  health: HealthMonitor;
  /** The core setting declarations (typed keys for `settings.get`). */
  core: ReturnType<typeof coreSettings>;
  /** Engine, privacy and messenger setting declarations. */
  engine: ReturnType<typeof engineSettings>;
  privacy: ReturnType<typeof privacySettings>;
  messengerDefs: ReturnType<typeof messengerSettings>;
  tracking: TrackingService;
  /** The dashboard's counts and charts (API and admin page). */
  dashboard: DashboardService;
  /** The audit log: records state-changing requests, answers searches, trims old entries. */
  audit: AuditService;
  /** The delivery engine; null in API-only instances. */
  runner: CampaignRunner | null;
  /** Closes workers, messengers and the database. */
  close(): Promise<void>;
}

/** Options for {@link buildDeps}, mostly for tests. */
export interface BuildOptions {
  /** Use this database instead of opening one from the config (tests). It is not closed by close(). */
  db?: Db;
  /** Engine tunables overriding the defaults (tests use short leases and ticks). */
  runner?: Partial<Omit<RunnerOptions, 'owner'>>;
  /** Importer tunables overriding the defaults (tests use small batches and the beforeFlush hook). */
  importer?: Partial<Omit<ImporterOptions, 'owner' | 'singleProcess' | 'uploadDir'>>;
  /** Timings of the instance-id guard (PostgreSQL; tests use short ones). */
  instanceGuard?: Partial<InstanceGuardOptions>;
  /**
   * Called when another live instance took this instance's id while its database connection was lost
   * (see InstanceGuardOptions.onTaken); main.ts stops the process.
   */
  onInstanceIdTaken?: (err: Error) => void;
  /**
   * The logger's database destination (main.ts builds both): attached here once migrations ran, so the
   * lines go to log_lines as this instance; closed (its queue written) before the database closes.
   */
  logLines?: LogLineWriter;
}

/**
 * Logs a warning when the PostgreSQL server runs without autovacuum: its planner statistics then go
 * stale and large campaigns and subscriber queries get slow plans (docs/deployment.md). Never throws;
 * a server that cannot be asked yet is checked by nothing else.
 */
async function warnWithoutAutovacuum(db: Db, logger: Logger): Promise<void> {
  try {
    const [row] = await db.sql<{ autovacuum: string }>("SELECT current_setting('autovacuum') AS autovacuum");
    if (row?.autovacuum !== 'on') {
      logger.warn('autovacuum is off on this PostgreSQL server: planner statistics are not kept up to date; turn it on, or run ANALYZE after imports and other bulk changes');
    }
  } catch {
    // the database is not reachable yet: start-up reports that on its own
  }
}

/** Opens the configured store: PostgreSQL when DATABASE_URL is set, else PGlite under the data dir. */
export async function openDatabase(config: Config, logger: Logger): Promise<Db> {
  if (config.databaseUrl !== null) {
    const db = await openPostgres(config.databaseUrl, { onIdleError: (err) => logger.warn({ err }, 'idle database connection failed') });
    await warnWithoutAutovacuum(db, logger);
    return db;
  }
  return openPglite(join(config.dataDir, 'db'), {
    autovacuum: { onError: (err, table) => logger.warn({ err, table }, 'embedded autovacuum failed') },
  });
}

/** Builds every dependency; applies migrations and installs defaults on first start. */
export async function buildDeps(config: Config, logger: Logger, opts: BuildOptions = {}): Promise<Deps> {
  const db = opts.db ?? (await openDatabase(config, logger));
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  // Before any work is claimed: a second live process with this instance id must not start (it would
  // treat the first one's leases as its own). One process owns the embedded store anyway.
  const instanceGuard = db.kind === 'postgres' ? await InstanceGuard.acquire(db, config.instanceId, logger.child({ component: 'instance-guard' }), {
    ...DEFAULT_INSTANCE_GUARD_OPTIONS,
    ...opts.instanceGuard,
    ...(opts.onInstanceIdTaken ? { onTaken: opts.onInstanceIdTaken } : {}),
  }) : null;

  const listRepo = new ListRepo(db);
  const subscriberRepo = new SubscriberRepo(db);
  const templateRepo = new TemplateRepo(db);
  const campaignRepo = new CampaignRepo(db);
  const core = coreSettings(config);
  const subscriberDefs = subscriberSettings();
  const publicDefs = publicSubscriptionSettings();
  const archive = archiveSettings();
  const mediaDefs = mediaSettings();
  const txDefs = txSettings();
  const importDefs = importSettings();
  const engine = engineSettings();
  const privacy = privacySettings();
  const messengerDefs = messengerSettings();
  const corsDefs = corsSettings();
  const auditDefs = auditSettings();
  const oidcDefs = oidcSettings();
  const settingDefs = [
    ...Object.values(core), ...Object.values(archive), ...Object.values(mediaDefs), ...Object.values(txDefs), ...Object.values(importDefs),
    ...Object.values(subscriberDefs), ...Object.values(publicDefs), ...Object.values(engine), ...Object.values(privacy), ...Object.values(messengerDefs),
    ...Object.values(corsDefs), ...Object.values(auditDefs), ...Object.values(oidcDefs),
  ];
  const settings = new SettingsService(db, settingDefs, logger.child({ component: 'settings' }));
  await settings.init();
  const metrics = new Metrics();
  if (opts.logLines) {
    opts.logLines.attach(db, config.instanceId, {
      onTrouble: (err) => logger.warn({ err }, 'log lines cannot be written to the database; they are queued, and past the queue bound dropped and counted (mailroom_log_lines_dropped_total)'),
      onRecovered: () => logger.info('log lines are written to the database again'),
    });
    metrics.logLines(opts.logLines);
  }
  const health = new HealthMonitor(db, logger.child({ component: 'health' }));
  metrics.campaignProgress(campaignProgressReader(db));
  const metered = (list: Messenger[]) => list.map((m) => new MeteredMessenger(m, metrics, health));
  const allowPrivate = () => settings.get(messengerDefs.allowPrivateMessengerUrls);
  // The health monitor watches exactly the messengers of the current settings (issue 14 finding 6).
  const buildMessengers = (): Messenger[] => {
    const dropped = (server: string, names: string[]) =>
      logger.warn({ server, headers: names }, 'headers dropped at send time: they would add recipients, change the envelope, or are set by Mailroom (stored before the header rule)');
    const built = metered([...buildSmtpMessengers(settings.get(core.smtp), dropped), ...buildPostbackMessengers(settings.get(messengerDefs.messengers), allowPrivate)]);
    health.watch(built);
    return built;
  };
  const messengers = new MessengerRegistry(buildMessengers());
  const privacySwitches = (): PrivacySwitches => ({
    individualTracking: settings.get(privacy.individualTracking),
    disableTracking: settings.get(privacy.disableTracking),
    unsubscribeHeader: settings.get(privacy.unsubscribeHeader),
    allowPreferences: settings.get(privacy.allowPreferences),
  });
  const rateLimits = (): RateLimits => ({
    rate: settings.get(engine.messageRate),
    windowRate: settings.get(engine.slidingWindow) ? settings.get(engine.slidingWindowRate) : 0,
    windowMs: parseDuration(settings.get(engine.slidingWindowDuration)) ?? 3_600_000,
  });

  const users = new UserService(db);
  const sessions = new SessionService(db);
  const login = new LoginService(db, sessions);
  const templates = new TemplateService(db, templateRepo, {
    rootUrl: () => settings.get(core.rootUrl),
    optinTemplateId: () => settings.get(core.optinTemplateId),
  });
  const installed = await templates.installDefaults();
  if (installed !== null) await settings.update({ [core.optinTemplateId.key]: installed.optinTemplateId });
  const generated = await users.ensureAdmin(config.adminUser, config.adminPassword);
  if (generated !== null) {
    // Printed once, on the first start without MAILROOM_ADMIN_PASSWORD; only its hash is stored.
    process.stdout.write(`\nMailroom API user "${config.adminUser}" created with password: ${generated}\nStore it now; it will not be shown again.\n\n`);
  }

  // URLs inside real messages: the delivery engine, test sends and "view in browser" use the same.
  const urls = (): MessageUrls => {
    const p = privacySwitches();
    return { rootUrl: settings.get(core.rootUrl), logoUrl: settings.get(core.logoUrl), lang: settings.get(core.lang), trackViews: !p.disableTracking, individualTracking: p.individualTracking, unsubscribeHeader: p.unsubscribeHeader };
  };
  const notifier = new AdminNotifier({
    messengers,
    recipients: () => settings.get(core.notifyEmails),
    from: () => settings.get(core.fromEmail),
    logger: logger.child({ component: 'notifications' }),
  });
  const notify = (subject: string, body: string): void => notifier.notify(subject, body);
  const twofa = new TwofaService(db, sessions, { issuer: () => 'Mailroom' });
  const passwordReset = new PasswordResetService(db, {
    deliver: (message) => notifier.deliver(message),
    config: () => ({ rootUrl: settings.get(core.rootUrl), fromEmail: settings.get(core.fromEmail), logoUrl: settings.get(core.logoUrl), lang: settings.get(core.lang) }),
    logger: logger.child({ component: 'password-reset' }),
  });
  const oidc = new OidcService(db, sessions, { settings: () => settings.get(oidcDefs.oidc), rootUrl: () => settings.get(core.rootUrl), logger: logger.child({ component: 'oidc' }) });
  // Expired sessions, spent reset tokens, abandoned OIDC sign-ins and old failure counts are deleted
  // hourly by every instance.
  const signInHousekeeping = new SignInHousekeeping([sessions, passwordReset, oidc, new FailureCounter(db)], logger.child({ component: 'sign-in' }));
  signInHousekeeping.start();
  let runner: CampaignRunner | null = null;
  if (!config.apiOnly) {
    const runnerOpts: RunnerOptions = {
      ...DEFAULT_RUNNER_OPTIONS,
      concurrency: settings.get(core.concurrency),
      batchSize: settings.get(core.batchSize),
      maxSendErrors: settings.get(engine.maxSendErrors),
      owner: config.instanceId,
      releaseAllAtStart: db.kind === 'pglite',
      ...opts.runner,
    };
    const messageSettings = (): MessageSettings => ({ ...urls(), trackLinks: !settings.get(privacy.disableTracking) });
    const runnerLog = logger.child({ component: 'campaign-runner' });
    const limiter = new RateLimiter(new DbPermitSource(db), rateLimits(), runnerLog);
    runner = new CampaignRunner(new CampaignStore(db), { messengers, limiter, links: new LinkRegistry(db), messageSettings, notify }, runnerOpts, runnerLog);
  }

  const validator = new CampaignValidator({
    lists: listRepo,
    templates: templateRepo,
    messengers,
    defaultFrom: () => settings.get(core.fromEmail),
    now: () => new Date(),
  });
  const campaigns = new CampaignService({ db, repo: campaignRepo, templates: templateRepo, validator, onStarted: () => runner?.poke() });
  const rootUrl = () => settings.get(core.rootUrl);
  const testSendLog = logger.child({ component: 'test-send' });
  const campaignMessages = new CampaignMessages({
    db, repo: campaignRepo, templates: templateRepo, validator, messengers, rootUrl, urls,
    logDetail: (email, detail) => testSendLog.warn({ email, err: detail }, 'test send: could not reach the messenger\'s server'),
  });
  const campaignPages = new CampaignPageService({
    db,
    rootUrl,
    urls,
    archiveEnabled: () => settings.get(archive.enabled),
    rssContent: () => settings.get(archive.rssContent),
  });

  const optinMailer = new OptinMailer({
    repo: subscriberRepo,
    templates: templateRepo,
    messengers,
    config: () => ({ rootUrl: settings.get(core.rootUrl), logoUrl: settings.get(core.logoUrl), lang: settings.get(core.lang), fromEmail: settings.get(core.fromEmail), templateId: settings.get(core.optinTemplateId) }),
    logger: logger.child({ component: 'optin-mailer' }),
  });
  const requestOptin = (throttle: boolean) => (id: number) => {
    if (settings.get(subscriberDefs.sendOptinConfirmation)) optinMailer.enqueue(id, { throttle });
  };
  const finder = new SubscriberFinder(db, () => timeoutMs(settings.get(subscriberDefs.queryTimeout)));
  const domains = () => domainRules(settings.get(subscriberDefs.domainAllowlist), settings.get(subscriberDefs.domainBlocklist));
  const subscriberCore = { db, repo: subscriberRepo, lists: listRepo, finder, requestOptin: requestOptin(false), domains };
  const subscribers: SubscriberApi = {
    service: new SubscriberService({ ...subscriberCore, sendOptin: (id) => optinMailer.send(id), batchRows: () => settings.get(core.batchSize) }),
    bulk: new SubscriberBulkService(subscriberCore),
    csv: new SubscriberCsvExporter(finder, () => settings.get(core.batchSize)),
  };
  const trustedUrls = () => settings.get(corsDefs.trustedUrls);
  const publicSubscription: PublicSubscriptionApi = {
    trustedUrls,
    service: new PublicSubscriptionService({
      db,
      subscribers: subscriberRepo,
      enabled: () => settings.get(publicDefs.enabled),
      recordOptinIp: () => settings.get(publicDefs.recordOptinIp),
      requestOptin: requestOptin(true),
      onHoneypot: (email) => logger.info({ email }, 'public subscription ignored: honeypot field filled'),
      domains,
    }),
    limit: () => {
      const { requests, window } = settings.get(publicDefs.rateLimit);
      return { requests, windowMs: parseDuration(window) ?? 60_000 };
    },
  };

  settings.onChange((changed) => {
    if ([core.smtp, messengerDefs.messengers].some((d) => changed.has(d.key))) void messengers.replace(buildMessengers());
    runner?.configure({
      concurrency: settings.get(core.concurrency),
      batchSize: settings.get(core.batchSize),
      maxSendErrors: settings.get(engine.maxSendErrors),
      limits: rateLimits(),
    });
  });
  settings.startPolling();

  const uploads = new FilesystemStore(join(config.dataDir, 'uploads'));
  const media = new MediaService(new MediaRepo(db), uploads, settings, mediaDefs, () => settings.get(core.rootUrl), logger.child({ component: 'media' }));
  const tx = new TxService({
    repo: new TxRepo(db),
    cache: new TxTemplateCache(),
    messengers,
    defaultFrom: () => settings.get(core.fromEmail),
    rootUrl: () => settings.get(core.rootUrl),
    logoUrl: () => settings.get(core.logoUrl),
    lang: () => settings.get(core.lang),
    log: logger.child({ component: 'tx' }),
  });
  const importRepo = new ImportRepo(db);
  const importer = new Importer(db, importRepo, {
    ...DEFAULT_IMPORTER_OPTIONS,
    owner: config.instanceId,
    singleProcess: db.kind === 'pglite',
    // The embedded store has a single connection (docs/configuration.md, MAILROOM_IMPORT_WRITERS).
    writers: db.kind === 'pglite' ? 1 : config.importWriters,
    notify,
    uploadDir: join(config.dataDir, 'imports'),
    ...opts.importer,
  }, logger.child({ component: 'importer' }));
  await importer.recover();
  // Every instance trims; the trim is batched and skips rows another instance is deleting.
  const audit = new AuditService(new AuditRepo(db), {
    retentionDays: () => settings.get(auditDefs.retentionDays),
    logger: logger.child({ component: 'audit' }),
  });
  audit.start();
  const imports = new ImportService({ repo: importRepo, importer, settings, defs: importDefs, owner: config.instanceId, domains });

  return {
    config,
    logger,
    db,
    settings,
    core,
    metrics,
    health,
    engine,
    privacy,
    messengerDefs,
    tracking: new TrackingService(db, privacySwitches),
    dashboard: new DashboardService({ repo: new DashboardRepo(db) }),
    audit,
    users,
    accounts: new AccountService(new AccountRepo(db)),
    roles: new RoleService(new RoleRepo(db)),
    sessions,
    login,
    twofa,
    passwordReset,
    oidc,
    lists: new ListService(listRepo, {
      pauseCampaigns: pauseCampaignsForDeletedLists,
      onPaused: (paused) => {
        for (const c of paused) {
          logger.warn({ campaign_id: c.id, reason: c.status_reason }, 'campaign paused: a list it was sending to was deleted');
          notify(`Paused: ${c.name}`, `The campaign "${c.name}" (id ${c.id}) was paused: ${c.status_reason}`);
        }
      },
    }),
    subscribers,
    publicSubscription,
    optinMailer,
    templates,
    campaigns,
    campaignMessages,
    campaignPages,
    subscriptionPages: new SubscriptionPageService(db, subscriberRepo, privacySwitches),
    media,
    tx,
    txDefs,
    trustedUrls,
    imports,
    maintenance: new MaintenanceService(db, () => settings.get(core.batchSize)),
    logs: new LogService(db),
    smtpTest: new SmtpTester({
      stored: () => settings.get(core.smtp),
      from: () => settings.get(core.fromEmail),
      lang: () => settings.get(core.lang),
      log: logger.child({ component: 'smtp-test' }),
    }),
    messengers,
    runner,
    async close() {
      settings.stop();
      await importer.close();
      await runner?.stop();
      await optinMailer.drain();
      await notifier.drain();
      await messengers.closeAll();
      media.close();
      await opts.logLines?.close();
      await audit.stop();
      await signInHousekeeping.stop();
      await instanceGuard?.close();
      if (opts.db === undefined) await db.close();
    },
  };
}
