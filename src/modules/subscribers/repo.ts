/**
 * SQL access for subscribers and their subscriptions (filtered reads: filter.ts). Statements taking id
 * arrays are run in chunks of {@link CHUNK} ids, inside the caller's transaction, so a bulk change of a
 * million subscribers never builds one giant parameter.
 */
import type { Db, Queryable } from '../../db/db.js';
import { violates } from '../../db/db.js';
import { loadQueries } from '../../db/queries.js';
import { ConflictError } from '../../errors.js';
import type { Membership, Subscriber, SubscriberDataExport } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'subscriber-memberships',
  'subscriber-get',
  'subscriber-get-for-update',
  'subscriber-get-by-uuid',
  'subscriber-insert',
  'subscriber-update',
  'subscription-add',
  'subscriptions-replace',
  'subscriptions-upsert',
  'subscriptions-remove',
  'subscriptions-unsubscribe',
  'subscribers-blocklist',
  'subscriber-ids-existing',
  'subscriber-ids-outside-scope',
  'subscriber-delete',
  'subscriber-optin-lists',
  'export-subscriptions',
  'export-campaign-views',
  'export-link-clicks',
]);

/** Ids per statement in bulk changes. */
export const CHUNK = 10_000;

/** A subscriber row without its memberships. */
export type SubscriberRow = Omit<Subscriber, 'lists'>;

/** Fields of a subscriber as written (already validated and normalised). */
export interface SubscriberFields {
  email: string;
  name: string;
  attribs: Record<string, unknown>;
  status: string;
}

/** A membership written by a change: which list, which status it has now. */
export interface WrittenMembership {
  subscriber_id?: number;
  list_id: number;
  status: string;
}

/** A list as an opt-in e-mail shows it. */
export interface OptinList {
  id: number;
  uuid: string;
  name: string;
  type: string;
  optin: string;
  tags: string[];
  description: string;
}

/** Splits `ids` into chunks of {@link CHUNK}. */
export function chunks(ids: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(ids.slice(i, i + CHUNK));
  return out;
}

/** Subscribers table access. */
export class SubscriberRepo {
  constructor(private readonly db: Db) {}

  /** Attaches list-membership objects to subscriber rows (one query for the whole page). */
  async withMemberships(rows: SubscriberRow[], q: Queryable = this.db): Promise<Subscriber[]> {
    if (rows.length === 0) return [];
    const memberships = await q.run<Membership & { subscriber_id: number }>(Q['subscriber-memberships'], { ids: rows.map((r) => r.id) });
    const bySubscriber = new Map<number, Membership[]>();
    for (const { subscriber_id, ...m } of memberships) {
      const list = bySubscriber.get(subscriber_id) ?? [];
      list.push(m);
      bySubscriber.set(subscriber_id, list);
    }
    return rows.map((r) => ({ ...r, lists: bySubscriber.get(r.id) ?? [] }));
  }

  /** The subscriber with this id (with memberships), or null. */
  async get(id: number, q: Queryable = this.db): Promise<Subscriber | null> {
    const [row] = await q.run<SubscriberRow>(Q['subscriber-get'], { id });
    return row ? ((await this.withMemberships([row], q))[0] ?? null) : null;
  }

  /** The subscriber row, locked for the rest of the transaction `q`; null when unknown. */
  async lock(id: number, q: Queryable): Promise<SubscriberRow | null> {
    const [row] = await q.run<SubscriberRow>(Q['subscriber-get-for-update'], { id });
    return row ?? null;
  }

  /** The subscriber with this UUID (without memberships), or null. */
  async getByUuid(uuid: string, q: Queryable = this.db): Promise<SubscriberRow | null> {
    const [row] = await q.run<SubscriberRow>(Q['subscriber-get-by-uuid'], { uuid });
    return row ?? null;
  }

  /** Inserts a subscriber; ConflictError (409) when the e-mail exists. */
  async insert(sub: SubscriberFields, q: Queryable = this.db): Promise<SubscriberRow> {
    try {
      const [row] = await q.run<SubscriberRow>(Q['subscriber-insert'], { ...sub, attribs: JSON.stringify(sub.attribs) });
      return row!;
    } catch (err) {
      throw emailConflict(err);
    }
  }

  /** Writes every field of an existing subscriber; ConflictError (409) when the e-mail is taken. */
  async update(id: number, sub: SubscriberFields, q: Queryable): Promise<void> {
    try {
      await q.run(Q['subscriber-update'], { id, ...sub, attribs: JSON.stringify(sub.attribs) });
    } catch (err) {
      throw emailConflict(err);
    }
  }

