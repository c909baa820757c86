/**
 * Route table of tracking (listmonk reference §2.2, §7.10, §17): the open pixel and click redirects
 * (public, reached from e-mails) and campaign analytics (authenticated). The dashboard's counts and
 * charts are in modules/dashboard.
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.js';
import { html, page } from '../../http/html.js';
import { Envelope, errorResponses, Id } from '../../http/schemas.js';
import { CountBucket, LinkCount } from './schemas.js';
import { parseBound, type AnalyticsType, type TrackingService } from './service.js';
import { locationOf } from './links.js';

const tags = ['tracking'];
const PixelPath = Type.Object({ campaignUuid: Type.String({ maxLength: 64 }), subscriberUuid: Type.String({ maxLength: 64 }) });
const LinkPath = Type.Object({ linkUuid: Type.String({ maxLength: 64 }), campaignUuid: Type.String({ maxLength: 64 }), subscriberUuid: Type.String({ maxLength: 64 }) });
const AnalyticsPath = Type.Object({ type: Type.Enum(['views', 'clicks', 'bounces', 'links']) });
const AnalyticsQuery = Type.Object({
  id: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  from: Type.Optional(Type.String({ minLength: 10, maxLength: 40 })),
  to: Type.Optional(Type.String({ minLength: 10, maxLength: 40 })),
});
// A 1×1 transparent PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const DAY_MS = 86_400_000;

function invalidLink(reply: FastifyReply): FastifyReply {
  return reply
    .status(404)
    .header('X-Robots-Tag', 'noindex')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page('Invalid link', html`<h1>Invalid link</h1><p>This link is invalid or has expired.</p>`));
}

/** Registers the tracking routes. */
export function trackingRoutes(app: App, tracking: TrackingService): void {
  app.get('/campaign/:campaignUuid/:subscriberUuid/px.png', {
    schema: { tags, summary: 'Open-tracking pixel (always a 1×1 PNG)', params: PixelPath },
    config: { public: true },
  }, async (req, reply) => {
    try {
      await tracking.recordView(req.params.campaignUuid, req.params.subscriberUuid);
    } catch (err) {
      req.log.warn({ err }, 'could not record a campaign view');
    }
    return reply.header('Cache-Control', 'no-cache, no-store, must-revalidate').header('X-Robots-Tag', 'noindex').type('image/png').send(PIXEL);
  });

  app.get('/link/:linkUuid/:campaignUuid/:subscriberUuid', {
    schema: { tags, summary: 'Click tracking: records the click and redirects (307) to the URL the campaign registered', params: LinkPath },
    config: { public: true },
  }, async (req, reply) => {
    const { linkUuid, campaignUuid, subscriberUuid } = req.params;
    const url = await tracking.click(linkUuid, campaignUuid, subscriberUuid);
    if (url === null) return invalidLink(reply);
    return reply.header('X-Robots-Tag', 'noindex').header('Cache-Control', 'no-store').redirect(locationOf(url), 307);
  });

  app.get('/api/campaigns/analytics/:type', {
    config: { permission: 'campaigns:get_analytics' },
    schema: {
      tags,
      summary: 'Views, clicks or bounces per campaign and hour/day, or the top links (listmonk §7.10). `from`/`to`: dates or RFC 3339; default the last 30 days; a date `to` includes that day.',
      params: AnalyticsPath,
      querystring: AnalyticsQuery,
      response: { 200: Envelope(Type.Union([Type.Array(CountBucket), Type.Array(LinkCount)])), ...errorResponses },
    },
  }, async (req) => {
    const to = req.query.to !== undefined ? parseBound(req.query.to, 'to') : new Date();
    const from = req.query.from !== undefined ? parseBound(req.query.from, 'from') : new Date(to.getTime() - 30 * DAY_MS);
    return { data: await tracking.analytics(req.params.type as AnalyticsType, req.query.id, from, to, req.principal) };
  });
}
