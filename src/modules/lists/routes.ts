/**
 * Route table of the lists API (spec 4.2).
 */
import { requireLists } from '../../http/access.js';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, Page, TrueEnvelope } from '../../http/schemas.js';
import { multipartAsBody } from '../../http/form.js';
import { List, ListCreate, ListDeleteQuery, ListQuery, ListUpdate } from './schemas.js';
import type { ListService } from './service.js';

const tags = ['lists'];

/**
 * Registers the lists routes. As in listmonk, reading and changing one list is not gated by a user-role
 * permission but by access to that list (`lists:get_all`/`lists:manage_all`, or the list role's
 * `list:get`/`list:manage`): the handlers check it (403 `permission denied: list:manage on list 12`).
 * Creating needs `lists:manage_all` (reference §2.2).
 */
export function listRoutes(app: App, lists: ListService): void {
  app.get('/api/lists', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'Search and page lists', querystring: ListQuery, response: { 200: Envelope(Page(List)), ...errorResponses } },
  }, async (req) => ({ data: await lists.query(req.query, req.principal) }));

  app.get('/api/lists/:id', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'Get one list', params: IdParams, response: { 200: Envelope(List), ...errorResponses } },
  }, async (req) => {
    requireLists(req.principal, 'list:get', [req.params.id]);
    return { data: await lists.get(req.params.id, req.principal) };
  });

  app.post('/api/lists', {
    config: { permission: 'lists:manage_all' },
    schema: { tags, summary: 'Create a list', body: ListCreate, response: { 200: Envelope(List), ...errorResponses } },
  }, async (req) => ({ data: await lists.create(req.body) }));

  app.put('/api/lists/:id', {
    config: { permission: 'authenticated' },
    preValidation: multipartAsBody(['tags']),
    schema: { tags, summary: 'Update a list (JSON or multipart form)', params: IdParams, body: ListUpdate, response: { 200: Envelope(List), ...errorResponses } },
  }, async (req) => {
    requireLists(req.principal, 'list:manage', [req.params.id]);
    return { data: await lists.update(req.params.id, req.body, req.principal) };
  });

  app.delete('/api/lists/:id', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'Delete a list', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    requireLists(req.principal, 'list:manage', [req.params.id]);
    await lists.delete(req.params.id, req.principal);
    return { data: true as const };
  });

  app.delete('/api/lists', {
    config: { permission: 'authenticated' },
    schema: { tags, summary: 'Delete several lists (?id=1&id=2)', querystring: ListDeleteQuery, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    requireLists(req.principal, 'list:manage', req.query.id);
    await lists.deleteMany(req.query.id, req.principal);
    return { data: true as const };
  });
}