  /** Adds memberships with `status` to existing lists among `listIds`; existing ones are kept. */
  async addSubscriptions(subscriberId: number, listIds: number[], status: string, q: Queryable = this.db): Promise<WrittenMembership[]> {
    if (listIds.length === 0) return [];
    return q.run<WrittenMembership>(Q['subscription-add'], { subscriber_id: subscriberId, list_ids: listIds, status });
  }

  /**
   * Replaces one subscriber's memberships (see `subscriptions-replace`); returns those written.
   * `manageable`: only memberships of these lists may be removed (null: any).
   */
  replaceSubscriptions(subscriberId: number, listIds: number[], status: string, q: Queryable, manageable: number[] | null = null): Promise<WrittenMembership[]> {
    return q.run<WrittenMembership>(Q['subscriptions-replace'], { subscriber_id: subscriberId, list_ids: listIds, status, manageable });
  }

  /** `add`: upserts memberships of `ids` × `listIds` with `status`; returns those written. */
  async upsertSubscriptions(ids: number[], listIds: number[], status: string | null, q: Queryable): Promise<WrittenMembership[]> {
    const out: WrittenMembership[] = [];
    for (const part of chunks(ids)) out.push(...(await q.run<WrittenMembership>(Q['subscriptions-upsert'], { ids: part, list_ids: listIds, status })));
    return out;
  }

  /** `remove`: deletes memberships of `ids` on `listIds`. */
  async removeSubscriptions(ids: number[], listIds: number[], q: Queryable): Promise<void> {
    for (const part of chunks(ids)) await q.run(Q['subscriptions-remove'], { ids: part, list_ids: listIds });
  }

  /** `unsubscribe`: marks memberships of `ids` on `listIds` unsubscribed. */
  async unsubscribe(ids: number[], listIds: number[], q: Queryable): Promise<void> {
    for (const part of chunks(ids)) await q.run(Q['subscriptions-unsubscribe'], { ids: part, list_ids: listIds });
  }

  /** Blocklists subscribers (status and every membership); returns the ids that exist. */
  async blocklist(ids: number[], q: Queryable): Promise<number[]> {
    const out: number[] = [];
    for (const part of chunks(ids)) out.push(...(await q.run<{ id: number }>(Q['subscribers-blocklist'], { ids: part })).map((r) => r.id));
    return out;
  }

  /** The ids among `ids` that exist. */
  async existing(ids: number[], q: Queryable = this.db): Promise<number[]> {
    const out: number[] = [];
    for (const part of chunks(ids)) out.push(...(await q.run<{ id: number }>(Q['subscriber-ids-existing'], { ids: part })).map((r) => r.id));
    return out;
  }

  /**
   * The ids among `ids` of existing subscribers without a membership of any list in `scope`
   * (ascending): those a user bounded by `scope` may not see or change.
   */
  async outsideScope(ids: number[], scope: number[], q: Queryable = this.db): Promise<number[]> {
    const out: number[] = [];
    for (const part of chunks(ids)) out.push(...(await q.run<{ id: number }>(Q['subscriber-ids-outside-scope'], { ids: part, scope })).map((r) => r.id));
    return out;
  }

  /** Deletes subscribers; returns the ids that existed. */
  async delete(ids: number[], q: Queryable = this.db): Promise<number[]> {
    const out: number[] = [];
    for (const part of chunks(ids)) out.push(...(await q.run<{ id: number }>(Q['subscriber-delete'], { ids: part })).map((r) => r.id));
    return out;
  }

  /** The subscriber's unconfirmed memberships of double opt-in lists. */
  optinLists(subscriberId: number, q: Queryable = this.db): Promise<OptinList[]> {
    return q.run<OptinList>(Q['subscriber-optin-lists'], { subscriber_id: subscriberId });
  }

  /** What the data export holds besides the profile: subscriptions, campaign views, link clicks. */
  async exportData(subscriberId: number): Promise<Omit<SubscriberDataExport, 'profile'>> {
    const p = { subscriber_id: subscriberId };
    return {
      subscriptions: await this.db.run<SubscriberDataExport['subscriptions'][number]>(Q['export-subscriptions'], p),
      campaign_views: await this.db.run<SubscriberDataExport['campaign_views'][number]>(Q['export-campaign-views'], p),
      link_clicks: await this.db.run<SubscriberDataExport['link_clicks'][number]>(Q['export-link-clicks'], p),
    };
  }
}

function emailConflict(err: unknown): unknown {
  if (violates(err, 'subscribers_email_key')) return new ConflictError('email: a subscriber with this e-mail already exists');
  return err;
}
