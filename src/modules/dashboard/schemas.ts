/**
 * Response shapes of the dashboard API (listmonk reference §2.2: `mat_dashboard_counts`,
 * `mat_dashboard_charts`).
 */
import { Type, type Static } from 'typebox';

/**
 * The dashboard counts, listmonk's shape. `by_status` lists only the campaign statuses that occur;
 * every number is 0 rather than listmonk's `null` when there is nothing to count
 * (docs/differences-from-listmonk.md).
 */
export const DashboardCounts = Type.Object({
  subscribers: Type.Object({ total: Type.Integer(), blocklisted: Type.Integer(), orphans: Type.Integer() }),
  lists: Type.Object({ total: Type.Integer(), private: Type.Integer(), public: Type.Integer(), optin_single: Type.Integer(), optin_double: Type.Integer() }),
  campaigns: Type.Object({ total: Type.Integer(), by_status: Type.Record(Type.String(), Type.Integer()) }),
  messages: Type.Integer(),
});
export type DashboardCounts = Static<typeof DashboardCounts>;

/** One day of a chart: the UTC date (`YYYY-MM-DD`) and how many views or clicks it had. */
export const ChartDay = Type.Object({ count: Type.Integer(), date: Type.String({ format: 'date' }) });
export type ChartDay = Static<typeof ChartDay>;

/** The dashboard charts, listmonk's shape: one entry per day, oldest first. */
export const DashboardCharts = Type.Object({
  link_clicks: Type.Array(ChartDay),
  campaign_views: Type.Array(ChartDay),
});
export type DashboardCharts = Static<typeof DashboardCharts>;
