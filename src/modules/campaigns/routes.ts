/**
 * Route table of the campaigns API (spec 4.7). Previews answer rendered HTML (plain text for `plain`
 * campaigns), not the JSON envelope, served in a sandbox (src/http/rendered.ts).
 */
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { Envelope, ErrorBody, errorResponses, IdParams, QueryPage, TrueEnvelope } from '../../http/schemas.js';
import { multipartAsBody } from '../../http/form.js';
import { sendRendered } from '../../http/rendered.js';
import type { CampaignMessages } from './messages.js';
import {
  Campaign, CampaignArchive, CampaignArchiveBody, CampaignCreate, CampaignPreviewBody, CampaignQuery, CampaignStatusBody,
  CampaignTest, CampaignTestQuery, CampaignUpdate, RunningStat, RunningStatsQuery,
} from './schemas.js';
import type { CampaignService } from './service.js';

const tags = ['campaigns'];
/** A rendered preview (documented for OpenAPI; sent as text/html, or text/plain for plain campaigns). */
const Rendered = {
  description: 'Rendered message body',
  content: { 'text/html': { schema: Type.String() }, 'text/plain': { schema: Type.String() } },
};

/** Registers the campaigns routes. */
export function campaignRoutes(app: App, campaigns: CampaignService, messages: CampaignMessages): void {
  app.get('/api/campaigns', {
    config: { permission: ['campaigns:get_all', 'campaigns:get'] },
    schema: { tags, summary: 'Search and page campaigns', querystring: CampaignQuery, response: { 200: Envelope(QueryPage(Campaign)), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.query(req.query, req.principal) }));

  app.get('/api/campaigns/running/stats', {
    config: { permission: ['campaigns:get_all', 'campaigns:get'] },
    schema: { tags, summary: 'Progress and send rates (messages per minute) of running campaigns', querystring: RunningStatsQuery, response: { 200: Envelope(Type.Array(RunningStat)), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.runningStats(req.query.campaign_id ?? [], req.principal) }));

  app.get('/api/campaigns/:id', {
    config: { permission: ['campaigns:get_all', 'campaigns:get'] },
    schema: { tags, summary: 'Get one campaign', params: IdParams, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.get(req.params.id, req.principal) }));

  app.get('/api/campaigns/:id/preview', {
    config: { permission: ['campaigns:get_all', 'campaigns:get'] },
    schema: { tags, summary: 'Render the campaign for a sample subscriber', params: IdParams, response: { 200: Rendered, ...errorResponses } },
  }, async (req, reply) => {
    await campaigns.authorize(req.params.id, 'get', req.principal);
    return sendRendered(reply, await messages.preview(req.params.id));
  });

  app.post('/api/campaigns/:id/preview', {
    config: { permission: ['campaigns:get_all', 'campaigns:get'] },
    // A POST without a body renders the stored campaign, like GET.
    preValidation: [multipartAsBody(), async (req) => void (req.body ??= {})],
    schema: { tags, summary: 'Render posted body/content_type/template_id for a sample subscriber (JSON or form; nothing saved)', params: IdParams, body: CampaignPreviewBody, response: { 200: Rendered, ...errorResponses } },
  }, async (req, reply) => {
    await campaigns.authorize(req.params.id, 'get', req.principal);
    return sendRendered(reply, await messages.preview(req.params.id, req.body));
  });

  app.post('/api/campaigns', {
    config: { permission: ['campaigns:manage_all', 'campaigns:manage'] },
    schema: { tags, summary: 'Create a campaign (status draft)', body: CampaignCreate, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.create(req.body, req.principal) }));

  app.post('/api/campaigns/:id/test', {
    config: { permission: ['campaigns:manage_all', 'campaigns:manage'] },
    schema: { tags, summary: 'Send the campaign (with posted changes, unsaved) to existing subscribers', params: IdParams, querystring: CampaignTestQuery, body: CampaignTest, response: { 200: TrueEnvelope, 502: ErrorBody, ...errorResponses } },
  }, async (req) => {
    await campaigns.authorize(req.params.id, 'manage', req.principal);
    await messages.testSend(req.params.id, req.body, req.query.template_id);
    return { data: true as const };
  });

  app.put('/api/campaigns/:id', {
    config: { permission: ['campaigns:manage_all', 'campaigns:manage'] },
    schema: { tags, summary: 'Update a draft, scheduled or paused campaign (omitted fields keep their value)', params: IdParams, body: CampaignUpdate, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.update(req.params.id, req.body, req.principal) }));

  app.put('/api/campaigns/:id/status', {
    config: { permission: 'campaigns:send' },
    schema: { tags, summary: 'Change a campaign status (spec part 3)', params: IdParams, body: CampaignStatusBody, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.setStatus(req.params.id, req.body.status, req.principal) }));

  app.put('/api/campaigns/:id/archive', {
    config: { permission: ['campaigns:manage_all', 'campaigns:manage'] },
    schema: { tags, summary: 'Public-archive settings of a campaign (any status)', params: IdParams, body: CampaignArchiveBody, response: { 200: Envelope(CampaignArchive), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.setArchive(req.params.id, req.body, req.principal) }));

  app.delete('/api/campaigns/:id', {
    config: { permission: ['campaigns:manage_all', 'campaigns:manage'] },
    schema: { tags, summary: 'Delete a scheduled campaign that has not started (spec part 3)', params: IdParams, response: { 200: TrueEnvelope, ...errorResponses } },
  }, async (req) => {
    await campaigns.remove(req.params.id, req.principal);
    return { data: true as const };
  });
}
