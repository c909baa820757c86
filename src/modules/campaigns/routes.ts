/**
 * Route table of the campaigns API (spec 4.7).
 */
import type { App } from '../../http/types.js';
import { Envelope, errorResponses, IdParams, QueryPage } from '../../http/schemas.js';
import { Campaign, CampaignCreate, CampaignQuery, CampaignStatusBody } from './schemas.js';
import type { CampaignService } from './service.js';

const tags = ['campaigns'];

/** Registers the campaigns routes. */
export function campaignRoutes(app: App, campaigns: CampaignService): void {
  app.get('/api/campaigns', {
    schema: { tags, summary: 'Search and page campaigns', querystring: CampaignQuery, response: { 200: Envelope(QueryPage(Campaign)), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.query(req.query) }));

  app.get('/api/campaigns/:id', {
    schema: { tags, summary: 'Get one campaign', params: IdParams, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.get(req.params.id) }));

  app.post('/api/campaigns', {
    schema: { tags, summary: 'Create a campaign (status draft)', body: CampaignCreate, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.create(req.body) }));

  app.put('/api/campaigns/:id/status', {
    schema: { tags, summary: 'Change a campaign status (spec part 3)', params: IdParams, body: CampaignStatusBody, response: { 200: Envelope(Campaign), ...errorResponses } },
  }, async (req) => ({ data: await campaigns.setStatus(req.params.id, req.body.status) }));
}
