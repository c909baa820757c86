/**
 * Route table of the public campaign pages (issue 4 §4, reference §17): "view in browser" and the
 * public archive (HTML list, RSS feed, one message, and listmonk's JSON `/api/public/archive`). No
 * credentials. Messages are user HTML, served in a sandbox (src/http/rendered.ts).
 */
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../errors.js';
import type { App } from '../../http/types.js';
import { html, page } from '../../http/html.js';
import { sendRendered } from '../../http/rendered.js';
import { Envelope, errorResponses, Page, Timestamp, NullableTimestamp, Uuid } from '../../http/schemas.js';
import { archiveListPage, archiveRss } from './archive-views.js';
import { ARCHIVE_PER_PAGE, type CampaignPageService } from './service.js';

const tags = ['public pages'];
const ViewPath = Type.Object({ campaignUuid: Type.String({ maxLength: 64 }), subscriberUuid: Type.String({ maxLength: 64 }) });
const ArchivePath = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) });
const ArchivePageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) });
const ArchiveApiQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
const HtmlPage = { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } };
const MessagePage = { description: 'The rendered message', content: { 'text/html': { schema: Type.String() }, 'text/plain': { schema: Type.String() } } };
const RssFeed = { description: 'RSS 2.0 feed', content: { 'application/rss+xml': { schema: Type.String() } } };
const ArchiveItem = Type.Object({
  uuid: Uuid,
  subject: Type.String(),
  content: Type.String(),
  created_at: Timestamp,
  send_at: NullableTimestamp,
  url: Type.String(),
});

function htmlPage(reply: FastifyReply, status: number, title: string, body: ReturnType<typeof html>): FastifyReply {
  return reply.status(status).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(page(title, body));
}

function notFound(reply: FastifyReply, what = 'This page does not exist.'): FastifyReply {
  return htmlPage(reply, 404, 'Not found', html`<h1>Not found</h1><p>${what}</p>`);
}

/** Registers the public campaign pages. */
export function campaignPageRoutes(app: App, pages: CampaignPageService): void {
  app.get('/campaign/:campaignUuid/:subscriberUuid', {
    schema: { tags, summary: 'View a campaign message in the browser, as the subscriber got it', params: ViewPath, response: { 200: MessagePage } },
    config: { public: true },
  }, async (req, reply) => {
    let result;
    try {
      result = await pages.viewInBrowser(req.params.campaignUuid, req.params.subscriberUuid);
    } catch (err) {
      req.log.error({ err, campaign_uuid: req.params.campaignUuid }, 'message could not be rendered for the browser');
      return htmlPage(reply, 500, 'Error', html`<h1>This message cannot be displayed</h1><p>It could not be rendered. Please try again later.</p>`);
    }
    if (result.kind === 'redirect') return reply.redirect(result.url, 302);
    if (result.kind === 'not-found') return notFound(reply, 'This message does not exist or the link is incomplete.');
    return sendRendered(reply, result.body);
  });

  app.get('/archive', {
    schema: { tags, summary: 'The public archive: campaigns marked archive, newest first (HTML)', querystring: ArchivePageQuery, response: { 200: HtmlPage } },
    config: { public: true },
  }, async (req, reply) => {
    if (!pages.archiveEnabled) return notFound(reply);
    const pageNo = req.query.page ?? 1;
    const { entries, total } = await pages.archivePage(pageNo);
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8')
      .send(archiveListPage(entries, pageNo, Math.max(1, Math.ceil(total / ARCHIVE_PER_PAGE))));
  });

  app.get('/archive.xml', {
    schema: { tags, summary: 'RSS 2.0 feed of the public archive (latest 20)', response: { 200: RssFeed } },
    config: { public: true },
  }, async (_req, reply) => {
    if (!pages.archiveEnabled) return notFound(reply);
    const { entries } = await pages.archivePage(1, ARCHIVE_PER_PAGE, pages.rssContent);
    return reply.header('Cache-Control', 'no-cache').type('application/rss+xml; charset=utf-8').send(archiveRss(pages.rootUrl, entries));
  });

  app.get('/archive/:key', {
    schema: { tags, summary: 'One archived campaign by slug or UUID (`latest`: the newest), rendered for a placeholder subscriber', params: ArchivePath, response: { 200: MessagePage } },
    config: { public: true },
  }, async (req, reply) => {
    if (!pages.archiveEnabled) return notFound(reply);
    const found = await pages.archiveMessage(req.params.key);
    if (found === null) return notFound(reply, 'There is no archived message at this address.');
    return sendRendered(reply, found.body, { index: true });
  });

  app.get('/api/public/archive', {
    schema: { tags, summary: 'The public archive as JSON (listmonk)', querystring: ArchiveApiQuery, response: { 200: Envelope(Page(ArchiveItem)), ...errorResponses } },
    config: { public: true },
  }, async (req) => {
    if (!pages.archiveEnabled) throw new NotFoundError('the public archive is disabled');
    const pageNo = req.query.page ?? 1;
    const perPage = req.query.per_page ?? ARCHIVE_PER_PAGE;
    const { entries, total } = await pages.archivePage(pageNo, perPage);
    const results = entries.map((e) => ({ uuid: e.uuid, subject: e.subject, content: '', created_at: e.created_at.toISOString(), send_at: e.send_at?.toISOString() ?? null, url: e.url }));
    return { data: { results, total, per_page: perPage, page: pageNo } };
  });
}
