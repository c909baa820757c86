/**
 * Route table of the templates API (spec 4.3).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams } from '../../http/schemas.js';
import { Template } from './schemas.js';
import type { TemplateService } from './service.js';

const tags = ['templates'];

/** Registers the templates routes. */
export function templateRoutes(app: App, templates: TemplateService): void {
  app.get('/api/templates', {
    schema: { tags, summary: 'List every template', response: { 200: Envelope(Type.Array(Template)), ...errorResponses } },
  }, async () => ({ data: await templates.list() }));

  app.get('/api/templates/:id', {
    schema: { tags, summary: 'Get one template', params: IdParams, response: { 200: Envelope(Template), ...errorResponses } },
  }, async (req) => ({ data: await templates.get(req.params.id) }));
}
