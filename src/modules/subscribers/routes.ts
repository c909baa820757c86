/**
 * Route table of the subscribers API (spec 4.1).
 */
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, QueryPage, TrueEnvelope } from '../../http/schemas.js';
import { CreatedSubscriber, Subscriber, SubscriberCreate, SubscriberDeleteQuery, SubscriberQuery } from './schemas.js';
import type { SubscriberService } from './service.js';

const tags = ['subscribers'];

/** Registers the subscribers routes. */
export function subscriberRoutes(app: App, subscribers: SubscriberService): void {
  app.get('/api/subscribers', {
    schema: { tags, summary: 'Search and page subscribers', querystring: SubscriberQuery, response: { 200: Envelope(QueryPage(Subscriber)), ...errorResponses } },
  }, async (req) => ({ data: await subscribers.query(req.query) }));

  app.get('/api/subscribers/:id', {
    schema: { tags, summary: 'Get one subscriber with list memberships', params: IdParams, response: { 200: Envelope(Subscriber), ...errorResponses } },
  }, async (req) => ({ data: await subscribers.get(req.params.id) }));

  app.post('/api/subscribers', {
    schema: { tags, summary: 'Create a subscriber', body: SubscriberCreate, response: { 200: Envelope(CreatedSubscriber), ...errorResponses } },
  }, async (req) => ({ data: await subscribers.create(req.body) }));

  app.delete('/api/subscribers/:id', {
    schema: { tags, summary: 'Delete a subscriber', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await subscribers.delete(req.params.id);
    return { data: true as const };
  });

  app.delete('/api/subscribers', {
    schema: { tags, summary: 'Delete several subscribers (?id=1&id=2)', querystring: SubscriberDeleteQuery, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await subscribers.deleteMany(req.query.id);
    return { data: true as const };
  });
}
