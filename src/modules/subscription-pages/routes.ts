/**
 * Route table of the public pages reached from e-mails (reference §17). They answer HTML, need no
 * credentials and never change anything on GET.
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.js';
import { html, page } from '../../http/html.js';
import { multipartAsBody } from '../../http/form.js';
import { isUuid, type SubscriptionPageService, type UnsubscribeContext } from './service.js';

const tags = ['public pages'];
const PagePath = Type.Object({ campaignUuid: Type.String({ maxLength: 64 }), subscriberUuid: Type.String({ maxLength: 64 }) });
// A 1×1 transparent PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function sendPage(reply: FastifyReply, status: number, title: string, body: ReturnType<typeof html>): FastifyReply {
  return reply
    .status(status)
    .header('X-Robots-Tag', 'noindex')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, body));
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, 'Not found', html`<h1>Link not found</h1><p>This link is invalid or has expired.</p>`);
}

function confirmForm(ctx: UnsubscribeContext, action: string) {
  const names = ctx.memberships.filter((m) => m.status !== 'unsubscribed').map((m) => (m.type === 'private' ? 'a private list' : m.name));
  const what = names.length > 0 ? html`<p>You will stop receiving e-mails from: <strong>${names.join(', ')}</strong>.</p>` : html`<p class="muted">You are not subscribed to the lists of this e-mail.</p>`;
  return html`<h1>Unsubscribe</h1>
<p>Unsubscribe <strong>${ctx.subscriber.email}</strong>?</p>
${what}
<form method="post" action="${action}">
<button type="submit">Unsubscribe</button>
</form>`;
}

/** Registers the public subscription pages. */
export function subscriptionPageRoutes(app: App, pages: SubscriptionPageService): void {
  app.get('/subscription/:campaignUuid/:subscriberUuid', {
    schema: { tags, summary: 'Unsubscribe confirmation page (never unsubscribes)', params: PagePath },
    config: { public: true },
  }, async (req, reply) => {
    const { campaignUuid, subscriberUuid } = req.params;
    if (!isUuid(campaignUuid) || !isUuid(subscriberUuid)) return notFound(reply);
    const ctx = await pages.unsubscribeContext(campaignUuid.toLowerCase(), subscriberUuid.toLowerCase());
    if (ctx === null) return notFound(reply);
    return sendPage(reply, 200, 'Unsubscribe', confirmForm(ctx, `/subscription/${campaignUuid}/${subscriberUuid}`));
  });

  app.post('/subscription/:campaignUuid/:subscriberUuid', {
    preValidation: multipartAsBody(),
    schema: { tags, summary: 'Unsubscribe (form or RFC 8058 one-click POST)', params: PagePath },
    config: { public: true },
  }, async (req, reply) => {
    const { campaignUuid, subscriberUuid } = req.params;
    if (!isUuid(campaignUuid) || !isUuid(subscriberUuid)) return notFound(reply);
    const ctx = await pages.unsubscribeContext(campaignUuid.toLowerCase(), subscriberUuid.toLowerCase());
    if (ctx === null) return notFound(reply);
    await pages.unsubscribe(ctx);
    req.log.info({ subscriber_id: ctx.subscriber.id, campaign_id: ctx.campaign?.id }, 'unsubscribed from campaign lists');
    return sendPage(reply, 200, 'Unsubscribed', html`<h1>You have been unsubscribed</h1><p>You will no longer receive these e-mails at <strong>${ctx.subscriber.email}</strong>.</p>`);
  });

  app.get('/campaign/:campaignUuid/:subscriberUuid/px.png', {
    schema: { tags, summary: 'Open-tracking pixel', params: PagePath },
    config: { public: true },
  }, async (req, reply) => {
    try {
      await pages.recordView(req.params.campaignUuid.toLowerCase(), req.params.subscriberUuid.toLowerCase());
    } catch (err) {
      req.log.warn({ err }, 'could not record a campaign view');
    }
    return reply.header('Cache-Control', 'no-cache, no-store, must-revalidate').header('X-Robots-Tag', 'noindex').type('image/png').send(PIXEL);
  });
}
