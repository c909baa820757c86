/**
 * Route table of the public pages reached from e-mails (reference §17). They answer HTML, need no
 * credentials and never change anything on GET.
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.js';
import { html, sendPage } from '../../http/html.js';
import { multipartAsBody } from '../../http/form.js';
import { BadRequestError } from '../../errors.js';
import { isUuid, type PreferenceMembership, type SubscriptionPageService, type UnsubscribeContext } from './service.js';

const tags = ['public pages'];
const PagePath = Type.Object({ campaignUuid: Type.String({ maxLength: 64 }), subscriberUuid: Type.String({ maxLength: 64 }) });
const PageQuery = Type.Object({ manage: Type.Optional(Type.String({ maxLength: 10 })) });

function isTrue(v: unknown): boolean {
  return typeof v === 'string' && ['true', '1', 'on', 'yes'].includes(v.toLowerCase());
}

function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return typeof v === 'string' && v !== '' ? [v] : [];
}

function preferencesForm(ctx: UnsubscribeContext, lists: PreferenceMembership[], action: string) {
  const boxes = lists.map(
    (l) => html`<label><input type="checkbox" name="l" value="${l.uuid}"${l.status !== 'unsubscribed' ? html` checked` : html``}> ${l.name}</label>`,
  );
  return html`<h1>Manage preferences</h1>
<form method="post" action="${action}">
<input type="hidden" name="manage" value="true">
<label>Name <input type="text" name="name" maxlength="256" required value="${ctx.subscriber.name}"></label>
<p class="muted">${ctx.subscriber.email}</p>
${lists.length > 0 ? html`<p>Your subscriptions (untick to leave a list):</p>${boxes}` : html`<p class="muted">You have no subscriptions to manage.</p>`}
<p><button type="submit">Save</button></p>
</form>`;
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
    schema: { tags, summary: 'Unsubscribe confirmation page (never unsubscribes); `?manage=true`: the preferences form', params: PagePath, querystring: PageQuery },
    config: { public: true },
  }, async (req, reply) => {
    const { campaignUuid, subscriberUuid } = req.params;
    if (!isUuid(campaignUuid) || !isUuid(subscriberUuid)) return notFound(reply);
    const ctx = await pages.unsubscribeContext(campaignUuid.toLowerCase(), subscriberUuid.toLowerCase());
    if (ctx === null) return notFound(reply);
    const action = `/subscription/${campaignUuid}/${subscriberUuid}`;
    if (isTrue(req.query.manage) && pages.preferencesAllowed) {
      return sendPage(reply, 200, 'Manage preferences', preferencesForm(ctx, await pages.preferences(ctx), action));
    }
    return sendPage(reply, 200, 'Unsubscribe', confirmForm(ctx, `/subscription/${campaignUuid}/${subscriberUuid}`));
  });

  app.post('/subscription/:campaignUuid/:subscriberUuid', {
    preValidation: multipartAsBody(),
    schema: { tags, summary: 'Unsubscribe (form or RFC 8058 one-click POST); with `manage=true`: save preferences (400, nothing changed, when `privacy.allow_preferences` is off)', params: PagePath },
    config: { public: true },
  }, async (req, reply) => {
    const { campaignUuid, subscriberUuid } = req.params;
    if (!isUuid(campaignUuid) || !isUuid(subscriberUuid)) return notFound(reply);
    const ctx = await pages.unsubscribeContext(campaignUuid.toLowerCase(), subscriberUuid.toLowerCase());
    if (ctx === null) return notFound(reply);
    const form = (req.body ?? {}) as Record<string, unknown>;
    // A preferences submission is never an unsubscribe, even when preferences were turned off while the
    // form was open: savePreferences refuses it then (400), changing nothing.
    if (isTrue(form.manage)) {
      try {
        const left = await pages.savePreferences(ctx, typeof form.name === 'string' ? form.name : '', asList(form.l));
        req.log.info({ subscriber_id: ctx.subscriber.id, unsubscribed: left }, 'subscription preferences saved');
      } catch (err) {
        if (!(err instanceof BadRequestError)) throw err;
        return sendPage(reply, 400, 'Manage preferences', html`<h1>Preferences not saved</h1><p>${err.message}</p>`);
      }
      return sendPage(reply, 200, 'Preferences saved', html`<h1>Your preferences have been saved</h1>`);
    }
    await pages.unsubscribe(ctx);
    req.log.info({ subscriber_id: ctx.subscriber.id, campaign_id: ctx.campaign?.id }, 'unsubscribed from campaign lists');
    return sendPage(reply, 200, 'Unsubscribed', html`<h1>You have been unsubscribed</h1><p>You will no longer receive these e-mails at <strong>${ctx.subscriber.email}</strong>.</p>`);
  });
}
