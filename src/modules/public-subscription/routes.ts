/**
 * Route table of public subscription (spec 4.1, part 5; reference §2.3, §17; issue 3 §3–4): the public
 * lists, the public subscription endpoint (JSON or form body), the HTML subscription form, and the
 * double opt-in pages. None needs credentials. Subscription requests are rate-limited per IP address
 * (setting `security.public_subscription_rate_limit`), one count per address for the API and the form
 * together; a GET never changes anything.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, TooManyRequestsError } from '../../errors.js';
import { multipartAsBody } from '../../http/form.js';
import { errorResponses, TrueEnvelope } from '../../http/schemas.js';
import { toHttpError } from '../../http/error-handler.js';
import type { App } from '../../http/types.js';
import { trustedRedirect } from '../../http/cors.js';
import { sendPage } from '../../http/html.js';
import { formPage, messagePage, optinConfirmPage, optinDonePage, subscribedPage } from './pages.js';
import { FormBody, ListUuidQuery, listUuidsOf, OptinParams, PublicLists, PublicSubscribeBody } from './schemas.js';
import type { PublicSubscriptionService } from './service.js';

const tags = ['public subscription'];

/** The rate limit in effect: requests per window (0 = off) and the window in ms. */
export type RateLimitConfig = () => { requests: number; windowMs: number };

/** The `l` values of an optional form body (anything that is not a string is ignored). */
function uuidsOfBody(body: unknown): string[] {
  const l = typeof body === 'object' && body !== null ? (body as { l?: unknown }).l : undefined;
  return (Array.isArray(l) ? l : [l]).filter((v): v is string => typeof v === 'string').slice(0, 100);
}

/** The public subscription service and its rate limit, as the routes use them. */
export interface PublicSubscriptionApi {
  service: PublicSubscriptionService;
  limit: RateLimitConfig;
  /** `security.trusted_urls`: where the form's `next` field may send the browser after subscribing. */
  trustedUrls: () => readonly string[];
}

