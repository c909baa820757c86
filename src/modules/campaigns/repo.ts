/**
 * SQL access for campaigns.
 */
import type { Db, Queryable } from '../../db/db.js';
import { violates } from '../../db/db.js';
import { loadQueries, withOrder } from '../../db/queries.js';
import { ConflictError } from '../../errors.js';
import type { SubscriberForMessage } from '../../mail/campaign-message.js';
import type { Campaign, CampaignArchive, RunningStat } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'campaign-query',
  'campaign-count',
  'campaign-get',
  'campaign-insert',
  'campaign-lock',
  'campaign-update',
  'campaign-archive-set',
  'campaign-delete',
  'campaign-running-stats',
  'campaign-subscribers-by-email',
  'campaign-lists-clear',
  'campaign-lists-add',
  'campaign-in-scope',
  'campaign-status-get',
  'campaign-status-set',
]);

/**
 * Filters of a campaign search. `search` is lower-cased and LIKE-escaped; empty arrays mean "any".
 * `scope`: only campaigns targeting one of these lists (null: all; src/http/list-scope.ts).
 */
export interface CampaignFilter {
  search: string;
  statuses: string[];
  tags: string[];
  no_body: boolean;
  scope: number[] | null;
}

/** The stored fields of a campaign (validated), as written on create and update. */
export interface CampaignRecord {
  name: string;
  subject: string;
  from_email: string;
  body: string;
  body_source: string | null;
  altbody: string | null;
  content_type: string;
  send_at: Date | null;
  headers: Array<Record<string, string>>;
  attribs: Record<string, unknown>;
  tags: string[];
  type: string;
  messenger: string;
  template_id: number | null;
  archive: boolean;
  archive_slug: string | null;
  archive_template_id: number | null;
  archive_meta: Record<string, unknown>;
}

function params(c: CampaignRecord) {
  return { ...c, headers: JSON.stringify(c.headers), attribs: JSON.stringify(c.attribs), archive_meta: JSON.stringify(c.archive_meta) };
}

/** Maps the archive-slug uniqueness violation to a 409 naming the field. */
async function slugConflict<T>(slug: string | null, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (violates(err, 'campaigns_archive_slug_key')) throw new ConflictError(`archive_slug: "${slug}" is already used by another campaign`);
    throw err;
  }
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

  /** Locks the campaign row until the transaction ends; its status, or null when it does not exist. */
  async lock(id: number, q: Queryable): Promise<string | null> {
    const [row] = await q.run<{ status: string }>(Q['campaign-lock'], { id });
    return row?.status ?? null;
  }

  /** Inserts a campaign targeting `listIds` and returns its id. 409 for a used archive slug. */
  async insert(c: CampaignRecord, listIds: number[], q: Queryable): Promise<number> {
    const [row] = await slugConflict(c.archive_slug, () => q.run<{ id: number }>(Q['campaign-insert'], params(c)));
    await this.setLists(row!.id, listIds, q);
    return row!.id;
  }

  /** Writes every field and the target lists. 409 for a used archive slug. */
  async update(id: number, c: CampaignRecord, listIds: number[], q: Queryable): Promise<void> {
    await slugConflict(c.archive_slug, () => q.run(Q['campaign-update'], { id, ...params(c) }));
    await this.setLists(id, listIds, q);
  }

  /** Writes the archive settings (any status); null when the campaign does not exist. */
  async setArchive(id: number, a: CampaignArchive): Promise<CampaignArchive | null> {
    const run = () => this.db.run<CampaignArchive>(Q['campaign-archive-set'], { id, ...a, archive_meta: JSON.stringify(a.archive_meta) });
    const [row] = await slugConflict(a.archive_slug, run);
    return row ?? null;
  }

  /** Deletes the campaign if it is scheduled and never started; false otherwise. */
  async deleteScheduled(id: number): Promise<boolean> {
    return (await this.db.run(Q['campaign-delete'], { id })).length > 0;
  }

  /**
   * Progress of the running campaigns among `ids` (every running campaign when empty), bounded to
   * those targeting a list of `scope` (null: all).
   */
  runningStats(ids: number[], scope: number[] | null = null): Promise<RunningStat[]> {
    return this.db.run<RunningStat>(Q['campaign-running-stats'], { ids, scope });
  }

  /**
   * Whether campaign `id` targets one of the lists in `scope`; null when the campaign does not exist.
   */
  async inScope(id: number, scope: number[], q: Queryable = this.db): Promise<boolean | null> {
    const [row] = await q.run<{ allowed: boolean }>(Q['campaign-in-scope'], { id, scope });
    return row === undefined ? null : row.allowed;
  }

  /** Subscribers with these (normalised) e-mail addresses. */
  subscribersByEmail(emails: string[]): Promise<SubscriberForMessage[]> {
    return this.db.run<SubscriberForMessage>(Q['campaign-subscribers-by-email'], { emails });
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
