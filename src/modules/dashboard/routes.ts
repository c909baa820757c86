/**
 * Route table of the dashboard API (listmonk reference §2.2). Any signed-in user or API user may read
 * it: listmonk's dashboard routes need no permission.
 */
import type { App } from '../../http/types.js';
import { Envelope, errorResponses } from '../../http/schemas.js';
import { DashboardCharts, DashboardCounts } from './schemas.js';
import type { DashboardService } from './service.js';

const tags = ['dashboard'];
const config = { permission: 'authenticated' as const };

/** Registers the dashboard routes. */
export function dashboardRoutes(app: App, dashboard: DashboardService): void {
  app.get('/api/dashboard/counts', {
    config,
    schema: { tags, summary: 'Counts of subscribers (blocklisted, in no list), lists, campaigns and messages sent', response: { 200: Envelope(DashboardCounts), ...errorResponses } },
  }, async () => ({ data: await dashboard.counts() }));

  app.get('/api/dashboard/charts', {
    config,
    schema: { tags, summary: 'Campaign views and link clicks per UTC day, the last 30 days (today included, days without any give 0)', response: { 200: Envelope(DashboardCharts), ...errorResponses } },
  }, async () => ({ data: await dashboard.charts() }));
}
