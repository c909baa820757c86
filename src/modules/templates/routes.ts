/**
 * Route table of the templates API (spec 4.3). Previews answer rendered HTML, not the JSON envelope,
 * served in a sandbox (src/http/rendered.ts).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, TrueEnvelope } from '../../http/schemas.js';
import { multipartAsBody } from '../../http/form.js';
import { sendRendered } from '../../http/rendered.js';
import { Template, TemplateCreate, TemplateListQuery, TemplatePreviewBody, TemplateUpdate } from './schemas.js';
import type { TemplateService } from './service.js';

const tags = ['templates'];
/** A rendered HTML answer (documented for OpenAPI; sent as text/html). */
const HtmlPage = { description: 'Rendered HTML', content: { 'text/html': { schema: Type.String() } } };

/** Registers the templates routes. */
export function templateRoutes(app: App, templates: TemplateService): void {
  app.get('/api/templates', {
    config: { permission: 'templates:get' },
    schema: { tags, summary: 'List every template', querystring: TemplateListQuery, response: { 200: Envelope(Type.Array(Template)), ...errorResponses } },
  }, async (req) => ({ data: await templates.list(req.query.no_body ?? false) }));

  app.get('/api/templates/:id', {
    config: { permission: 'templates:get' },
    schema: { tags, summary: 'Get one template', params: IdParams, response: { 200: Envelope(Template), ...errorResponses } },
  }, async (req) => ({ data: await templates.get(req.params.id) }));

  app.get('/api/templates/:id/preview', {
    config: { permission: 'templates:get' },
    schema: { tags, summary: 'Render a template with sample data (HTML)', params: IdParams, response: { 200: HtmlPage, ...errorResponses } },
  }, async (req, reply) => sendRendered(reply, { html: await templates.preview(req.params.id) }));

  app.post('/api/templates/preview', {
    config: { permission: 'templates:get' },
    preValidation: multipartAsBody(),
    schema: { tags, summary: 'Render a posted template with sample data (HTML; JSON or form body)', body: TemplatePreviewBody, response: { 200: HtmlPage, ...errorResponses } },
  }, async (req, reply) => sendRendered(reply, { html: templates.previewPosted(req.body) }));

  app.post('/api/templates', {
    config: { permission: 'templates:manage' },
    schema: { tags, summary: 'Create a template', body: TemplateCreate, response: { 200: Envelope(Template), ...errorResponses } },
  }, async (req) => ({ data: await templates.create(req.body) }));

  app.put('/api/templates/:id', {
    config: { permission: 'templates:manage' },
    schema: { tags, summary: 'Update a template (omitted fields keep their value)', params: IdParams, body: TemplateUpdate, response: { 200: Envelope(Template), ...errorResponses } },
  }, async (req) => ({ data: await templates.update(req.params.id, req.body) }));

  app.put('/api/templates/:id/default', {
    config: { permission: 'templates:manage' },
    schema: { tags, summary: 'Make a campaign template the default', params: IdParams, response: { 200: Envelope(Template), ...errorResponses } },
  }, async (req) => ({ data: await templates.makeDefault(req.params.id) }));

  app.delete('/api/templates/:id', {
    config: { permission: 'templates:manage' },
    schema: { tags, summary: 'Delete a template (not the default); its campaigns move to the default', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await templates.remove(req.params.id);
    return { data: true as const };
  });
}
