/**
 * buildApp(deps): the Fastify instance with its plugins, the one error handler, authentication, and
 * every module registered explicitly (conventions §1: no autoloading, so the API surface can be
 * grepped here). It never listens; main.ts does, and tests use `app.inject` or an ephemeral port.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installAuth } from './http/auth.js';
import { installErrorHandling } from './http/error-handler.js';
import { findNul, validatorCompiler } from './http/validation.js';
import { installJsonBodies } from './http/json-body.js';
import { FieldError } from './errors.js';
import { registerOpenApi } from './http/openapi.js';
import { collectRoutes } from './http/route-table.js';
import { registerSecurityHeaders } from './http/security.js';
import { defaultMaxConnections, installBodyTimeouts, limitConnections, serverTimeoutOptions } from './http/timeouts.js';
import { readFileSync } from 'node:fs';
import type { App } from './http/types.js';
import type { Deps } from './deps.js';
import { listRoutes } from './modules/lists/routes.js';
import { subscriberRoutes } from './modules/subscribers/routes.js';
import { templateRoutes } from './modules/templates/routes.js';
import { campaignRoutes } from './modules/campaigns/routes.js';
import { subscriptionPageRoutes } from './modules/subscription-pages/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { settingsRoutes } from './modules/settings/routes.js';
import { mediaRoutes } from './modules/media/routes.js';
import { txRoutes } from './modules/tx/routes.js';
import { importRoutes } from './modules/import/routes.js';
import { trackingRoutes } from './modules/tracking/routes.js';
import { dashboardRoutes } from './modules/dashboard/routes.js';
import { dashboardPages } from './modules/dashboard/pages.js';
import { campaignPageRoutes } from './modules/campaign-pages/routes.js';
import { registerCors } from './http/cors.js';
import { publicSubscriptionRoutes } from './modules/public-subscription/routes.js';
import { maintenanceRoutes } from './modules/maintenance/routes.js';
import { logRoutes } from './modules/logs/routes.js';
import { logPages } from './modules/logs/pages.js';
import { maintenancePages } from './modules/maintenance/pages.js';
import { userRoutes } from './modules/users/routes.js';
import { roleRoutes } from './modules/roles/routes.js';
import { rolePages } from './modules/roles/pages.js';
import { authRoutes } from './modules/auth/routes.js';
import { loginPages } from './modules/auth/login-pages.js';
import { userPages } from './modules/users/pages.js';
import { settingsPages } from './modules/settings/pages.js';
import { installUi, sendErrorPage } from './ui/pages.js';
import { uiRoutes } from './ui/routes.js';
import { auditRoutes } from './modules/audit/routes.js';
import { auditPages } from './modules/audit/pages.js';
import { installAuditHook } from './modules/audit/hook.js';
import { signinRoutes } from './modules/auth/signin-routes.js';
import { registerSigninPages } from './modules/auth/pages.js';

/** Mailroom's version, from package.json (src/ and dist/ are both one level below the project). */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Largest JSON or form body accepted by default (1 MiB); upload routes set their own limits. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP application on already-built dependencies. */
export async function buildApp(deps: Deps): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Timeouts for slow clients (issue 14 finding 8); the body timeouts per route are installed below.
    ...serverTimeoutOptions(deps.config.http),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/u.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    return503OnClosing: true,
    // boolean | hop count | address list: all accepted by Fastify; the cast keeps TS on the http1 overload.
    trustProxy: deps.config.trustProxy as boolean,
    // Errors raised by the router before any route runs (e.g. a malformed %-encoding in the path) get
    // the same `{"message"}` answer as everything else.
    frameworkErrors: (error, _request, reply) => {
      const message = error.code === 'FST_ERR_BAD_URL' ? 'invalid URL: malformed percent-encoding in the path' : 'invalid request';
      void (reply as FastifyReply).code(400).type('application/json; charset=utf-8').send({ message });
    },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  collectRoutes(app);
  limitConnections(app.server, deps.config.http.maxConnections ?? defaultMaxConnections(), app.log);
  // First of the onRequest hooks, so a request refused by a later one (401) is timed too.
  installBodyTimeouts(app, deps.config.http);
  app.setValidatorCompiler(validatorCompiler);
  // A response finished while the server closes also ends its connection: otherwise a keep-alive
  // client holds the graceful shutdown open until its idle timeout (found with SIGTERM during a long
  // guarded query, issue 14 finding 3).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (closing) reply.header('Connection', 'close');
  });
  installErrorHandling(app);
  // Runs after validation and after route hooks that turn multipart bodies into objects.
  app.addHook('preHandler', async (request) => {
    for (const part of [request.params, request.query, request.body]) {
      const field = findNul(part);
      if (field !== null) throw new FieldError(field, 'must not contain NUL characters');
    }
  });
  // JSON endpoints refuse text/plain with 415 (listmonk does the same) instead of parsing it as a string.
  app.removeContentTypeParser('text/plain');
  // Depth-checked JSON; an empty body is no fields (issue 14 finding 9, issue 15 item 1).
  installJsonBodies(app);
  await registerSecurityHeaders(app);
  await app.register(formbody, { bodyLimit: DEFAULT_BODY_LIMIT });
  await app.register(multipart, { limits: { fileSize: DEFAULT_BODY_LIMIT, files: 1, fields: 100 } });
  // Before authentication: a preflight carries no credentials and is answered by the CORS hook.
  await registerCors(app, deps.trustedUrls);
  await app.register(cookie);
  installAuth(app, deps.users, deps.sessions, { pageDenied: (request, reply, status, message) => sendErrorPage(app, request, reply, status, message) });
  // Records every state-changing request once it is answered (who, what, status); never delays it.
  installAuditHook(app, deps.audit);
  // A graceful stop waits for audit writes still in flight.
  app.addHook('onClose', async () => deps.audit.drain());
  await registerOpenApi(app, VERSION);

  healthRoutes(app, deps);
  listRoutes(app, deps.lists);
  subscriberRoutes(app, deps.subscribers);
  templateRoutes(app, deps.templates);
  campaignRoutes(app, deps.campaigns, deps.campaignMessages);
  subscriptionPageRoutes(app, deps.subscriptionPages);
  settingsRoutes(app, deps.settings, deps.smtpTest);
  mediaRoutes(app, deps.media);
  txRoutes(app, deps.tx, () => deps.settings.get(deps.txDefs.maxAttachmentsSize));
  importRoutes(app, deps.imports);
  trackingRoutes(app, deps.tracking);
  dashboardRoutes(app, deps.dashboard);
  campaignPageRoutes(app, deps.campaignPages);
  publicSubscriptionRoutes(app, deps.publicSubscription);
  maintenanceRoutes(app, deps.maintenance);
  logRoutes(app, deps.logs);
  userRoutes(app, deps.accounts);
  roleRoutes(app, deps.roles);
  authRoutes(app, deps.sessions);
  signinRoutes(app, { twofa: deps.twofa, oidc: deps.oidc, rootUrl: () => deps.settings.get(deps.core.rootUrl) });
  // The admin UI (issue 16): the page kit, its assets, `/` → /admin and the /admin 404 page.
  installUi(app, {
    site: () => ({ name: 'Mailroom', logoUrl: deps.settings.get(deps.core.logoUrl) || null }),
    secureCookies: deps.config.rootUrl.startsWith('https:'),
  });
  uiRoutes(app);
  loginPages(app, { login: deps.login, sessions: deps.sessions, secureCookies: deps.config.rootUrl.startsWith('https:'), oidc: deps.oidc });
  userPages(app, { accounts: deps.accounts, roles: deps.roles, twofa: deps.twofa });
  settingsPages(app, deps.settings, deps.smtpTest);
  auditRoutes(app, deps.audit);
  dashboardPages(app, deps.dashboard);
  registerSigninPages(app, { twofa: deps.twofa, passwordReset: deps.passwordReset, rootUrl: () => deps.settings.get(deps.core.rootUrl) });
  rolePages(app, { roles: deps.roles, lists: deps.lists });
  auditPages(app, deps.audit);
  logPages(app, deps.logs);
  maintenancePages(app, deps.maintenance);
  return app;
}
