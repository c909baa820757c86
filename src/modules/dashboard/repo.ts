/**
 * SQL access for the dashboard: two read-only queries over maintained figures (README.md).
 */
import type { Db } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), ['dashboard-counts', 'dashboard-engagement-days']);

/** The row of `dashboard-counts`: flat counts (numbers) and the campaigns per status. */
export interface CountsRow {
  subscribers_total: number;
  /** Subscribers with at least one subscription, any status. */
  subscribers_in_lists: number;
  subscribers_blocklisted: number;
  lists_total: number;
  lists_private: number;
  lists_public: number;
  lists_optin_single: number;
  lists_optin_double: number;
  campaigns_total: number;
  /** Campaign status → number of campaigns; only statuses that occur. */
  campaigns_by_status: Record<string, number>;
  /** Sum of `campaigns.sent`. */
  messages: number;
}

/** Views or clicks of one UTC day (`day` is `YYYY-MM-DD`). */
export interface EngagementDay {
  day: string;
  kind: 'view' | 'click';
  count: number;
}

/** Read access to the figures behind the dashboard. */
export class DashboardRepo {
  constructor(private readonly db: Db) {}

  /** All counts in one statement (one snapshot, so they agree with each other). */
  async counts(): Promise<CountsRow> {
    const [row] = await this.db.run<CountsRow>(Q['dashboard-counts']);
    return row!;
  }

  /**
   * Views and clicks per UTC day from `from` to `to` (`YYYY-MM-DD`, both included), ascending; days
   * with none are absent.
   */
  async engagementDays(from: string, to: string): Promise<EngagementDay[]> {
    return this.db.run<EngagementDay>(Q['dashboard-engagement-days'], { from, to });
  }
}
