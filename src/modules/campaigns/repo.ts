/**
 * SQL access for campaigns.
 */
import type { Db, Queryable } from '../../db/db.js';
import { loadQueries, withOrder } from '../../db/queries.js';
import type { Campaign } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'campaign-query',
  'campaign-count',
  'campaign-get',
  'campaign-insert',
  'campaign-lists-clear',
  'campaign-lists-add',
  'campaign-status-get',
  'campaign-status-set',
]);

/** Filters of a campaign search. `search` is lower-cased and LIKE-escaped; empty arrays mean "any". */
export interface CampaignFilter {
  search: string;
  statuses: string[];
  tags: string[];
  no_body: boolean;
}

/** Fields of a new campaign (validated). */
export interface NewCampaign {
  name: string;
  subject: string;
  from_email: string;
  body: string;
  altbody: string | null;
  content_type: string;
  send_at: Date | null;
  headers: Array<Record<string, string>>;
  attribs: Record<string, unknown>;
  tags: string[];
  type: string;
  messenger: string;
  template_id: number | null;
}

/** Campaigns table access. */
export class CampaignRepo {
  constructor(private readonly db: Db) {}

  /** One page of campaigns and the total number of matches. */
  async query(filter: CampaignFilter, order: string, limit: number | null, offset: number): Promise<{ rows: Campaign[]; total: number }> {
    const rows = await this.db.run<Campaign & { total: number }>(withOrder(Q['campaign-query'], order), { ...filter, limit, offset });
    if (rows.length > 0) return { rows: rows.map(({ total: _t, ...c }) => c), total: rows[0]!.total };
    const [count] = await this.db.run<{ total: number }>(Q['campaign-count'], filter);
    return { rows: [], total: count?.total ?? 0 };
  }

  /** The campaign with this id, or null. */
  async get(id: number, q: Queryable = this.db): Promise<Campaign | null> {
    const [row] = await q.run<Campaign>(Q['campaign-get'], { id });
    return row ?? null;
  }

  /** Inserts a campaign targeting `listIds` and returns its id. */
  async insert(c: NewCampaign, listIds: number[], q: Queryable): Promise<number> {
    const [row] = await q.run<{ id: number }>(Q['campaign-insert'], {
      ...c,
      headers: JSON.stringify(c.headers),
      attribs: JSON.stringify(c.attribs),
    });
    await this.setLists(row!.id, listIds, q);
    return row!.id;
  }

  /** Replaces the campaign's target lists. */
  async setLists(campaignId: number, listIds: number[], q: Queryable): Promise<void> {
    await q.run(Q['campaign-lists-clear'], { campaign_id: campaignId });
    await q.run(Q['campaign-lists-add'], { campaign_id: campaignId, list_ids: listIds });
  }

  /** Current status and schedule, or null when the campaign does not exist. */
  async status(id: number): Promise<{ status: string; send_at: Date | null } | null> {
    const [row] = await this.db.run<{ status: string; send_at: Date | null }>(Q['campaign-status-get'], { id });
    return row ?? null;
  }

  /** Moves `from` → `to` if the campaign is still in `from`; false when it was not. */
  async setStatus(id: number, from: string, to: string): Promise<boolean> {
    return (await this.db.run(Q['campaign-status-set'], { id, from, to })).length > 0;
  }
}
