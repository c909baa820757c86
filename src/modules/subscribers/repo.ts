/**
 * SQL access for subscribers and their subscriptions.
 */
import type { Db, Queryable } from '../../db/db.js';
import { violates } from '../../db/db.js';
import { loadQueries, withOrder } from '../../db/queries.js';
import { ConflictError } from '../../errors.js';
import type { Membership, Subscriber } from './schemas.js';

const Q = loadQueries(new URL('./queries.sql', import.meta.url), [
  'subscriber-query',
  'subscriber-count',
  'subscriber-memberships',
  'subscriber-get',
  'subscriber-get-by-uuid',
  'subscriber-insert',
  'subscription-add',
  'subscriber-delete',
]);

/** A subscriber row without its memberships. */
export type SubscriberRow = Omit<Subscriber, 'lists'>;

/** Filters of a subscriber search. Empty values mean "any"; `search` is lower-cased and LIKE-escaped. */
export interface SubscriberFilter {
  list_ids: number[];
  subscription_status: string;
  search: string;
}

/** Fields of a new subscriber (already validated and normalised). */
export interface NewSubscriber {
  email: string;
  name: string;
  attribs: Record<string, unknown>;
  status: string;
}

/** Subscribers table access. */
export class SubscriberRepo {
  constructor(private readonly db: Db) {}

  /** One page of subscribers matching `filter`, with memberships, and the total number of matches. */
  async query(filter: SubscriberFilter, order: string, limit: number | null, offset: number): Promise<{ rows: Subscriber[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      this.db.run<SubscriberRow>(withOrder(Q['subscriber-query'], order), { ...filter, limit, offset }),
      this.db.run<{ total: number }>(Q['subscriber-count'], filter),
    ]);
    return { rows: await this.withMemberships(rows), total: count?.total ?? 0 };
  }

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

  /** The subscriber with this UUID (without memberships), or null. */
  async getByUuid(uuid: string, q: Queryable = this.db): Promise<SubscriberRow | null> {
    const [row] = await q.run<SubscriberRow>(Q['subscriber-get-by-uuid'], { uuid });
    return row ?? null;
  }

  /** Inserts a subscriber; ConflictError (409) when the e-mail exists. */
  async insert(sub: NewSubscriber, q: Queryable = this.db): Promise<SubscriberRow> {
    try {
      const [row] = await q.run<SubscriberRow>(Q['subscriber-insert'], { ...sub, attribs: JSON.stringify(sub.attribs) });
      return row!;
    } catch (err) {
      if (violates(err, 'subscribers_email_key')) throw new ConflictError('email: a subscriber with this e-mail already exists');
      throw err;
    }
  }

  /** Adds memberships with `status` to existing lists among `listIds`; existing memberships are kept. */
  async addSubscriptions(subscriberId: number, listIds: number[], status: string, q: Queryable = this.db): Promise<void> {
    if (listIds.length === 0) return;
    await q.run(Q['subscription-add'], { subscriber_id: subscriberId, list_ids: listIds, status });
  }

  /** Deletes subscribers; returns the ids that existed. */
  async delete(ids: number[]): Promise<number[]> {
    const rows = await this.db.run<{ id: number }>(Q['subscriber-delete'], { ids });
    return rows.map((r) => r.id);
  }
}
