/**
 * The dashboard's figures (listmonk reference §2.2): counts of subscribers, lists, campaigns and
 * messages, and 30 days of campaign views and link clicks. Both read figures that triggers keep exact
 * (README.md), so they are current on every instance and cost the same at any size.
 */
import type { DashboardRepo } from './repo.js';
import type { ChartDay, DashboardCharts, DashboardCounts } from './schemas.js';

/** Days in the charts: today (UTC) and the 29 days before it. */
export const CHART_DAYS = 30;

const DAY_MS = 86_400_000;

/** The UTC dates (`YYYY-MM-DD`) of the `days` days ending with the UTC day of `now`, oldest first. */
export function chartDates(now: Date, days = CHART_DAYS): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** Collaborators of {@link DashboardService}. `now` is the clock that decides "today" (tests fix it). */
export interface DashboardDeps {
  repo: DashboardRepo;
  now?: () => Date;
}

/** Answers the dashboard API and page. */
export class DashboardService {
  private readonly repo: DashboardRepo;
  private readonly now: () => Date;

  constructor(deps: DashboardDeps) {
    this.repo = deps.repo;
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * listmonk's dashboard counts. Orphans are subscribers in no list at all (a subscription of any
   * status, unsubscribed included, counts as a list, as in listmonk's `mat_dashboard_counts`).
   */
  async counts(): Promise<DashboardCounts> {
    const r = await this.repo.counts();
    return {
      subscribers: { total: r.subscribers_total, blocklisted: r.subscribers_blocklisted, orphans: r.subscribers_total - r.subscribers_in_lists },
      lists: { total: r.lists_total, private: r.lists_private, public: r.lists_public, optin_single: r.lists_optin_single, optin_double: r.lists_optin_double },
      campaigns: { total: r.campaigns_total, by_status: r.campaigns_by_status },
      messages: r.messages,
    };
  }

  /**
   * Views and clicks per UTC day for the last {@link CHART_DAYS} days, today included, oldest first;
   * every day is present, with count 0 when nothing happened (listmonk lists only days with events and
   * ends its window at the day of the latest event; docs/differences-from-listmonk.md).
   */
  async charts(): Promise<DashboardCharts> {
    const dates = chartDates(this.now());
    const rows = await this.repo.engagementDays(dates[0]!, dates[dates.length - 1]!);
    const views = new Map<string, number>();
    const clicks = new Map<string, number>();
    for (const r of rows) (r.kind === 'view' ? views : clicks).set(r.day, r.count);
    const series = (m: Map<string, number>): ChartDay[] => dates.map((date) => ({ count: m.get(date) ?? 0, date }));
    return { link_clicks: series(clicks), campaign_views: series(views) };
  }
}