/** Registers the public subscription routes (in their own scope, which carries the rate limiter). */
export function publicSubscriptionRoutes(app: App, api: PublicSubscriptionApi): void {
  const { service: svc, limit, trustedUrls } = api;
  void app.register(async (scope: App) => {
    await scope.register(rateLimit, {
      global: false,
      max: () => limit().requests,
      timeWindow: () => limit().windowMs,
      allowList: () => limit().requests === 0,
      errorResponseBuilder: (_req, ctx) => new TooManyRequestsError(`too many subscription requests from your address; try again in ${ctx.after}`),
    });
    // One limiter, so one counter per client address across every public subscription entry point
    // (issue 14 finding 9: a limit per route gave the API and the form the full limit each).
    const limitSubscriptions = scope.rateLimit();

    scope.get('/api/public/lists', {
      schema: { tags, summary: 'The public lists (uuid, name), a bare array as listmonk answers', response: { 200: PublicLists, ...errorResponses } },
      config: { public: true },
    }, async () => (await svc.lists()).map(({ uuid, name }) => ({ uuid, name })));

    scope.post('/api/public/subscription', {
      preValidation: multipartAsBody(['l', 'list_uuids']),
      schema: { tags, summary: 'Subscribe to public lists (JSON or form body)', body: PublicSubscribeBody, response: { 200: TrueEnvelope, ...errorResponses } },
      onRequest: limitSubscriptions,
      config: { public: true },
    }, async (req) => {
      await svc.subscribe({ email: req.body.email, name: req.body.name, listUuids: listUuidsOf(req.body), nonce: req.body.nonce });
      return { data: true as const };
    });

    scope.get('/subscription/form', {
      schema: { tags, summary: 'The public subscription form (HTML)', querystring: ListUuidQuery },
      config: { public: true },
    }, async (req, reply) => {
      if (!svc.enabled) return sendPage(reply, 404, 'Not found', messagePage('Not available', 'Public subscription is not enabled.'));
      return sendPage(reply, 200, 'Subscribe', formPage(await svc.lists(), { email: '', name: '', selected: req.query.l ?? [] }, null));
    });

    scope.post('/subscription/form', {
      preValidation: multipartAsBody(['l', 'list_uuids']),
      schema: { tags, summary: 'Submit the public subscription form (HTML answer)', body: FormBody },
      onRequest: limitSubscriptions,
      config: { public: true },
      errorHandler: (err, req, reply) => formError(svc, err, req, reply),
    }, async (req, reply) => {
      if (!svc.enabled) return sendPage(reply, 404, 'Not found', messagePage('Not available', 'Public subscription is not enabled.'));
      const body = req.body ?? {};
      const { doubleOptin } = await svc.subscribe({ email: body.email ?? '', name: body.name, listUuids: listUuidsOf(body), nonce: body.nonce });
      // listmonk: a `next` exactly equal to a trusted URL is followed (303); any other is ignored, so the
      // form cannot be used to send people to an arbitrary site.
      const next = trustedRedirect(trustedUrls(), body.next);
      if (next !== null) return reply.code(303).header('Location', next).send();
      return sendPage(reply, 200, 'Subscribed', subscribedPage(doubleOptin));
    });

    scope.get('/subscription/optin/:subscriberUuid', {
      schema: { tags, summary: 'Double opt-in confirmation page (never confirms)', params: OptinParams, querystring: ListUuidQuery },
      config: { public: true },
      errorHandler: pageError,
    }, async (req, reply) => {
      const pending = await svc.pending(req.params.subscriberUuid, req.query.l ?? []);
      if (pending === null) return sendPage(reply, 404, 'Not found', messagePage('Link not found', 'This link is invalid or has expired.'));
      return sendPage(reply, 200, 'Confirm subscription', optinConfirmPage(pending, `/subscription/optin/${encodeURIComponent(req.params.subscriberUuid)}`));
    });

    scope.post('/subscription/optin/:subscriberUuid', {
      preValidation: multipartAsBody(['l']),
      // No body schema: a bare POST (no body at all) is a valid confirmation of every pending list.
      schema: { tags, summary: 'Confirm double opt-in subscriptions (form field or query parameter l)', params: OptinParams, querystring: ListUuidQuery },
      config: { public: true },
      errorHandler: pageError,
    }, async (req, reply) => {
      const l = [...uuidsOfBody(req.body), ...(req.query.l ?? [])];
      const confirmed = await svc.confirm(req.params.subscriberUuid, l, req.ip);
      if (confirmed === null) return sendPage(reply, 404, 'Not found', messagePage('Link not found', 'This link is invalid or has expired.'));
      if (confirmed.length > 0) req.log.info({ lists: confirmed.map((c) => c.uuid) }, 'double opt-in confirmed');
      return sendPage(reply, 200, 'Subscription confirmed', optinDonePage(confirmed));
    });
  });
}

/** Errors of the HTML pages become HTML pages with the same status (never JSON in a browser). */
function pageError(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const [status, message] = toHttpError(err);
  if (status >= 500) req.log.error({ err }, 'request failed');
  const text = status >= 500 ? 'Something went wrong on our side. Please try again later.' : status === 400 ? 'This link is not valid.' : message;
  return sendPage(reply, status, 'Error', messagePage(status === 429 ? 'Too many requests' : 'Sorry', text));
}

/** A refused form submission shows the form again with the problem and the values typed. */
async function formError(svc: PublicSubscriptionService, err: unknown, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const [status] = toHttpError(err);
  if (status !== 400) return pageError(err, req, reply);
  // The body failed validation, so every field is checked again before it is shown.
  const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const selected = [body['l'], body['list_uuids']].flat().filter((v): v is string => typeof v === 'string');
  const values = { email: text(body['email']), name: text(body['name']), selected };
  return sendPage(reply, 400, 'Subscribe', formPage(await svc.lists(), values, formMessage(err)));
}

/** A sentence for the person filling the form, from the field that was wrong. */
function formMessage(err: unknown): string {
  const field = err instanceof AppError ? (err as { field?: string }).field : undefined;
  const [, message] = toHttpError(err);
  if (field === 'list_uuids' || /^(l|list_uuids)[.:]/u.test(message)) return 'Choose at least one list.';
  if (field === 'email' || /^email[.:]/u.test(message)) return 'Enter a valid e-mail address, like name@example.com.';
  if (field === 'name' || /^name[.:]/u.test(message)) return 'The name is too long (at most 2,000 characters).';
  return message;
}
