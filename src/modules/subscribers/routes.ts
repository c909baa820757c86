/**
 * Route table of the subscribers API (spec 4.1; reference §2.2, §4; issue 3 §1).
 */
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { requirePermission } from '../../http/access.js';
import { streamPage } from '../../http/streamed-page.js';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, QueryPage, TrueEnvelope } from '../../http/schemas.js';
import type { SubscriberBulkService } from './bulk.js';
import type { SubscriberCsvExporter } from './csv-export.js';
import {
  BlocklistBody, CreatedSubscriber, ListsChangeBody, OneListsChangeBody, QueryListsBody, QueryTargetBody, Subscriber,
  SubscriberCreate, SubscriberDataExport, SubscriberDeleteQuery, SubscriberExportQuery, SubscriberPatch, SubscriberQuery, SubscriberUpdate,
} from './schemas.js';
import type { SubscriberService } from './service.js';

/** The subscriber module's services, as the routes use them. */
export interface SubscriberApi {
  service: SubscriberService;
  bulk: SubscriberBulkService;
  csv: SubscriberCsvExporter;
}

const tags = ['subscribers'];
const ok = { data: true as const };

/**
 * A SQL `query` (not blank) needs `subscribers:sql_query` on top of the route's permission: listmonk
 * checks it in the handlers of the query, export and by-query routes (`cmd/subscribers.go`), 403
 * `permission denied: subscribers:sql_query`. Unlike listmonk, `"all": true` does not drop the query
 * here (Mailroom still runs it), so the check does not depend on `all`.
 */
function checkSqlQuery(req: FastifyRequest, query: string | undefined): void {
  if (query !== undefined && query.trim() !== '') requirePermission(req.principal, 'subscribers:sql_query');
}

/** Registers the subscribers routes. */
export function subscriberRoutes(app: App, api: SubscriberApi): void {
  const { service, bulk, csv } = api;

  app.get('/api/subscribers', {
    config: { permission: ['subscribers:get_all', 'subscribers:get'] },
    schema: { tags, summary: 'Filter and page subscribers (query, search, list_id, subscription_status)', querystring: SubscriberQuery, response: { 200: Envelope(QueryPage(Subscriber)), ...errorResponses } },
  }, async (req, reply) => {
    checkSqlQuery(req, req.query.query);
    await streamPage(reply, (sink) => service.stream(req.query, sink, undefined, req.principal));
    return reply;
  });

  app.get('/api/subscribers/export', {
    config: { permission: ['subscribers:get_all', 'subscribers:get'] },
    schema: { tags, summary: 'Export matching subscribers as CSV', querystring: SubscriberExportQuery, response: { 200: Type.String(), ...errorResponses } },
  }, async (req, reply) => {
    checkSqlQuery(req, req.query.query);
    const stream = await csv.open(req.query, req.principal);
    // A stream is sent as it is; the typed reply only knows the schema's string.
    return reply.type('text/csv; charset=utf-8').header('Content-Disposition', 'attachment; filename="subscribers.csv"').send(stream as unknown as string);
  });

  app.get('/api/subscribers/lists/:id', {
    config: { permission: ['subscribers:get_all', 'subscribers:get'] },
    schema: { tags, summary: 'Subscribers of one list (same parameters as GET /api/subscribers)', params: IdParams, querystring: SubscriberQuery, response: { 200: Envelope(QueryPage(Subscriber)), ...errorResponses } },
  }, async (req, reply) => {
    checkSqlQuery(req, req.query.query);
    await streamPage(reply, (sink) => service.streamList(req.params.id, req.query, sink, req.principal));
    return reply;
  });

  app.get('/api/subscribers/:id', {
    config: { permission: ['subscribers:get_all', 'subscribers:get'] },
    schema: { tags, summary: 'Get one subscriber with list memberships', params: IdParams, response: { 200: Envelope(Subscriber), ...errorResponses } },
  }, async (req) => ({ data: await service.get(req.params.id, req.principal) }));

  app.get('/api/subscribers/:id/export', {
    config: { permission: ['subscribers:get_all', 'subscribers:get'] },
    schema: { tags, summary: "Download a subscriber's data as JSON", params: IdParams, response: { 200: SubscriberDataExport, ...errorResponses } },
  }, async (req, reply) => {
    const data = await service.exportData(req.params.id, req.principal);
    return reply.header('Content-Disposition', 'attachment; filename="data.json"').send(data);
  });

  app.post('/api/subscribers', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Create a subscriber', body: SubscriberCreate, response: { 200: Envelope(CreatedSubscriber), ...errorResponses } },
  }, async (req) => ({ data: await service.create(req.body, req.principal) }));

  app.post('/api/subscribers/:id/optin', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Send the double opt-in e-mail again', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await service.resendOptin(req.params.id, req.principal), ok));

  app.put('/api/subscribers/:id', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Replace a subscriber (omitted lists and attribs are cleared)', params: IdParams, body: SubscriberUpdate, response: { 200: Envelope(Subscriber), ...errorResponses } },
  }, async (req) => ({ data: await service.update(req.params.id, req.body, req.principal) }));

  app.patch('/api/subscribers/:id', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Change the given fields of a subscriber (attribs merged)', params: IdParams, body: SubscriberPatch, response: { 200: Envelope(Subscriber), ...errorResponses } },
  }, async (req) => ({ data: await service.patch(req.params.id, req.body, req.principal) }));

  app.put('/api/subscribers/:id/blocklist', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Blocklist one subscriber', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await bulk.blocklistOne(req.params.id, req.principal), ok));

  app.put('/api/subscribers/blocklist', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Blocklist subscribers by id', body: BlocklistBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await bulk.blocklistMany(req.body.ids, req.principal), ok));

  app.put('/api/subscribers/lists', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Add, remove or unsubscribe subscribers to/from lists', body: ListsChangeBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await bulk.changeLists(req.body.ids, req.body, true, req.principal), ok));

  app.put('/api/subscribers/lists/:id', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: "Change one subscriber's list memberships", params: IdParams, body: OneListsChangeBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await bulk.changeListsOne(req.params.id, req.body, req.principal), ok));

  app.put('/api/subscribers/query/blocklist', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Blocklist the subscribers matching a filter', body: QueryTargetBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (checkSqlQuery(req, req.body.query), await bulk.blocklistByQuery(req.body, req.principal), ok));

  app.post('/api/subscribers/query/delete', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Delete the subscribers matching a filter', body: QueryTargetBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (checkSqlQuery(req, req.body.query), await bulk.deleteByQuery(req.body, req.principal), ok));

  app.put('/api/subscribers/query/lists', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Change list memberships of the subscribers matching a filter', body: QueryListsBody, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (checkSqlQuery(req, req.body.query), await bulk.changeListsByQuery(req.body, req.principal), ok));

  app.delete('/api/subscribers/:id', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Delete a subscriber', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await service.delete(req.params.id, req.principal), ok));

  app.delete('/api/subscribers', {
    config: { permission: 'subscribers:manage' },
    schema: { tags, summary: 'Delete several subscribers (?id=1&id=2)', querystring: SubscriberDeleteQuery, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => (await service.deleteMany(req.query.id, req.principal), ok));
}
