/**
 * The dashboard's admin page table (conventions §13): `/admin`, for anyone signed in (listmonk's
 * dashboard is ungated). The tiles link only to the pages the user may open (the navigation's gates).
 */
import type { FastifyInstance } from 'fastify';
import { can } from '../../http/access.js';
import { page, registerPages, view } from '../../ui/pages.js';
import type { DashboardService } from './service.js';
import { DashboardView } from './views/dashboard.js';

/** Registers the dashboard's pages on `app` (after installUi). */
export function dashboardPages(app: FastifyInstance, dashboard: DashboardService): void {
  registerPages(app, [
    page('GET', '/admin', 'authenticated', async (_request, ctx) => {
      const [counts, charts] = await Promise.all([dashboard.counts(), dashboard.charts()]);
      const links = {
        lists: true,
        subscribers: can(ctx.principal, 'subscribers:get_all', 'subscribers:get'),
        campaigns: can(ctx.principal, 'campaigns:get_all', 'campaigns:get'),
      };
      const v = DashboardView({ counts, charts, links });
      return view(v.title, v.body);
    }),
  ]);
}
